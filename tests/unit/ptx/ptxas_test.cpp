// Tests of the ptxas helper: the -v report parser on captured output, and real runs (skipped when
// ptxas is absent): resource usage and cubin of a good module, the log of a bad one.
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

TEST(Ptxas, ParsesTheResourceReport) {
  const char* log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'first' for 'sm_90a'\n"
      "ptxas info    : Function properties for first\n"
      "    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 4096 bytes smem, 360 bytes cmem[0]\n"
      "ptxas info    : Compile time = 1.0 ms\n"
      "ptxas info    : Function properties for helper\n"
      "    99 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'second' for 'sm_90a'\n"
      "ptxas info    : Function properties for second\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, used 0 barriers, 352 bytes cmem[0]\n";
  std::vector<EntryUsage> u = parsePtxasInfo(log);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].name, "first");
  EXPECT_EQ(u[0].registers, 168);
  EXPECT_EQ(u[0].barriers, 1);
  EXPECT_EQ(u[0].stackBytes, 16);
  EXPECT_EQ(u[0].spillStoreBytes, 8);
  EXPECT_EQ(u[0].spillLoadBytes, 12);
  EXPECT_EQ(u[0].sharedBytes, 4096);
  EXPECT_EQ(u[1].name, "second");
  EXPECT_EQ(u[1].registers, 8);
  EXPECT_EQ(u[1].stackBytes, 0);  // the device function's report is not mistaken for an entry's
  EXPECT_EQ(u[1].sharedBytes, 0);
  EXPECT_TRUE(parsePtxasInfo("").empty());
}

TEST(Ptxas, AssemblesAModuleAndReportsItsResources) {
  if (!havePtxas()) GTEST_SKIP() << "ptxas not found";
  for (const Target& target : {kSm80, kSm90a}) {
    Module m(target);
    Entry& e = m.addEntry("scale");
    e.setMaxNtid(128);
    Reg p = e.loadParam(e.addParam("p", ParamType::Ptr, 16));
    e.addShared("buf", 1024);
    Reg v[] = {e.reg(RegClass::F32)};
    loadVector(e, Space::Global, ir::Scalar::F32, v, p, 0);
    e.inst("mul.rn.f32", {v[0], v[0], f32Imm(2.0f)});
    storeVector(e, Space::Global, ir::Scalar::F32, v, p, 0);
    barSync(e);
    e.ret();
    m.addEntry("empty").ret();
    AssembleResult r = assemble(m.str(), target.name());
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_TRUE(r.found);
    EXPECT_EQ(r.exitCode, 0);
    ASSERT_EQ(r.entries.size(), 2u) << r.log;
    const EntryUsage* u = r.entry("scale");
    ASSERT_NE(u, nullptr);
    EXPECT_GT(u->registers, 0);
    EXPECT_EQ(u->sharedBytes, 1024);
    EXPECT_EQ(u->spillStoreBytes, 0);
    EXPECT_EQ(r.entry("missing"), nullptr);
    ASSERT_GT(r.cubin.size(), 4u);
    EXPECT_EQ(r.cubin.substr(0, 4), "\x7f" "ELF");
  }
}

TEST(Ptxas, ReportsErrorsWithTheLog) {
  if (!havePtxas()) GTEST_SKIP() << "ptxas not found";
  std::string bad = ".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n    add.bf16 %h0, %h1;\n}\n";
  AssembleResult r = assemble(bad, "sm_80");
  EXPECT_TRUE(r.found);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
  EXPECT_TRUE(r.cubin.empty());
  std::string report = assembleErrors(bad, "sm_80");
  EXPECT_NE(report.find("6 >>     add.bf16"), std::string::npos) << report;  // the offending line, numbered
  // the architecture goes to ptxas as one argument and is checked first
  AssembleResult odd = assemble(bad, "sm_80; rm -rf /");
  EXPECT_FALSE(odd.ok);
  EXPECT_NE(odd.log.find("bad architecture"), std::string::npos);
}

TEST(Ptxas, MissingExecutable) {
  AssembleOptions o;
  o.ptxas = "/nonexistent/ptxas";
  AssembleResult r = assemble(".version 9.0\n", "sm_80", o);
  EXPECT_FALSE(r.found);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("ptxas not found"), std::string::npos);
}

}  // namespace
}  // namespace kiln::ptx::test
