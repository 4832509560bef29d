// Structured control flow. Conditions and loop bounds are scalars, which every thread computes
// identically, so every branch is uniform (bra.uni). Values that flow around a loop or out of an
// `if` live in fresh "phi" registers: the only registers written after they are bound.
#include <algorithm>
#include <memory>
#include <set>
#include <optional>

#include "lower/codegen.h"
#include "lower/global_access.h"
#include "ptx/isel.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using ir::Opcode;
using ptx::Reg;
using ptx::RegClass;

namespace {

void mov(ptx::Entry& e, Reg d, Reg s) {
  if (d != s) e.mov(d, s);
}

// How a value lives across the iterations of a loop or out of an `if`: in fresh phi registers, or, for
// a pointer tile that a `for` advances by a scalar, in one phi register holding the base of its base +
// offsets form (the offsets stay those of the initial value).
struct Carried {
  std::vector<Reg> phis;
  std::optional<Codegen::PtrTile> tile;
};

std::vector<Carried> plainPhis(Codegen& cg, const std::vector<const ir::Type*>& types) {
  std::vector<Carried> out;
  for (const ir::Type* t : types) out.push_back(Carried{cg.newRegs(*t), std::nullopt});
  return out;
}

void bindCarried(Codegen& cg, const ir::Value* v, const Carried& c) {
  if (!c.tile) return cg.bind(v, c.phis);
  Codegen::PtrTile t = *c.tile;
  t.base = c.phis.at(0);
  cg.bindPtrTile(v, std::move(t));
}

// The registers of `v` that flow into the phis of `c`.
std::vector<Reg> sourcesFor(Codegen& cg, const ir::Op& op, const Carried& c, const ir::Value* v) {
  if (!c.tile) return cg.regs(v);
  const Codegen::PtrTile* t = cg.ptrTile(v);
  if (!t || t->offsets != c.tile->offsets) codegenBug(op, "a loop-carried pointer tile changes its offsets");
  return {t->base};
}

// phis = values, as a parallel copy: a source that is itself one of the phi registers (a yield that
// permutes loop-carried values) is read before any phi is written.
void assignPhis(Codegen& cg, const ir::Op& op, const std::vector<Carried>& carried,
                const std::vector<const ir::Value*>& values) {
  if (values.size() != carried.size()) codegenBug(op, "a region passes " + std::to_string(values.size()) + " values for " +
                                                   std::to_string(carried.size()));
  std::vector<std::pair<Reg, Reg>> moves;  // (dst, src)
  for (size_t k = 0; k < carried.size(); ++k) {
    std::vector<Reg> src = sourcesFor(cg, op, carried[k], values[k]);
    if (src.size() != carried[k].phis.size()) codegenBug(op, "a region passes a value of another layout");
    // Register indices holding one element share their phi (Codegen::newRegs): one move fills it.
    std::set<int> filled;
    for (size_t r = 0; r < src.size(); ++r)
      if (filled.insert(carried[k].phis[r].id).second) moves.emplace_back(carried[k].phis[r], src[r]);
  }
  auto isPhi = [&](Reg s) {
    for (const auto& [d, _] : moves)
      if (d == s) return true;
    return false;
  };
  for (auto& [d, s] : moves)
    if (d != s && isPhi(s)) {
      Reg t = cg.e.reg(s.cls);
      mov(cg.e, t, s);
      s = t;
    }
  for (const auto& [d, s] : moves)
    if (d != s) mov(cg.e, d, s);  // an op that wrote a loop's registers in place (an mma's accumulator)
}

// `v` takes the registers (or the base + offsets form) of `from`.
void alias(Codegen& cg, const ir::Value* v, const ir::Value* from) {
  if (const Codegen::PtrTile* t = cg.ptrTile(from)) return cg.bindPtrTile(v, *t);
  cg.bind(v, cg.regs(from));
}

// Whether the body yields, for iteration value k, ptr_add(its own argument, a uniform offset): the
// pointer tile advances as a whole.
bool advancesByScalar(const ir::Block& body, const ir::Op& yield, size_t k) {
  const ir::Value* y = yield.operand(unsigned(k));
  return y->def && y->def->opcode == Opcode::PtrAdd && y->def->parent == &body &&
         y->def->operand(0) == body.arg(unsigned(k + 1)) && isUniform(y->def->operand(1));
}

std::vector<const ir::Value*> operandsOf(const ir::Op* term, size_t from) {
  std::vector<const ir::Value*> out;
  for (size_t i = from; i < term->operands.size(); ++i) out.push_back(term->operands[i]);
  return out;
}

const ir::Op& terminator(const ir::Op& op, const ir::Block& b, Opcode want) {
  const ir::Op* t = b.terminator();
  if (!t || t->opcode != want) codegenBug(op, std::string("a region does not end with '") + ir::info(want).spelling + "'");
  return *t;
}

Reg scalarCondition(Codegen& cg, const ir::Op& op, const ir::Value* c) {
  if (c->type.isTensor() || !c->type.isBool()) codegenBug(op, "the condition must be a scalar i1");
  return cg.reg(c);
}

// for (iv = lb; iv < ub; iv += step) body. The interpreter stops when iv + step overflows; so does
// the loop here (the sum wraps below iv). A step <= 0 traps, as the interpreter fails.
void forLoop(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const ir::Block& body = op.region(0);
  const size_t n = op.numResults();
  if (op.numOperands() != n + 3 || body.numArgs() != n + 1) codegenBug(op, "malformed loop");
  const ir::Scalar ivType = op.operand(0)->type.elem;
  if (!ir::isInt(ivType) || ivType == ir::Scalar::I1) codegenBug(op, "the induction variable must be an integer");
  const bool wide = ir::bitWidth(ivType) == 64;
  // As the interpreter: 64-bit counters compare signed; narrower ones by their type (8/16-bit values
  // sit extended in 32 bits, where signed order is theirs).
  const bool isUnsigned = ivType == ir::Scalar::U32;
  const std::string cmpType = std::string(isUnsigned ? ".u" : ".s") + (wide ? "64" : "32");
  const Reg lb = cg.reg(op.operand(0)), ub = cg.reg(op.operand(1)), step = cg.reg(op.operand(2));

  const analysis::AxisInfo& stepInfo = cg.axis.get(op.operand(2));
  if (!stepInfo.constant || *stepInfo.constant <= 0) {
    Reg bad = e.reg(RegClass::Pred);
    e.inst("setp.le" + cmpType, {bad, step, 0});
    e.inst("trap", {}, ptx::when(bad));
  }
  const ir::Op& yield = terminator(op, body, Opcode::Yield);
  if (yield.numOperands() != n) codegenBug(op, "the body yields " + std::to_string(yield.numOperands()) + " values");
  std::vector<Carried> carried;
  std::vector<const ir::Value*> inits;
  for (size_t k = 0; k < n; ++k) {
    inits.push_back(op.operand(unsigned(3 + k)));
    const Codegen::PtrTile* t = cg.ptrTile(inits[k]);
    if (t && advancesByScalar(body, yield, k)) carried.push_back(Carried{{e.reg(RegClass::B64)}, *t});
    else carried.push_back(Carried{cg.newRegs(op.result(unsigned(k))->type), std::nullopt});
  }
  Reg iv = e.reg(ptx::regClassOf(ivType));
  mov(e, iv, lb);
  assignPhis(cg, op, carried, inits);

  ptx::Label top = e.newLabel("for"), done = e.newLabel("for_end");
  Reg enter = e.reg(RegClass::Pred);
  e.inst("setp.lt" + cmpType, {enter, iv, ub});
  e.inst("bra.uni", {ptx::sym(done.name)}, ptx::unless(enter));
  e.label(top);
  cg.bind(body.arg(0), {iv});
  for (size_t k = 0; k < n; ++k) bindCarried(cg, body.arg(unsigned(k + 1)), carried[k]);
  cg.lowerBlock(body);
  assignPhis(cg, op, carried, operandsOf(&yield, 0));
  Reg next = e.reg(iv.cls), again = e.reg(RegClass::Pred), noWrap = e.reg(RegClass::Pred);
  e.inst(wide ? "add.s64" : "add.s32", {next, iv, step});
  e.inst("setp.lt" + cmpType, {again, next, ub});
  e.inst("setp.gt.and" + cmpType, {noWrap, next, iv, again});
  mov(e, iv, next);
  e.inst("bra.uni", {ptx::sym(top.name)}, ptx::when(noWrap));
  e.label(done);
  for (size_t k = 0; k < n; ++k) bindCarried(cg, op.result(unsigned(k)), carried[k]);
}

void ifOp(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  Reg c = scalarCondition(cg, op, op.operand(0));
  std::vector<const ir::Type*> types;
  for (const auto& r : op.results) types.push_back(&r->type);
  std::vector<Carried> phis = plainPhis(cg, types);
  ptx::Label otherwise = e.newLabel("else"), done = e.newLabel("endif");
  e.inst("bra.uni", {ptx::sym(otherwise.name)}, ptx::unless(c));
  for (unsigned i = 0; i < 2; ++i) {
    const ir::Block& b = op.region(i);
    cg.lowerBlock(b);
    assignPhis(cg, op, phis, operandsOf(&terminator(op, b, Opcode::Yield), 0));
    if (i == 0) {
      e.braUni(done);
      e.label(otherwise);
    }
  }
  e.label(done);
  for (size_t k = 0; k < phis.size(); ++k) bindCarried(cg, op.result(unsigned(k)), phis[k]);
}

// while: before region -> condition (c, values); leave when !c with the values as results, else run
// the after region on them and carry its yield back into before's arguments.
void whileLoop(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const ir::Block& before = op.region(0);
  const ir::Block& after = op.region(1);
  if (before.numArgs() != op.numOperands() || after.numArgs() != op.numResults()) codegenBug(op, "malformed loop");
  std::vector<const ir::Type*> types;
  for (const auto& a : before.args) types.push_back(&a->type);
  std::vector<Carried> phis = plainPhis(cg, types);
  assignPhis(cg, op, phis, std::vector<const ir::Value*>(op.operands.begin(), op.operands.end()));
  ptx::Label top = e.newLabel("while"), done = e.newLabel("while_end");
  e.label(top);
  for (size_t k = 0; k < phis.size(); ++k) bindCarried(cg, before.arg(unsigned(k)), phis[k]);
  cg.lowerBlock(before);
  const ir::Op& cond = terminator(op, before, Opcode::Condition);
  if (cond.numOperands() != op.numResults() + 1) codegenBug(op, "the condition passes the wrong number of values");
  e.inst("bra.uni", {ptx::sym(done.name)}, ptx::unless(scalarCondition(cg, op, cond.operand(0))));
  // The condition's values are registers of this iteration, read only until the yield below: the
  // after region's arguments and the results can be those registers.
  for (size_t k = 0; k < op.numResults(); ++k) alias(cg, after.arg(unsigned(k)), cond.operand(unsigned(k + 1)));
  cg.lowerBlock(after);
  assignPhis(cg, op, phis, operandsOf(&terminator(op, after, Opcode::Yield), 0));
  e.braUni(top);
  e.label(done);
  for (size_t k = 0; k < op.numResults(); ++k) alias(cg, op.result(unsigned(k)), cond.operand(unsigned(k + 1)));
}

// assert: every element of the condition holds, else the kernel traps (the launch fails; the message
// is in the source, see docs/codegen.md).
void assertOp(Codegen& cg, const ir::Op& op) {
  const std::vector<Reg>& c = cg.regs(op.operand(0));
  std::vector<Reg> seen;
  for (Reg p : c) {
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    cg.e.inst("trap", {}, ptx::unless(p));
  }
}

}  // namespace

void lowerControl(Codegen& cg, const ir::Op& op) {
  switch (op.opcode) {
    case Opcode::For: return forLoop(cg, op);
    case Opcode::If: return ifOp(cg, op);
    case Opcode::While: return whileLoop(cg, op);
    case Opcode::Yield: case Opcode::Condition:
      return;  // read by the op that owns the region, after its body is lowered
    case Opcode::Return: return cg.e.ret();
    case Opcode::Assert: return assertOp(cg, op);
    case Opcode::Print: return lowerPrint(cg, op);
    default:  // not in the families this file lowers (codegen.cpp dispatches on ops.def's family)
      break;
  }
  codegenBug(op, "not a control-flow op");
}

}  // namespace kiln::lower
