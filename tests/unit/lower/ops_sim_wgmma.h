// wgmma in the CTA simulator (ops_sim.h), from PTX-NOTES §9 and independently of kiln's layouts: each
// warpgroup's wgmma.mma_async is recorded when issued (descriptors, scale-d and A registers as they are
// then) and runs when wgmma.wait_group retires its commit group: it reads shared memory and the
// accumulators at that point, the latest the hardware may, so a slot refilled or an accumulator read
// before the wait gives wrong results. Descriptors address the canonical layouts: K-major rows of the
// swizzle width W, 8-row groups SBO apart; M/N-major rows along K, column blocks of W bytes LBO apart;
// then the hardware swizzle `addr ^ (((addr >> 7) & (W/16 - 1)) << 4)`.
#pragma once

namespace kiln::lower::test {

inline void CtaSim::execWgmma(const Inst& in) {
  if (!in.guard.empty()) fail("guarded wgmma");
  const std::string& what = in.parts.at(1);
  if (what == "fence") return;
  if (what == "commit_group") {
    wgmmaGroups_.push_back(std::move(wgmmaOpen_));
    wgmmaOpen_.clear();
    return;
  }
  if (what == "wait_group") {
    const size_t keep = size_t(get(0, in.ops.at(0)));
    while (wgmmaGroups_.size() > keep) {
      for (const PendingWgmma& w : wgmmaGroups_.front()) runWgmma(w);
      wgmmaGroups_.erase(wgmmaGroups_.begin());
    }
    return;
  }
  if (what != "mma_async") fail("unknown wgmma instruction");
  // wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16} d, a, b-desc, scale-d, 1, 1[, trans-a], trans-b
  const std::string& shape = in.parts.at(4);
  if (shape.rfind("m64n", 0) != 0 || shape.substr(shape.size() - 3) != "k16") fail("wgmma shape " + shape);
  if (n_ % 128) fail("wgmma in a CTA that is not whole warpgroups");
  PendingWgmma w;
  w.n = std::stoi(shape.substr(4, shape.size() - 7));
  w.type = in.parts.at(6);
  if (in.parts.at(5) != "f32" || in.parts.at(7) != w.type) fail("wgmma types");
  w.d = vecOps(in.ops.at(0));
  if (int(w.d.size()) != w.n / 2) fail("wgmma accumulator count");
  const bool aRegs = in.ops.at(1)[0] == '{';
  if (in.ops.size() != (aRegs ? 7u : 8u)) fail("wgmma operand count");
  if (get(0, in.ops.at(4)) != 1 || get(0, in.ops.at(5)) != 1) fail("wgmma with a negated operand");
  for (int g = 0; g < n_ / 128; ++g) {
    PendingWgmma::Group pg;
    const int t0 = 128 * g;
    pg.descB = get(t0, in.ops.at(2));
    pg.scaleD = get(t0, in.ops.at(3)) & 1;
    if (aRegs) {
      for (int t = t0; t < t0 + 128; ++t)
        for (const std::string& r : vecOps(in.ops.at(1))) pg.a.push_back(uint32_t(get(t, r)));
    } else {
      pg.descA = get(t0, in.ops.at(1));
      pg.transA = get(t0, in.ops.at(6)) & 1;
    }
    pg.transB = get(t0, in.ops.back()) & 1;
    for (int t = t0; t < t0 + 128; ++t)  // uniform across the warpgroup
      if (get(t, in.ops.at(2)) != pg.descB || (!aRegs && get(t, in.ops.at(1)) != pg.descA))
        fail("wgmma descriptors differ inside a warpgroup");
    w.groups.push_back(std::move(pg));
  }
  wgmmaOpen_.push_back(std::move(w));
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

inline void CtaSim::runWgmma(const PendingWgmma& w) {
  const int eb = 2;
  for (size_t g = 0; g < w.groups.size(); ++g) {
    const PendingWgmma::Group& pg = w.groups[g];
    const int t0 = int(128 * g);
    auto elem = [&](size_t at) {
      uint64_t bits = 0;
      for (int b = 0; b < eb; ++b) bits |= uint64_t(sharedRead(t0, at + size_t(b))) << (8 * b);
      return toD(w.type, bits);
    };
    std::vector<std::vector<double>> A(64, std::vector<double>(16)), B(16, std::vector<double>(size_t(w.n)));
    for (int m = 0; m < 64; ++m)
      for (int k = 0; k < 16; ++k)
        if (pg.a.empty()) A[size_t(m)][size_t(k)] = elem(wgmmaAddress(pg.descA, pg.transA, m, k, eb));
    if (!pg.a.empty())
      for (int t = 0; t < 128; ++t) {
        const int wp = t / 32, lane = t % 32, gr = lane >> 2, q = lane & 3;
        for (int i = 0; i < 8; ++i) {
          const uint64_t bits = pg.a[size_t(4 * t + i / 2)] >> (16 * (i % 2));
          A[size_t(16 * wp + gr + 8 * ((i >> 1) & 1))][size_t(2 * q + (i & 1) + 8 * (i >> 2))] = toD(w.type, bits & 0xFFFF);
        }
      }
    for (int k = 0; k < 16; ++k)
      for (int nn = 0; nn < w.n; ++nn) B[size_t(k)][size_t(nn)] = elem(wgmmaAddress(pg.descB, pg.transB, nn, k, eb));
    for (int t = t0; t < t0 + 128; ++t) {
      const int wp = (t - t0) / 32, lane = t % 32, gr = lane >> 2, q = lane & 3;
      for (int i = 0; i < w.n / 2; ++i) {
        const int row = 16 * wp + gr + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * q + (i & 1);
        double sum = pg.scaleD ? toD("f32", get(t, w.d[size_t(i)])) : 0.0;
        for (int k = 0; k < 16; ++k) sum += A[size_t(row)][size_t(k)] * B[size_t(k)][size_t(col)];
        set(t, w.d[size_t(i)], fromD("f32", sum));
      }
    }
  }
}

}  // namespace kiln::lower::test
