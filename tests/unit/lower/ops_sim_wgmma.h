// wgmma in the CTA simulator (ops_sim.h), from PTX-NOTES §9 and independently of kiln's layouts: each
// warpgroup's wgmma.mma_async is recorded in that warpgroup's own open group when issued (descriptors,
// scale-d and A registers as they are then) and runs when that warpgroup's wgmma.wait_group retires its
// commit group: it reads shared memory and the accumulators at that point, the latest the hardware may, so
// a slot refilled or an accumulator read before the wait gives wrong results. Descriptors address the
// canonical layouts: K-major rows of the swizzle width W, 8-row groups SBO apart; M/N-major rows along K,
// column blocks of W bytes LBO apart; then the hardware swizzle `addr ^ (((addr >> 7) & (W/16 - 1)) << 4)`.
// Operand types: f16 / bf16 (K 16, transpose flags, A from registers), tf32 (K 8; an f32 pattern with any
// of its low 13 bits set fails: what the hardware does with them is not documented, and kiln rounds
// before), e4m3 / e5m2 (K 32) with f32 sums, s8 / u8 (K 32) with s32 sums that wrap; the last three and
// tf32 K-major only, no flags.
#pragma once

namespace kiln::lower::test {

inline void CtaSim::execWgmma(const Inst& in) {
  if (!in.guard.empty()) fail("guarded wgmma");
  const std::string& what = in.parts.at(1);
  if (what == "fence") return;
  if (n_ % 128) fail("wgmma in a CTA that is not whole warpgroups");
  // Each warpgroup of the running group has its own open and committed groups.
  std::vector<int> warpgroups;
  for (int g = 0; g < n_ / 128; ++g) {
    const auto first = running_.begin() + 128 * g;
    const int in = int(std::count(first, first + 128, uint8_t(1)));
    if (in != 0 && in != 128) fail("wgmma executed by part of a warpgroup");
    if (in) warpgroups.push_back(g);
  }
  if (what == "commit_group") {
    for (int g : warpgroups) {
      wgmmaGroups_[size_t(g)].push_back(std::move(wgmmaOpen_[size_t(g)]));
      wgmmaOpen_[size_t(g)].clear();
    }
    return;
  }
  if (what == "wait_group") {
    const size_t keep = size_t(get(128 * warpgroups.at(0), in.ops.at(0)));
    for (int g : warpgroups) {
      std::vector<std::vector<PendingWgmma>>& groups = wgmmaGroups_[size_t(g)];
      while (groups.size() > keep) {
        for (const PendingWgmma& w : groups.front()) runWgmma(w);
        groups.erase(groups.begin());
      }
    }
    return;
  }
  if (what != "mma_async") fail("unknown wgmma instruction");
  // wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a, b-desc, scale-d[, 1, 1[, trans-a], trans-b]
  const std::string& shape = in.parts.at(4);
  PendingWgmma w;
  w.dtype = in.parts.at(5);
  w.atype = in.parts.at(6);
  w.btype = in.parts.at(7);
  const int eb = wgmmaElemBytes(w.atype);
  if (wgmmaElemBytes(w.btype) != eb) fail("wgmma operand types of different sizes");
  const bool half = eb == 2, integer = w.atype == "s8" || w.atype == "u8";
  if (half && w.btype != w.atype) fail("wgmma types");
  if (integer != (w.btype == "s8" || w.btype == "u8")) fail("wgmma types");
  if (w.dtype != (integer ? "s32" : "f32")) fail("wgmma accumulator type " + w.dtype);
  w.k = 32 / eb;
  const std::string kSuffix = "k" + std::to_string(w.k);
  if (shape.rfind("m64n", 0) != 0 || shape.size() <= 4 + kSuffix.size() ||
      shape.substr(shape.size() - kSuffix.size()) != kSuffix)
    fail("wgmma shape " + shape + " for " + w.atype);
  w.n = std::stoi(shape.substr(4, shape.size() - 4 - kSuffix.size()));
  w.d = vecOps(in.ops.at(0));
  if (int(w.d.size()) != w.n / 2) fail("wgmma accumulator count");
  const bool aRegs = in.ops.at(1)[0] == '{';
  if (aRegs && !half) fail("wgmma A from registers for " + w.atype);
  const size_t count = integer ? 4u : !half ? 6u : aRegs ? 7u : 8u;
  if (in.ops.size() != count) fail("wgmma operand count");
  const int first = 128 * warpgroups.at(0);
  if (!integer && (get(first, in.ops.at(4)) != 1 || get(first, in.ops.at(5)) != 1)) fail("wgmma with a negated operand");
  for (int g : warpgroups) {
    PendingWgmma::Group pg;
    const int t0 = 128 * g;
    pg.t0 = t0;
    pg.descB = get(t0, in.ops.at(2));
    pg.scaleD = get(t0, in.ops.at(3)) & 1;
    if (aRegs) {
      for (int t = t0; t < t0 + 128; ++t)
        for (const std::string& r : vecOps(in.ops.at(1))) pg.a.push_back(uint32_t(get(t, r)));
    } else {
      pg.descA = get(t0, in.ops.at(1));
      pg.transA = half && (get(t0, in.ops.at(6)) & 1);
    }
    pg.transB = half && (get(t0, in.ops.back()) & 1);
    for (int t = t0; t < t0 + 128; ++t)  // uniform across the warpgroup
      if (get(t, in.ops.at(2)) != pg.descB || (!aRegs && get(t, in.ops.at(1)) != pg.descA))
        fail("wgmma descriptors differ inside a warpgroup");
    PendingWgmma one = w;
    one.groups.assign(1, std::move(pg));
    wgmmaOpen_[size_t(g)].push_back(std::move(one));
  }
}

// The shared byte address of element (mn, k) of a descriptor's tile (k-major: rows along MN).
inline size_t CtaSim::wgmmaAddress(uint64_t desc, bool mnMajor, int mn, int k, int elemBytes) {
  const uint64_t start = (desc & 0x3FFF) << 4, lbo = ((desc >> 16) & 0x3FFF) << 4, sbo = ((desc >> 32) & 0x3FFF) << 4;
  const int mode = int(desc >> 62);
  if (mode == 0) fail("wgmma descriptor without a swizzle (not modelled)");
  const uint64_t w = mode == 1 ? 128 : mode == 2 ? 64 : 32, e = w / uint64_t(elemBytes);
  uint64_t a = mnMajor ? start + uint64_t(mn) / e * lbo + uint64_t(k / 8) * sbo + uint64_t(k % 8) * w + uint64_t(mn) % e * uint64_t(elemBytes)
                       : start + uint64_t(mn / 8) * sbo + uint64_t(mn % 8) * w + uint64_t(k) * uint64_t(elemBytes);
  return size_t(a ^ (((a >> 7) & (w / 16 - 1)) << 4));
}

inline int CtaSim::wgmmaElemBytes(const std::string& type) {
  if (type == "f16" || type == "bf16") return 2;
  if (type == "tf32") return 4;
  if (type == "e4m3" || type == "e5m2" || type == "s8" || type == "u8") return 1;
  fail("wgmma operand type " + type);
}

// The value of one operand element from its bits (the element's bytes, little-endian).
inline double CtaSim::wgmmaElem(const std::string& type, uint64_t bits) {
  // An f32 is read as the tf32 it truncates to (bench/results/2026-12-05-h200-tf32-probe.md).
  if (type == "tf32") return toD("f32", bits & ~uint64_t(0x1FFF));
  if (type == "s8") return double(sext(bits, 8));
  if (type == "u8") return double(bits & 0xFF);
  return toD(type, bits);
}

inline void CtaSim::runWgmma(const PendingWgmma& w) {
  const int eb = wgmmaElemBytes(w.atype), K = w.k;
  const bool integer = w.dtype == "s32";
  for (size_t g = 0; g < w.groups.size(); ++g) {
    const PendingWgmma::Group& pg = w.groups[g];
    const int t0 = pg.t0;
    auto elem = [&](const std::string& type, size_t at) {
      uint64_t bits = 0;
      for (int b = 0; b < eb; ++b) bits |= uint64_t(sharedRead(t0, at + size_t(b))) << (8 * b);
      return wgmmaElem(type, bits);
    };
    std::vector<std::vector<double>> A(64, std::vector<double>(size_t(K))), B(size_t(K), std::vector<double>(size_t(w.n)));
    for (int m = 0; m < 64; ++m)
      for (int k = 0; k < K; ++k)
        if (pg.a.empty()) A[size_t(m)][size_t(k)] = elem(w.atype, wgmmaAddress(pg.descA, pg.transA, m, k, eb));
    if (!pg.a.empty())  // f16 / bf16 pairs
      for (int t = 0; t < 128; ++t) {
        const int wp = t / 32, lane = t % 32, gr = lane >> 2, q = lane & 3;
        for (int i = 0; i < 8; ++i) {
          const uint64_t bits = pg.a[size_t(4 * t + i / 2)] >> (16 * (i % 2));
          A[size_t(16 * wp + gr + 8 * ((i >> 1) & 1))][size_t(2 * q + (i & 1) + 8 * (i >> 2))] = toD(w.atype, bits & 0xFFFF);
        }
      }
    for (int k = 0; k < K; ++k)
      for (int nn = 0; nn < w.n; ++nn) B[size_t(k)][size_t(nn)] = elem(w.btype, wgmmaAddress(pg.descB, pg.transB, nn, k, eb));
    for (int t = t0; t < t0 + 128; ++t) {
      const int wp = (t - t0) / 32, lane = t % 32, gr = lane >> 2, q = lane & 3;
      for (int i = 0; i < w.n / 2; ++i) {
        const int row = 16 * wp + gr + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * q + (i & 1);
        if (integer) {  // exact products, the sum wrapping at 32 bits
          int64_t sum = pg.scaleD ? sext(get(t, w.d[size_t(i)]), 32) : 0;
          for (int k = 0; k < K; ++k) sum += int64_t(A[size_t(row)][size_t(k)]) * int64_t(B[size_t(k)][size_t(col)]);
          set(t, w.d[size_t(i)], uint64_t(uint32_t(uint64_t(sum))));
          continue;
        }
        double sum = pg.scaleD ? toD("f32", get(t, w.d[size_t(i)])) : 0.0;
        for (int k = 0; k < K; ++k) sum += A[size_t(row)][size_t(k)] * B[size_t(k)][size_t(col)];
        set(t, w.d[size_t(i)], fromD("f32", sum));
      }
    }
  }
}

}  // namespace kiln::lower::test
