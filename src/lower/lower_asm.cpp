// inline_asm (tl.inline_asm_elementwise): the user's PTX once per `pack` registers of this thread, in a
// `{ }` scope of its own (so .reg declarations in the text may repeat), with $0.. replaced by registers:
// the outputs' first, then the inputs'. Elements narrower than 32 bits share a register (4 x i8 with
// prmt, 2 x f16 with mov.b32 {lo, hi}) and come back out with bfe or mov; values move between kiln's
// register classes (docs/ptx.md) and the constraint's kind with cvt/mov, and narrow ints are normalised.
#include "ir/inline_asm.h"
#include "lower/codegen.h"
#include "ptx/isel.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using ptx::Reg;
using ptx::RegClass;

namespace {

RegClass classOfLetter(char letter) {
  switch (letter) {
    case 'l': return RegClass::B64;
    case 'h': return RegClass::B16;
    case 'f': return RegClass::F32;
    case 'd': return RegClass::F64;
    default: return RegClass::B32;
  }
}

// The element's bits, zero-extended, in a .b32 register (narrow ints as held: extended; i1 as 0/1).
Reg bits32(ptx::Entry& e, ir::Scalar t, Reg v) {
  Reg r = e.reg(RegClass::B32);
  switch (v.cls) {
    case RegClass::B32: return v;
    case RegClass::Pred: e.inst("selp.u32", {r, 1, 0, v}); return r;
    case RegClass::B16: e.inst("cvt.u32.u16", {r, v}); return r;
    case RegClass::F32: e.inst("mov.b32", {r, v}); return r;
    case RegClass::B64: case RegClass::F64: break;
  }
  throw InternalError({}, "inline_asm: a 64-bit " + std::string(ir::name(t)) + " does not fit 32 bits");
}

// A register of class `c` holding the packed payload `payload` (.b32) or a 64-bit value `wide`.
Reg toClass(ptx::Entry& e, RegClass c, Reg v, bool isSigned) {
  if (v.cls == c) return v;
  Reg r = e.reg(c);
  auto both = [&](RegClass a, RegClass b) { return v.cls == a && c == b; };
  if (both(RegClass::B32, RegClass::F32) || both(RegClass::F32, RegClass::B32)) e.inst("mov.b32", {r, v});
  else if (both(RegClass::B64, RegClass::F64) || both(RegClass::F64, RegClass::B64)) e.inst("mov.b64", {r, v});
  else if (both(RegClass::B32, RegClass::B16)) e.inst("cvt.u16.u32", {r, v});
  else if (both(RegClass::B32, RegClass::B64)) e.inst(isSigned ? "cvt.s64.s32" : "cvt.u64.u32", {r, v});
  else if (both(RegClass::B16, RegClass::B32)) e.inst("cvt.u32.u16", {r, v});
  else if (both(RegClass::B64, RegClass::B32)) e.inst("cvt.u32.u64", {r, v});
  else if (both(RegClass::B16, RegClass::B64)) e.inst("cvt.u64.u16", {r, v});
  else if (both(RegClass::B64, RegClass::B16)) e.inst("cvt.u16.u64", {r, v});
  else if (v.cls == RegClass::F32 || c == RegClass::F32)  // a float's bits, via .b32
    return toClass(e, c, toClass(e, RegClass::B32, v, isSigned), isSigned);
  else
    throw InternalError({}, "inline_asm: no move from " + std::string(ptx::regTypeName(v.cls)) + " to " +
                                std::string(ptx::regTypeName(c)));
  return r;
}

// Input: `per` elements of type t (registers elems[k], invalid past the tile) as one register of class c.
Reg packInput(ptx::Entry& e, const ir::Type& t, const std::vector<Reg>& elems, RegClass c) {
  const ir::Scalar s = t.elem;
  const bool sign = ir::isSigned(s);
  if (elems.size() == 1) {
    if (elems[0].cls == RegClass::Pred) return toClass(e, c, bits32(e, s, elems[0]), false);
    return toClass(e, c, elems[0], sign);
  }
  const int bits = ir::asmElemBits(t);
  Reg packed = e.reg(RegClass::B32);
  if (bits == 16 && elems[0].cls == RegClass::B16) {
    e.inst("mov.b32", {packed, ptx::vec(elems)});
  } else if (bits == 16) {
    e.inst("prmt.b32", {packed, elems[0], elems[1], ptx::hexImm(0x5410)});
  } else {  // bytes: pairs, then the pairs' low halves
    std::vector<Reg> b;
    for (Reg r : elems) b.push_back(bits32(e, s, r));
    Reg lo = e.reg(RegClass::B32);
    e.inst("prmt.b32", {lo, b[0], b[1], ptx::hexImm(0x0040)});
    if (b.size() == 2) {
      e.inst("and.b32", {packed, lo, ptx::hexImm(0xFFFF)});
    } else {
      Reg hi = e.reg(RegClass::B32);
      e.inst("prmt.b32", {hi, b[2], b[3], ptx::hexImm(0x0040)});
      e.inst("prmt.b32", {packed, lo, hi, ptx::hexImm(0x5410)});
    }
  }
  return toClass(e, c, packed, false);
}

// Output: the asm's register `out` (class of its constraint) back into `per` registers of t's class.
std::vector<Reg> unpackOutput(ptx::Entry& e, const ir::Type& t, Reg out, int per) {
  const ir::Scalar s = t.elem;
  const RegClass v = ptx::regClassOf(s);
  const bool sign = ir::isSigned(s);
  std::vector<Reg> res;
  if (per == 1) {
    if (v == RegClass::Pred) {
      Reg p = e.reg(RegClass::Pred), w = toClass(e, RegClass::B32, out, false);
      e.inst("setp.ne.u32", {p, w, 0});
      return {p};
    }
    Reg r = toClass(e, v, out, sign);  // `out` is this invocation's own: normalised in place
    if (v == RegClass::B32) ptx::normalizeInt(e, s, r);
    if (v == RegClass::B16 && ir::bitWidth(s) == 8) e.inst("and.b16", {r, r, ptx::hexImm(0xFF)});
    return {r};
  }
  const int bits = ir::asmElemBits(t);
  Reg w = toClass(e, RegClass::B32, out, false);
  if (bits == 16 && v == RegClass::B16) {
    Reg lo = e.reg(RegClass::B16), hi = e.reg(RegClass::B16);
    e.inst("mov.b32", {ptx::vec({lo, hi}), w});
    return {lo, hi};
  }
  for (int k = 0; k < per; ++k) {
    Reg x = e.reg(RegClass::B32);
    e.inst(sign ? "bfe.s32" : "bfe.u32", {x, w, k * bits, bits});
    if (v == RegClass::Pred) {
      Reg p = e.reg(RegClass::Pred);
      e.inst("setp.ne.u32", {p, x, 0});
      res.push_back(p);
    } else {
      res.push_back(toClass(e, v, x, sign));
    }
  }
  return res;
}

// The asm text with $N replaced by names[N] (sema and the verifier checked every N is in range) and
// "$$" by "$", as in LLVM's inline asm, which Triton's texts are written for.
std::string substitute(const std::string& text, const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    size_t j = i + 1;
    size_t n = 0;
    while (text[i] == '$' && j < text.size() && text[j] >= '0' && text[j] <= '9' && n <= names.size())
      n = n * 10 + size_t(text[j++] - '0');
    if (j == i + 1 || n >= names.size()) {
      out += text[i];
      continue;
    }
    out += names[n];
    i = j - 1;
  }
  return out;
}

}  // namespace

void lowerInlineAsm(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const int64_t pack = op.intAttr("pack");
  std::vector<ir::Type> ins, outs;
  for (const ir::Value* v : op.operands) ins.push_back(v->type);
  for (const auto& r : op.results) outs.push_back(r->type);
  std::vector<ir::AsmConstraint> cs;
  std::string problem = ir::parseInlineAsm(op.strAttr("asm"), op.strAttr("constraints"), pack, ins, outs, cs);
  if (!problem.empty()) codegenBug(op, problem);

  const int n = Codegen::numRegs(outs[0]);
  std::vector<std::vector<Reg>> in;
  for (const ir::Value* v : op.operands) in.push_back(cg.regs(v));
  std::vector<std::vector<Reg>> result(outs.size(), std::vector<Reg>(size_t(n)));
  for (int g = 0; g < n; g += int(pack)) {
    std::vector<std::string> names;
    struct Out {
      size_t result;
      int first, per;
      Reg reg;
    };
    std::vector<Out> pending;
    size_t c = 0;
    for (size_t r = 0; r < outs.size(); ++r) {
      const int per = ir::asmElemsPerReg(outs[r], pack);
      for (int q = 0; q < pack; q += per, ++c) {
        Reg reg = e.reg(classOfLetter(cs.at(c).letter));
        names.push_back(reg.str());
        pending.push_back(Out{r, g + q, per, reg});
      }
    }
    for (size_t a = 0; a < in.size(); ++a) {
      const int per = ir::asmElemsPerReg(ins[a], pack);
      const RegClass vcls = ptx::regClassOf(ins[a].elem);
      for (int q = 0; q < pack; q += per, ++c) {
        std::vector<Reg> elems;
        for (int k = 0; k < per; ++k) {
          int idx = g + q + k;
          if (idx < n) {
            elems.push_back(in[a].at(size_t(idx)));
          } else {  // past this thread's registers (pack does not divide them): zero
            Reg z = e.reg(vcls);
            e.inst(vcls == RegClass::Pred ? "mov.pred" : "mov.b" + std::to_string(ptx::regBits(vcls)), {z, 0});
            elems.push_back(z);
          }
        }
        names.push_back(packInput(e, ins[a], elems, classOfLetter(cs.at(c).letter)).str());
      }
    }
    e.comment("inline asm");
    e.verbatim("{");
    e.verbatim(substitute(op.strAttr("asm"), names));
    e.verbatim("}");
    for (const Out& o : pending) {
      std::vector<Reg> vals = unpackOutput(e, outs[o.result], o.reg, o.per);
      for (int k = 0; k < o.per; ++k)
        if (o.first + k < n) result[o.result][size_t(o.first + k)] = vals[size_t(k)];
    }
  }
  for (size_t r = 0; r < outs.size(); ++r) cg.bind(op.result(unsigned(r)), std::move(result[r]));
}

}  // namespace kiln::lower
