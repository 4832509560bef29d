// Exact-text tests of the PTX builder: module header, entry signature, directives, register
// declarations, instruction/guard/label/operand spelling.
#include <gtest/gtest.h>

#include "ptx/builder.h"
#include "support/diagnostic.h"

namespace kiln::ptx {
namespace {

TEST(PtxBuilder, ModuleWithOneEntry) {
  Module m(kSm80);
  Entry& e = m.addEntry("add_kernel");
  int x = e.addParam("x_ptr", ParamType::Ptr, 16);
  int n = e.addParam("n", ParamType::S32);
  int flag = e.addBoolParam("flag");
  e.setMaxNtid(128);
  Reg px = e.loadParam(x), rn = e.loadParam(n), f = e.loadParam(flag);
  Reg v = e.reg(RegClass::F32);
  e.inst("ld.global.f32", {v, addr(px, 16)}, when(f));
  Label done = e.newLabel("done");
  e.bra(done, unless(f));
  e.comment("the body");
  e.inst("add.s32", {rn, rn, -4});
  e.label(done);
  e.ret();
  EXPECT_EQ(m.str(),
            ".version 9.0\n"
            ".target sm_80\n"
            ".address_size 64\n"
            "\n"
            ".visible .entry add_kernel(\n"
            "    .param .u64 .ptr .global .align 16 add_kernel_x_ptr,\n"
            "    .param .s32 add_kernel_n,\n"
            "    .param .u8 add_kernel_flag\n"
            ")\n"
            ".maxntid 128, 1, 1\n"
            "{\n"
            "    .reg .pred %p<1>;\n"
            "    .reg .b32 %r<2>;\n"
            "    .reg .b64 %rd<1>;\n"
            "    .reg .f32 %f<1>;\n"
            "\n"
            "    ld.param.u64 %rd0, [add_kernel_x_ptr];\n"
            "    ld.param.s32 %r0, [add_kernel_n];\n"
            "    ld.param.u8 %r1, [add_kernel_flag];\n"
            "    setp.ne.u32 %p0, %r1, 0;\n"
            "    @%p0 ld.global.f32 %f0, [%rd0+16];\n"
            "    @!%p0 bra $L0_done;\n"
            "    // the body\n"
            "    add.s32 %r0, %r0, -4;\n"
            "$L0_done:\n"
            "    ret;\n"
            "}\n");
}

TEST(PtxBuilder, SeveralEntriesSharedMemoryAndDirectives) {
  Module m(kSm90a);
  Entry& a = m.addEntry("a");
  a.setReqNtid(256, 2);
  a.setMinNCtaPerSm(2);
  a.setMaxNReg(168);
  EXPECT_EQ(a.addShared("tile", 4096, 128), "a_tile");
  Reg base = a.dynamicSharedBase();
  a.inst("st.shared.b32", {addr(base, -8), 0});
  a.braUni(a.newLabel());
  Entry& b = m.addEntry("b");
  b.addParam("p", ParamType::Ptr);  // no alignment promised
  b.addParam("h", ParamType::B16);
  b.addParam("d", ParamType::F64);
  b.ret();
  EXPECT_EQ(m.str(),
            ".version 9.0\n"
            ".target sm_90a\n"
            ".address_size 64\n"
            "\n"
            ".extern .shared .align 16 .b8 smem[];\n"
            "\n"
            ".visible .entry a()\n"
            ".reqntid 256, 2, 1\n"
            ".minnctapersm 2\n"
            ".maxnreg 168\n"
            "{\n"
            "    .reg .b32 %r<1>;\n"
            "    .shared .align 128 .b8 a_tile[4096];\n"
            "\n"
            "    mov.u32 %r0, smem;\n"
            "    st.shared.b32 [%r0+-8], 0;\n"
            "    bra.uni $L0;\n"
            "}\n"
            "\n"
            ".visible .entry b(\n"
            "    .param .u64 .ptr .global b_p,\n"
            "    .param .b16 b_h,\n"
            "    .param .f64 b_d\n"
            ")\n"
            "{\n"
            "    ret;\n"
            "}\n");
}

TEST(PtxBuilder, RegistersAreNumberedPerClassAndDeclaredWithExactCounts) {
  Entry e("k", kSm80);
  for (RegClass c : {RegClass::Pred, RegClass::B16, RegClass::B32, RegClass::B64, RegClass::F32, RegClass::F64}) {
    EXPECT_EQ(e.reg(c).id, 0);
    EXPECT_EQ(e.reg(c).id, 1);
  }
  Reg r = e.reg(RegClass::F64);
  EXPECT_EQ(r.str(), "%fd2");
  EXPECT_EQ(e.numRegs(RegClass::F64), 3);
  EXPECT_EQ(e.numRegs(RegClass::B16), 2);
  std::string s = e.str();
  EXPECT_NE(s.find("    .reg .pred %p<2>;\n    .reg .b16 %h<2>;\n    .reg .b32 %r<2>;\n    .reg .b64 %rd<2>;\n"
                   "    .reg .f32 %f<2>;\n    .reg .f64 %fd<3>;\n"),
            std::string::npos)
      << s;
}

TEST(PtxBuilder, OperandSpellings) {
  Reg r{RegClass::B32, 3}, h{RegClass::B16, 1};
  EXPECT_EQ(Operand(r).text, "%r3");
  EXPECT_EQ(Operand(-7).text, "-7");
  EXPECT_EQ(Operand(int64_t(1) << 40).text, "1099511627776");
  EXPECT_EQ(hexImm(0x3C00).text, "0x3C00");
  EXPECT_EQ(hexImm(0).text, "0x0");
  EXPECT_EQ(f32Imm(1.0f).text, "0f3F800000");
  EXPECT_EQ(f32Bits(0x7FC00001).text, "0f7FC00001");
  EXPECT_EQ(f64Imm(-2.0).text, "0dC000000000000000");
  EXPECT_EQ(addr(r).text, "[%r3]");
  EXPECT_EQ(addr(r, 12).text, "[%r3+12]");
  EXPECT_EQ(addr(r, -12).text, "[%r3+-12]");
  EXPECT_EQ(addr("smem", 64).text, "[smem+64]");
  Reg regs[] = {r, Reg{RegClass::B32, 4}};
  EXPECT_EQ(vec(regs).text, "{%r3, %r4}");
  EXPECT_EQ(vec({h, Operand(0)}).text, "{%h1, 0}");
  EXPECT_EQ(sym("%tid.x").text, "%tid.x");
}

TEST(PtxBuilder, ScalarParametersLoadIntoTheirRegisterClass) {
  Entry e("k", kSm80);
  for (ParamType t : {ParamType::S8, ParamType::U16, ParamType::B16, ParamType::B8, ParamType::S64, ParamType::F32,
                      ParamType::F64})
    e.loadParam(e.addParam("p" + std::to_string(int(t)), t));
  std::string s = e.str();
  EXPECT_NE(s.find("    .param .s8 k_p1,\n    .param .u16 k_p2,\n    .param .b16 k_p4,\n    .param .b8 k_p12,\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("    ld.param.s8 %r0, [k_p1];\n    ld.param.u16 %r1, [k_p2];\n    ld.param.b16 %h0, [k_p4];\n"
                   "    ld.param.u8 %h1, [k_p12];\n    ld.param.s64 %rd0, [k_p8];\n    ld.param.f32 %f0, [k_p9];\n"
                   "    ld.param.f64 %fd0, [k_p10];\n"),
            std::string::npos)
      << s;
}

TEST(PtxBuilder, Targets) {
  EXPECT_EQ(kSm80.name(), "sm_80");
  EXPECT_EQ(kSm90a.name(), "sm_90a");
  EXPECT_EQ(Target::parse("sm_90a"), kSm90a);
  EXPECT_EQ(Target::parse("sm_86"), (Target{86, false}));
  EXPECT_EQ(Target::parse("sm_75"), std::nullopt);  // below the sm_80 floor
  EXPECT_EQ(Target::parse("sm_9x"), std::nullopt);
  EXPECT_EQ(Target::parse("compute_80"), std::nullopt);
  EXPECT_EQ(Target::parse(""), std::nullopt);
}

TEST(PtxBuilder, MisuseIsAnInternalError) {
  Module m(kSm80);
  Entry& e = m.addEntry("k");
  EXPECT_THROW(m.addEntry("k"), InternalError);
  EXPECT_THROW(m.addEntry("1k"), InternalError);
  e.addParam("x", ParamType::U32);
  EXPECT_THROW(e.addParam("x", ParamType::U32), InternalError);
  EXPECT_THROW(e.addParam("a b", ParamType::U32), InternalError);
  EXPECT_THROW(e.addParam("p", ParamType::Ptr, 12), InternalError);
  EXPECT_THROW(e.loadParam(5), InternalError);
  e.setMaxNtid(64);
  EXPECT_THROW(e.setReqNtid(64), InternalError);
  EXPECT_THROW(e.addShared("s", 0), InternalError);
  EXPECT_THROW(e.inst("mov.b32", {Reg{}, 0}), InternalError);  // an unallocated register
  EXPECT_THROW(e.newLabel("not ok"), InternalError);
}

}  // namespace
}  // namespace kiln::ptx
