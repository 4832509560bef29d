// Op classification (effects, traps, commutativity) and `constant` helpers shared by the passes.
#include "passes/effects.h"

#include <cmath>
#include <unordered_map>

namespace kiln::passes {

using ir::Opcode;

Effect effectOf(const ir::Op& op) {
  // A volatile load must happen exactly as often as the program says: it stays where it is.
  if (op.opcode == Opcode::Load && op.intAttrOr("volatile", 0) != 0) return Effect::Write;
  // Inline asm is a black box: only the user's is_pure=True lets the passes merge, move or drop it.
  if (op.opcode == Opcode::InlineAsm) return op.intAttrOr("pure", 0) != 0 ? Effect::Pure : Effect::Write;
  return op.info().effect;
}

bool isCommutative(const ir::Op& op) {
  if (op.numOperands() != 2) return false;
  if (op.opcode == Opcode::Add || op.opcode == Opcode::Mul) return true;
  bool intOp = op.opcode == Opcode::And || op.opcode == Opcode::Or || op.opcode == Opcode::Xor ||
               op.opcode == Opcode::Min || op.opcode == Opcode::Max || op.opcode == Opcode::UMulHi;
  return intOp && !op.operand(0)->type.isFloat();
}

bool mayTrap(const ir::Op& op) {
  if (op.opcode != Opcode::Div && op.opcode != Opcode::Rem) return false;
  if (op.numOperands() < 2 || !op.operand(1)->type.isInt()) return false;
  std::optional<ir::Elem> d = constantElem(op.operand(1));
  return !d || d->i == 0;
}

std::optional<ir::Elem> constantElem(const ir::Value* v) {
  if (!v || !v->def || v->def->opcode != Opcode::Constant) return std::nullopt;
  const ir::AttrValue* a = v->def->findAttr("value");
  if (!a) return std::nullopt;
  ir::Scalar s = v->type.elem;
  if (ir::isInt(s)) {
    if (!std::holds_alternative<int64_t>(*a)) return std::nullopt;
    return ir::normalize(s, ir::intElem(std::get<int64_t>(*a)));
  }
  if (ir::isFloat(s)) {
    if (std::holds_alternative<double>(*a)) return ir::normalize(s, ir::floatElem(std::get<double>(*a)));
    if (std::holds_alternative<int64_t>(*a))
      return ir::normalize(s, ir::floatElem(double(std::get<int64_t>(*a))));
  }
  return std::nullopt;
}

bool isIntConstant(const ir::Value* v, int64_t k) {
  if (!v->type.isInt()) return false;
  std::optional<ir::Elem> e = constantElem(v);
  return e && e->i == ir::normalize(v->type.elem, ir::intElem(k)).i;
}

bool isAllOnesConstant(const ir::Value* v) { return isIntConstant(v, -1); }

bool isFloatConstant(const ir::Value* v, double k) {
  if (!v->type.isFloat()) return false;
  std::optional<ir::Elem> e = constantElem(v);
  return e && e->f == k && std::signbit(e->f) == std::signbit(k);
}

ir::Value* makeConstant(ir::Builder& b, const ir::Type& t, ir::Elem e, SourceLoc loc) {
  e = ir::normalize(t.elem, e);
  ir::AttrValue value = t.isFloat() ? ir::AttrValue(e.f) : ir::AttrValue(e.i);
  return b.create1(Opcode::Constant, {}, t, {ir::Attr{"value", std::move(value)}}, std::move(loc));
}

void eraseOps(ir::Block& b, const std::vector<bool>& dead) {
  size_t kept = 0;
  for (size_t i = 0; i < b.ops.size(); ++i)
    if (!dead[i]) b.ops[kept++] = std::move(b.ops[i]);
  b.ops.resize(kept);
}

UseCounts countUses(ir::Function& fn) {
  UseCounts uses;
  ir::walk(fn, [&](ir::Op& op) {
    for (ir::Value* v : op.operands) ++uses[v];
  });
  return uses;
}

// ---- removal of unused pure ops

namespace {

// Backward over the block: every use of a result lies after its op (or inside a later op's
// regions), so a single backward sweep sees an op only after all its users were decided.
bool sweep(ir::Block& b, UseCounts& uses) {
  bool changed = false;
  std::vector<bool> dead(b.ops.size(), false);
  for (size_t i = b.ops.size(); i-- > 0;) {
    ir::Op* op = b.ops[i].get();
    for (auto& r : op->regions) changed |= sweep(*r, uses);
    if (!isPure(*op)) continue;
    bool used = false;
    for (auto& r : op->results) used |= uses[r.get()] > 0;
    if (used) continue;
    for (ir::Value* v : op->operands) --uses[v];
    dead[i] = changed = true;
  }
  eraseOps(b, dead);
  return changed;
}
}  // namespace

bool removeUnusedPureOps(ir::Function& fn) {
  UseCounts uses = countUses(fn);
  return sweep(fn.body, uses);
}

}  // namespace kiln::passes
