// Exact-text tests of wgmma.mma_async for each operand type (ptx/wgmma.h), and every variant assembled
// by ptxas for sm_90a.
#include "ptx/wgmma.h"

#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

struct Variant {
  WgmmaInput in;
  const char* text;  // the instruction line for n = 8, A and B from descriptors
};

const Variant kVariants[] = {
    {WgmmaInput::F16, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd0, %rd1, %p0, 1, 1, 0, 0;"},
    {WgmmaInput::BF16, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f0, %f1, %f2, %f3}, %rd0, %rd1, %p0, 1, 1, 0, 0;"},
    {WgmmaInput::TF32, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f0, %f1, %f2, %f3}, %rd0, %rd1, %p0, 1, 1;"},
    {WgmmaInput::E4M3, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f0, %f1, %f2, %f3}, %rd0, %rd1, %p0, 1, 1;"},
    {WgmmaInput::E5M2, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 {%f0, %f1, %f2, %f3}, %rd0, %rd1, %p0, 1, 1;"},
    {WgmmaInput::S8, "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r0, %r1, %r2, %r3}, %rd0, %rd1, %p0;"},
    {WgmmaInput::U8, "wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.u8 {%r0, %r1, %r2, %r3}, %rd0, %rd1, %p0;"},
};

std::vector<Reg> accumulators(Entry& e, WgmmaInput in, int n) {
  std::vector<Reg> d;
  for (int i = 0; i < n / 2; ++i) d.push_back(e.reg(wgmmaIntegerSum(in) ? RegClass::B32 : RegClass::F32));
  return d;
}

TEST(PtxWgmma, InstructionTextPerType) {
  for (const Variant& v : kVariants) {
    Entry e{"k", kSm90a};
    std::vector<Reg> d = accumulators(e, v.in, 8);
    Reg a = e.reg(RegClass::B64), b = e.reg(RegClass::B64);
    wgmma(e, v.in, 8, d, a, {}, b, false, false);
    EXPECT_EQ(bodyOf(e), std::string("    mov.pred %p0, 1;\n    ") + v.text + "\n");
  }
}

// A product that overwrites the accumulators (a dot from a zero accumulator) has scale-d false.
TEST(PtxWgmma, OverwritingProductHasScaleDFalse) {
  Entry e{"k", kSm90a};
  std::vector<Reg> d = accumulators(e, WgmmaInput::F16, 8);
  Reg a = e.reg(RegClass::B64), b = e.reg(RegClass::B64);
  wgmma(e, WgmmaInput::F16, 8, d, a, {}, b, false, false, {}, /*addToD=*/false);
  EXPECT_EQ(bodyOf(e), std::string("    mov.pred %p0, 0;\n    ") + kVariants[0].text + "\n");
}

TEST(PtxWgmma, KPerInstruction) {
  EXPECT_EQ(wgmmaK(WgmmaInput::F16), 16);
  EXPECT_EQ(wgmmaK(WgmmaInput::BF16), 16);
  EXPECT_EQ(wgmmaK(WgmmaInput::TF32), 8);
  EXPECT_EQ(wgmmaK(WgmmaInput::E4M3), 32);
  EXPECT_EQ(wgmmaK(WgmmaInput::E5M2), 32);
  EXPECT_EQ(wgmmaK(WgmmaInput::S8), 32);
  EXPECT_EQ(wgmmaK(WgmmaInput::U8), 32);
}

TEST(PtxWgmma, OnlyHalfTypesTransposeOrTakeARegisters) {
  for (WgmmaInput in : {WgmmaInput::TF32, WgmmaInput::E4M3, WgmmaInput::E5M2, WgmmaInput::S8, WgmmaInput::U8}) {
    Entry e{"k", kSm90a};
    std::vector<Reg> d = accumulators(e, in, 8);
    Reg a = e.reg(RegClass::B64), b = e.reg(RegClass::B64);
    EXPECT_THROW(wgmma(e, in, 8, d, a, {}, b, true, false), InternalError);
    EXPECT_THROW(wgmma(e, in, 8, d, a, {}, b, false, true), InternalError);
    std::vector<Reg> aRegs{e.reg(RegClass::B32), e.reg(RegClass::B32), e.reg(RegClass::B32), e.reg(RegClass::B32)};
    EXPECT_THROW(wgmma(e, in, 8, d, Reg{}, aRegs, b, false, false), InternalError);
  }
  Entry e{"k", kSm90a};  // integer sums in .b32 registers, float sums in .f32 ones
  std::vector<Reg> f = accumulators(e, WgmmaInput::F16, 8);
  Reg a = e.reg(RegClass::B64), b = e.reg(RegClass::B64);
  EXPECT_THROW(wgmma(e, WgmmaInput::S8, 8, f, a, {}, b, false, false), InternalError);
  std::vector<Reg> i = accumulators(e, WgmmaInput::S8, 8);
  EXPECT_THROW(wgmma(e, WgmmaInput::E4M3, 8, i, a, {}, b, false, false), InternalError);
}

TEST(PtxWgmma, EveryTypeAssemblesForSm90a) {
  if (!havePtxas()) GTEST_SKIP() << "ptxas not found";
  Module m(kSm90a);
  for (const Variant& v : kVariants)
    for (int n : {8, 64, 256}) {
      Entry& e = m.addEntry(std::string("wgmma_") + std::to_string(int(v.in)) + "_" + std::to_string(n));
      e.setMaxNtid(128);
      Reg p = e.loadParam(e.addParam("p", ParamType::Ptr, 16));
      const std::string tile = e.addShared("tile", 8192, 1024);
      std::vector<Reg> d = accumulators(e, v.in, n);
      for (Reg r : d) {
        if (r.cls == RegClass::F32) e.inst("mov.f32", {r, f32Imm(0.0f)});
        else e.inst("mov.b32", {r, 0});
      }
      Reg addr = e.reg(RegClass::B32);
      e.inst("mov.u32", {addr, sym(tile)});
      WgmmaDescriptor desc;
      desc.strideBytes = 1024;
      Reg da = wgmmaDescriptor(e, addr, desc), db = wgmmaDescriptor(e, addr, desc);
      wgmmaFence(e);
      wgmma(e, v.in, n, d, da, {}, db, false, false);
      wgmmaCommit(e);
      wgmmaWait(e, 0);
      for (size_t i = 0; i < d.size(); ++i) {
        Reg x[] = {d[i]};
        storeVector(e, Space::Global, d[i].cls == RegClass::F32 ? ir::Scalar::F32 : ir::Scalar::I32, x, p, int64_t(4 * i));
      }
      e.ret();
    }
  AssembleResult r = assemble(m.str(), kSm90a.name());
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.entries.size(), 7u * 3u);
}

}  // namespace
}  // namespace kiln::ptx::test
