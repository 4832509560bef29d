// GPU check (skipped without a GPU) of mma.sync and of the fragment layouts the lowering relies
// on (/work/shared/PTX-NOTES.md §8): the host packs A and B per lane by those formulas, one warp
// runs the mma, the host unpacks D by the accumulator formula and compares with a matmul.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <random>

#include "cuda_test_driver.h"
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

using ir::Scalar;

struct Frag {
  int row, col;
};

// Element i of lane l's A, B and C fragments (g = l / 4, t = l % 4).
Frag aElem(MmaKind k, int l, int i) {
  int g = l / 4, t = l % 4;
  if (k == MmaKind::TF32_F32) return {g + 8 * (i & 1), t + 4 * (i >> 1)};
  if (k == MmaKind::S8_S32) return {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)};
  return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
}
Frag bElem(MmaKind k, int l, int i) {  // {k, n}
  int g = l / 4, t = l % 4;
  if (k == MmaKind::TF32_F32) return {t + 4 * i, g};
  if (k == MmaKind::S8_S32) return {4 * t + (i & 3) + 16 * (i >> 2), g};
  return {2 * t + (i & 1) + 8 * (i >> 1), g};
}
Frag cElem(int l, int i) { return {l / 4 + 8 * (i >> 1), 2 * (l % 4) + (i & 1)}; }

TEST(DeviceMma, FragmentLayoutsAndResults) {
  CudaDriver* cuda = CudaDriver::get();
  if (!cuda) GTEST_SKIP() << "no GPU";
  struct Kind {
    MmaKind kind;
    Scalar in;
    const char* name;
  };
  std::mt19937 rng(3);
  for (Kind kd : {Kind{MmaKind::F16_F32, Scalar::F16, "f16"}, Kind{MmaKind::BF16_F32, Scalar::BF16, "bf16"},
                  Kind{MmaKind::TF32_F32, Scalar::F32, "tf32"}, Kind{MmaKind::S8_S32, Scalar::I8, "s8"}}) {
    const MmaShape& s = mmaShape(kd.kind);
    int perReg = kd.in == Scalar::F32 ? 1 : kd.in == Scalar::I8 ? 4 : 2;  // elements per .b32 register
    int elemBits = 32 / perReg;
    // Small integers: every product and sum is exact in any of these formats.
    std::vector<int> A(size_t(s.m * s.k)), B(size_t(s.k * s.n));
    for (int& v : A) v = int(rng() % 7) - 3;
    for (int& v : B) v = int(rng() % 7) - 3;
    auto bits = [&](int v) -> uint32_t {
      if (kd.in == Scalar::I8) return uint32_t(v) & 0xFF;
      return uint32_t(ir::toBits(kd.in, ir::floatElem(v)));
    };
    std::vector<uint32_t> aWords(32 * size_t(s.aRegs), 0), bWords(32 * size_t(s.bRegs), 0);
    for (int l = 0; l < 32; ++l) {
      for (int i = 0; i < s.aRegs * perReg; ++i) {
        Frag f = aElem(kd.kind, l, i);
        aWords[size_t(l * s.aRegs + i / perReg)] |= bits(A[size_t(f.row * s.k + f.col)]) << (elemBits * (i % perReg));
      }
      for (int i = 0; i < s.bRegs * perReg; ++i) {
        Frag f = bElem(kd.kind, l, i);
        bWords[size_t(l * s.bRegs + i / perReg)] |= bits(B[size_t(f.row * s.n + f.col)]) << (elemBits * (i % perReg));
      }
    }
    for (const Target& target : {kSm80, kSm90a}) {
      if (target.archSpecific && cuda->sm() < 90) continue;
      Module m(target);
      Entry& e = m.addEntry(std::string("mma_") + kd.name);
      Reg pa = e.loadParam(e.addParam("a", ParamType::Ptr, 16)), pb = e.loadParam(e.addParam("b", ParamType::Ptr, 16));
      Reg pd = e.loadParam(e.addParam("d", ParamType::Ptr, 16));
      Reg lane = readSpecial(e, SpecialReg::LaneId);
      auto regs = [&](int n, RegClass c) {
        std::vector<Reg> v;
        for (int i = 0; i < n; ++i) v.push_back(e.reg(c));
        return v;
      };
      std::vector<Reg> a = regs(s.aRegs, RegClass::B32), b = regs(s.bRegs, RegClass::B32), c = regs(s.cRegs, s.accClass);
      Reg qa = e.reg(RegClass::B64), qb = e.reg(RegClass::B64), qd = e.reg(RegClass::B64);
      e.inst("mad.wide.u32", {qa, lane, 4 * s.aRegs, pa});
      e.inst("mad.wide.u32", {qb, lane, 4 * s.bRegs, pb});
      e.inst("mad.wide.u32", {qd, lane, 4 * s.cRegs, pd});
      loadVector(e, Space::Global, Scalar::U32, a, qa, 0);
      loadVector(e, Space::Global, Scalar::U32, b, qb, 0);
      Scalar acc = s.accClass == RegClass::F32 ? Scalar::F32 : Scalar::I32;
      for (Reg r : c) selectConstant(e, acc, acc == Scalar::F32 ? ir::floatElem(0.5) : ir::intElem(5), r);
      mma(e, kd.kind, c, a, b, c);
      storeVector(e, Space::Global, acc, c, qd, 0);
      e.ret();
      std::string log;
      void* mod = cuda->load(m.str(), log);
      auto da = cuda->alloc(aWords.size() * 4), db = cuda->alloc(bWords.size() * 4), dd = cuda->alloc(32 * 16);
      cuda->upload(da, aWords.data(), aWords.size() * 4);
      cuda->upload(db, bWords.data(), bWords.size() * 4);
      cuda->launch(cuda->function(mod, e.name()), 1, 32, {&da, &db, &dd});
      std::vector<uint32_t> out(32 * 4);
      cuda->download(out.data(), dd, out.size() * 4);
      cuda->free(da);
      cuda->free(db);
      cuda->free(dd);
      cuda->unload(mod);
      int bad = 0;
      for (int l = 0; l < 32; ++l)
        for (int i = 0; i < 4; ++i) {
          Frag f = cElem(l, i);
          int want = 0;
          for (int kk = 0; kk < s.k; ++kk) want += A[size_t(f.row * s.k + kk)] * B[size_t(kk * s.n + f.col)];
          uint32_t w = out[size_t(l * 4 + i)];
          double got = acc == Scalar::F32 ? double(std::bit_cast<float>(w)) : double(int32_t(w));
          double expect = acc == Scalar::F32 ? want + 0.5 : want + 5;
          if (got != expect && ++bad <= 3)
            ADD_FAILURE() << kd.name << " on " << target.name() << ": D[" << f.row << "][" << f.col << "] = " << got
                          << ", want " << expect;
        }
      EXPECT_EQ(bad, 0) << kd.name << " on " << target.name();
    }
  }
}

}  // namespace
}  // namespace kiln::ptx::test
