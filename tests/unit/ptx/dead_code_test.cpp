// Entry::removeDeadCode: pure instructions whose results no effect reads go, dead cycles through a
// loop's back edge included; effects, what they read, guards and branches stay; user PTX turns it off.
#include <gtest/gtest.h>

#include <string>

#include "ptx/builder.h"

namespace kiln::ptx {
namespace {

// The instructions and labels of an entry's text, without its parameter and register declarations.
std::string body(const Entry& e) {
  std::string s = e.str(), out;
  size_t at = 0;
  while (at < s.size()) {
    size_t nl = s.find('\n', at);
    std::string line = s.substr(at, nl - at);
    at = nl == std::string::npos ? s.size() : nl + 1;
    const bool declaration = line.rfind("    .", 0) == 0;  // parameters and registers
    if (declaration || (line.rfind("    ", 0) != 0 && line.rfind("$", 0) != 0)) continue;
    out += line + "\n";
  }
  return out;
}

TEST(PtxDeadCode, RemovesADeadCycleThroughTheBackEdgeAndKeepsWhatStoresRead) {
  Entry e("k", kSm80);
  Reg p = e.loadParam(e.addParam("p", ParamType::Ptr, 16));
  Reg live = e.reg(RegClass::B64), dead = e.reg(RegClass::B64), next = e.reg(RegClass::B64);
  Reg i = e.reg(RegClass::B32), c = e.reg(RegClass::Pred), v = e.reg(RegClass::F32);
  e.inst("mov.b64", {live, p});
  e.inst("mov.b64", {dead, p});
  e.inst("mov.b32", {i, 0});
  Label loop = e.newLabel("loop");
  e.label(loop);
  e.inst("ld.global.f32", {v, addr(live)});
  e.inst("st.global.f32", {addr(live, 4), v});
  e.inst("add.s64", {next, dead, 16});  // the dead pointer advances, read only by itself
  e.inst("mov.b64", {dead, next});
  e.inst("add.s64", {live, live, 16});
  e.inst("add.s32", {i, i, 1});
  e.inst("setp.lt.s32", {c, i, 8});
  e.bra(loop, when(c));
  e.ret();
  e.removeDeadCode();
  EXPECT_EQ(body(e),
            "    ld.param.u64 %rd0, [k_p];\n"
            "    mov.b64 %rd1, %rd0;\n"
            "    mov.b32 %r0, 0;\n"
            "$L0_loop:\n"
            "    ld.global.f32 %f0, [%rd1];\n"
            "    st.global.f32 [%rd1+4], %f0;\n"
            "    add.s64 %rd1, %rd1, 16;\n"
            "    add.s32 %r0, %r0, 1;\n"
            "    setp.lt.s32 %p0, %r0, 8;\n"
            "    @%p0 bra $L0_loop;\n"
            "    ret;\n");
}

TEST(PtxDeadCode, KeepsGuardsVectorDefinitionsAndEntriesWithUserPtx) {
  Entry e("k", kSm80);
  Reg p = e.loadParam(e.addParam("p", ParamType::Ptr, 16));
  Reg g = e.reg(RegClass::Pred), a = e.reg(RegClass::B32), b = e.reg(RegClass::B32), w = e.reg(RegClass::B64);
  e.inst("setp.ne.u64", {g, p, 0});
  e.inst("mov.b64", {w, 7});
  e.inst("mov.b64", {vec({a, b}), w});  // only a is read: the unpack stays
  e.inst("st.global.b32", {addr(p), a}, when(g));
  e.ret();
  const std::string before = body(e);
  e.removeDeadCode();
  EXPECT_EQ(body(e), before);

  Entry u("u", kSm80);
  Reg q = u.reg(RegClass::B32);
  u.inst("mov.b32", {q, 1});  // dead, but the entry has user PTX
  u.verbatim("membar.gl;");
  u.ret();
  const std::string withAsm = body(u);
  u.removeDeadCode();
  EXPECT_EQ(body(u), withAsm);
}

}  // namespace
}  // namespace kiln::ptx
