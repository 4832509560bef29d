// The warp-collective instructions of the CTA simulator (ops_sim.h): ldmatrix, stmatrix, shfl.sync and mma.sync,
// each computed from every lane's registers at once (a warp's lanes run in lock-step).
#pragma once
#include <algorithm>

namespace kiln::lower::test {

inline std::vector<uint64_t> CtaSim::matrixRows(int w0, int num, const Inst& in, const std::string& operand,
                                                 const char* what) {
  // Lane l of the warp at w0 gives the address of row l % 8 of matrix l / 8.
  std::vector<uint64_t> rows(size_t(8 * num));
  for (int l = 0; l < 8 * num; ++l) {
    if (!active(w0 + l, in)) fail(std::string("guarded ") + what);
    rows[size_t(l)] = address(w0 + l, operand);
    if (rows[size_t(l)] % 16) fail(std::string(what) + " row address not 16-byte aligned");
  }
  return rows;
}

inline void CtaSim::execLdmatrix(const Inst& in) {
  // ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 {d..}, [addr]: lane l gives the row address of row
  // l % 8 of matrix l / 8; register j of lane l is matrix j's (l / 4, 2(l % 4) + {0, 1}) or, transposed,
  // (2(l % 4) + {0, 1}, l / 4).
  const bool trans = std::find(in.parts.begin(), in.parts.end(), "trans") != in.parts.end();
  std::vector<std::string> d = vecOps(in.ops.at(0));
  const int num = int(d.size());
  for (int w0 = 0; w0 < n_; w0 += 32) {
    if (!running_[size_t(w0)]) continue;
    const std::vector<uint64_t> rows = matrixRows(w0, num, in, in.ops.at(1), "ldmatrix");
    for (int l = 0; l < 32; ++l)
      for (int j = 0; j < num; ++j) {
        uint64_t v = 0;
        for (int h = 0; h < 2; ++h) {
          uint64_t at = trans ? rows[size_t(8 * j + 2 * (l % 4) + h)] + uint64_t(2 * (l / 4))
                              : rows[size_t(8 * j + l / 4)] + uint64_t(2 * (2 * (l % 4) + h));
          for (int b = 0; b < 2; ++b) v |= uint64_t(sharedRead(w0 + l, size_t(at) + size_t(b))) << (16 * h + 8 * b);
        }
        set(w0 + l, d[size_t(j)], v);
      }
  }
}

inline void CtaSim::execStmatrix(const Inst& in) {
  // stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 [addr], {s..}: ldmatrix's inverse; lane l gives the
  // row address of row l % 8 of matrix l / 8, and register j of lane l holds matrix j's (l / 4, 2(l % 4) +
  // {0, 1}) or, transposed, (2(l % 4) + {0, 1}, l / 4).
  const bool trans = std::find(in.parts.begin(), in.parts.end(), "trans") != in.parts.end();
  std::vector<std::string> src = vecOps(in.ops.at(1));
  const int num = int(src.size());
  for (int w0 = 0; w0 < n_; w0 += 32) {
    if (!running_[size_t(w0)]) continue;
    const std::vector<uint64_t> rows = matrixRows(w0, num, in, in.ops.at(0), "stmatrix");
    for (int l = 0; l < 32; ++l)
      for (int j = 0; j < num; ++j) {
        const uint64_t v = get(w0 + l, src[size_t(j)]);
        for (int h = 0; h < 2; ++h) {
          uint64_t at = trans ? rows[size_t(8 * j + 2 * (l % 4) + h)] + uint64_t(2 * (l / 4))
                              : rows[size_t(8 * j + l / 4)] + uint64_t(2 * (2 * (l % 4) + h));
          for (int b = 0; b < 2; ++b) sharedWrite(w0 + l, size_t(at) + size_t(b), uint8_t(v >> (16 * h + 8 * b)));
        }
      }
  }
}

inline void CtaSim::execShfl(const Inst& in) {
  const std::string& mode = in.parts[2];
  std::vector<uint64_t> out(static_cast<size_t>(n_));
  for (int t = 0; t < n_; ++t) {
    if (!running_[size_t(t)]) continue;  // whole warps run or wait together
    if (!active(t, in)) fail("guarded shfl.sync");
    uint64_t b = get(t, in.ops.at(2)), c = get(t, in.ops.at(3));
    int lane = t & 31, bval = int(b & 31), cval = int(c & 31), seg = int((c >> 8) & 31);
    int maxLane = (lane & seg) | (cval & ~seg), minLane = lane & seg, j = lane;
    bool p;
    if (mode == "up") j = lane - bval, p = j >= maxLane;
    else if (mode == "down") j = lane + bval, p = j <= maxLane;
    else if (mode == "bfly") j = lane ^ bval, p = j <= maxLane;
    else if (mode == "idx") j = minLane | (bval & ~seg), p = j <= maxLane;
    else fail("unknown shfl mode");
    if (!p) j = lane;
    out[size_t(t)] = get((t & ~31) + j, in.ops.at(1));
  }
  for (int t = 0; t < n_; ++t)
    if (running_[size_t(t)]) set(t, in.ops[0], out[size_t(t)]);
}

inline void CtaSim::execMma(const Inst& in) {
  // mma.sync.aligned.m16n8kK.row.col.D.A.B.C
  const std::string& shape = in.parts.at(3);
  const int k = std::stoi(shape.substr(shape.find('k') + 1));
  const std::string dty = in.parts.at(6), aty = in.parts.at(7), bty = in.parts.at(8), cty = in.parts.at(9);
  const int abits = aty == "tf32" ? 32 : (aty == "s8" || aty == "u8" || aty == "e4m3" || aty == "e5m2") ? 8 : 16;
  const int per = 32 / abits;
  std::vector<std::string> dr = vecOps(in.ops.at(0)), ar = vecOps(in.ops.at(1)), br = vecOps(in.ops.at(2)),
                           cr = vecOps(in.ops.at(3));
  auto elem = [&](const std::string& ty, uint64_t bits) -> double {
    if (ty == "tf32") return double(std::bit_cast<float>(uint32_t(bits & 0xFFFFE000u)));
    if (ty == "s8") return double(sext(bits, 8));
    if (ty == "u8") return double(bits & 0xFF);
    return toD(ty, bits);
  };
  for (int w0 = 0; w0 < n_; w0 += 32) {
    if (!running_[size_t(w0)]) continue;
    std::vector<std::vector<double>> A(16, std::vector<double>(size_t(k))), B(size_t(k), std::vector<double>(8)),
        C(16, std::vector<double>(8));
    for (int lane = 0; lane < 32; ++lane) {
      const int t = w0 + lane, g = lane >> 2, q = lane & 3;
      if (!active(t, in)) fail("guarded mma.sync");
      for (int i = 0; i < per * int(ar.size()); ++i) {
        uint64_t bits = get(t, ar[size_t(i / per)]) >> (abits * (i % per));
        int row, col;
        if (abits == 16) row = g + 8 * ((i >> 1) & 1), col = 2 * q + (i & 1) + 8 * (i >> 2);
        else if (abits == 32) row = g + 8 * (i & 1), col = q + 4 * (i >> 1);
        else row = g + 8 * ((i >> 2) & 1), col = 4 * q + (i & 3) + 16 * (i >> 3);
        A[size_t(row)][size_t(col)] = elem(aty, bits & mask(abits));
      }
      for (int i = 0; i < per * int(br.size()); ++i) {
        uint64_t bits = get(t, br[size_t(i / per)]) >> (abits * (i % per));
        int kk = abits == 16 ? 2 * q + (i & 1) + 8 * (i >> 1) : abits == 32 ? q + 4 * i : 4 * q + (i & 3) + 16 * (i >> 2);
        B[size_t(kk)][size_t(g)] = elem(bty, bits & mask(abits));
      }
      for (int i = 0; i < 4; ++i) {
        uint64_t bits = get(t, cr.at(size_t(i)));
        C[size_t(g + 8 * (i >> 1))][size_t(2 * q + (i & 1))] = cty == "s32" ? double(sext(bits, 32)) : toD(cty, bits);
      }
    }
    for (int lane = 0; lane < 32; ++lane) {
      const int t = w0 + lane, g = lane >> 2, q = lane & 3;
      for (int i = 0; i < 4; ++i) {
        int row = g + 8 * (i >> 1), col = 2 * q + (i & 1);
        uint64_t bits;
        if (dty == "s32") {
          uint32_t acc = uint32_t(int64_t(C[size_t(row)][size_t(col)]));
          for (int kk = 0; kk < k; ++kk)
            acc += uint32_t(int64_t(A[size_t(row)][size_t(kk)]) * int64_t(B[size_t(kk)][size_t(col)]));
          bits = acc;
        } else {
          double acc = C[size_t(row)][size_t(col)];
          for (int kk = 0; kk < k; ++kk) acc += A[size_t(row)][size_t(kk)] * B[size_t(kk)][size_t(col)];
          bits = std::bit_cast<uint32_t>(float(acc));
        }
        set(t, dr.at(size_t(i)), bits);
      }
    }
  }
}

}  // namespace kiln::lower::test
