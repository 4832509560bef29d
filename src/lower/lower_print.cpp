// print (tl.device_print, print in kernels) on the GPU: one vprintf call per element this thread owns,
// with the format of ir/print_format.h in global memory and its arguments (program ids, the element's
// indices, the value promoted as C's varargs are) in a local buffer all prints of the kernel share.
// An element held by several threads or registers (a broadcast layout) is printed once; a scalar by
// every thread, as Triton prints it.
#include "ir/print_format.h"
#include "lower/codegen.h"
#include "ptx/isel.h"
#include "ptx/warp.h"

namespace kiln::lower {

using ir::PrintArg;
using ptx::Reg;
using ptx::RegClass;

namespace {

constexpr int64_t kArgBytes = 128;  // 3 program ids, up to 8 indices and an 8-byte value fit

// The generic address of a symbol in the state space `space` ("global", "local").
Reg generic(ptx::Entry& e, const std::string& symbol, const char* space) {
  Reg a = e.reg(RegClass::B64), g = e.reg(RegClass::B64);
  e.inst("mov.u64", {a, ptx::sym(symbol)});
  e.inst(std::string("cvta.") + space + ".u64", {g, a});
  return g;
}

// Stores the element `v` of type t as vprintf reads its argument `kind` at buffer offset `at`.
void storeValue(Codegen& cg, const std::string& buf, int64_t at, const ir::Type& t, PrintArg kind, Reg v,
                const SourceLoc& loc) {
  ptx::Entry& e = cg.e;
  ptx::Operand dst = ptx::addr(buf, at);
  switch (kind) {
    case PrintArg::U32: case PrintArg::I32: {
      Reg w = v;
      if (v.cls == RegClass::Pred) {
        w = e.reg(RegClass::B32);
        e.inst("selp.u32", {w, 1, 0, v});
      } else if (v.cls == RegClass::B16) {  // f16/bf16/fp8 bits (hex)
        w = e.reg(RegClass::B32);
        e.inst("cvt.u32.u16", {w, v});
      }
      e.inst("st.local.b32", {dst, w});
      return;
    }
    case PrintArg::U64: case PrintArg::I64: case PrintArg::Ptr:
      e.inst("st.local.b64", {dst, v});
      return;
    case PrintArg::F64: {
      Reg d = v;
      if (v.cls != RegClass::F64) {
        d = e.reg(RegClass::F64);
        ptx::selectCast(e, t.elem, ir::Scalar::F64, false, d, v, loc);
      }
      e.inst("st.local.f64", {dst, d});
      return;
    }
  }
}

// vprintf(fmt, args) in a scope of its own; `when` guards the call (invalid: every thread calls).
void call(ptx::Entry& e, Reg fmt, Reg args, Reg when) {
  e.verbatim("{");
  e.verbatim(".param .b64 param0;");
  e.inst("st.param.b64", {ptx::addr("param0"), fmt});
  e.verbatim(".param .b64 param1;");
  e.inst("st.param.b64", {ptx::addr("param1"), args});
  e.verbatim(".param .b32 retval0;");
  e.inst("call", {ptx::Operand::raw("(retval0)"), ptx::sym("vprintf"), ptx::Operand::raw("(param0, param1)")},
         when.valid() ? ptx::when(when) : ptx::Guard{});
  e.verbatim("}");
}

}  // namespace

void lowerPrint(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  e.useVprintf();
  e.comment("print");
  const std::string& prefix = op.strAttr("prefix");
  const bool hex = op.intAttrOr("hex", 0) != 0;
  const std::string buf = e.addLocal("printf_args", kArgBytes);
  const Reg args = generic(e, buf, "local");
  const Reg pid[3] = {ptx::readSpecial(e, ptx::SpecialReg::CtaidX), ptx::readSpecial(e, ptx::SpecialReg::CtaidY),
                      ptx::readSpecial(e, ptx::SpecialReg::CtaidZ)};
  auto storePids = [&] {
    for (int k = 0; k < 3; ++k) e.inst("st.local.b32", {ptx::addr(buf, 4 * k), pid[k]});
  };
  if (op.numOperands() == 0) {
    Reg fmt = generic(e, e.addGlobalString(ir::printFormatNoOperands(prefix)), "global");
    storePids();
    call(e, fmt, args, Reg{});
    return;
  }
  for (unsigned k = 0; k < op.numOperands(); ++k) {
    const ir::Value* v = op.operand(k);
    const ir::Type& t = v->type;
    const PrintArg kind = ir::printArgOf(t, hex);
    const int64_t bytes = ir::printArgBytes(kind);
    const int64_t valueAt = (12 + 4 * int64_t(t.shape.size()) + bytes - 1) / bytes * bytes;
    if (valueAt + bytes > kArgBytes) codegenBug(op, "a print of rank " + std::to_string(t.rank()) + " is too wide");
    Reg fmt = generic(e, e.addGlobalString(ir::printFormat(t, prefix, hex, k, op.numOperands())), "global");
    const std::vector<Reg> regs = cg.regs(v);
    if (!t.isTensor()) {
      storePids();
      storeValue(cg, buf, valueAt, t, kind, regs.at(0), op.loc);
      call(e, fmt, args, Reg{});
      continue;
    }
    const layout::LinearLayout& l = *t.layout;
    const int32_t copies = l.hasInDim(layout::kRegister) ? l.getFreeVariableMasks().get(layout::kRegister) : 0;
    const Reg owner = cg.ownerPredicate(l);
    for (size_t r = 0; r < regs.size(); ++r) {
      if (int32_t(r) & copies) continue;  // the same element as a lower register index
      std::vector<Reg> idx = cg.coords(l, int32_t(r));
      storePids();
      for (size_t d = 0; d < idx.size(); ++d) e.inst("st.local.b32", {ptx::addr(buf, 12 + 4 * int64_t(d)), idx[d]});
      storeValue(cg, buf, valueAt, t, kind, regs[r], op.loc);
      call(e, fmt, args, owner);
    }
  }
}

}  // namespace kiln::lower
