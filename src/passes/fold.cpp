// Constant folding for canonicalize. Every element is computed by scalar_eval (normalize, convert,
// bitcast, evalElementwise), the same code the interpreter runs, so a folded kernel computes
// bit-for-bit what the unfolded one would. Tensor constants are splats, so a tile folds like a scalar.
#include <vector>

#include "passes/effects.h"
#include "passes/rewrite.h"

namespace kiln::passes {

using ir::Opcode;

namespace {

// Same element, new shape: splat, broadcast, expand_dims, reshape and permute of a splat constant.
ir::Value* foldShape(ir::Op& op, ir::Builder& b) {
  const ir::Type& rt = op.result()->type;
  std::optional<ir::Elem> e = constantElem(op.operand(0));
  if (!e || op.operand(0)->type.element() != rt.element()) return nullptr;
  return makeConstant(b, rt, *e, op.loc);
}

ir::Value* foldCast(ir::Op& op, ir::Builder& b) {
  ir::Scalar from = op.operand(0)->type.elem, to = op.result()->type.elem;
  std::optional<ir::Elem> e = constantElem(op.operand(0));
  if (!e || from == ir::Scalar::Ptr || to == ir::Scalar::Ptr) return nullptr;
  ir::RoundMode mode = ir::RoundMode::NearestEven;
  if (!ir::roundModeFromName(op.strAttrOr("rounding", "rtne"), mode)) return nullptr;
  return makeConstant(b, op.result()->type, ir::convert(from, to, *e, mode), op.loc);
}

ir::Value* foldBitcast(ir::Op& op, ir::Builder& b) {
  ir::Scalar from = op.operand(0)->type.elem, to = op.result()->type.elem;
  std::optional<ir::Elem> e = constantElem(op.operand(0));
  if (!e || from == ir::Scalar::Ptr || to == ir::Scalar::Ptr) return nullptr;
  if (ir::bitWidth(from) != ir::bitWidth(to)) return nullptr;
  return makeConstant(b, op.result()->type, ir::bitcast(from, to, *e), op.loc);
}

ir::Value* foldElementwise(ir::Op& op, ir::Builder& b) {
  std::vector<ir::Elem> elems;
  for (ir::Value* v : op.operands) {
    std::optional<ir::Elem> e = constantElem(v);
    if (!e) return nullptr;
    elems.push_back(*e);
  }
  if (elems.empty()) return nullptr;
  ir::Elem out{};
  bool divByZero = false;
  if (!ir::evalElementwise(op, op.operand(0)->type.elem, elems.data(), out, divByZero)) return nullptr;
  if (divByZero) return nullptr;  // undefined on the GPU: leave it for the interpreter to report
  return makeConstant(b, op.result()->type, out, op.loc);
}

// arange of one element is the constant `start`.
ir::Value* foldArange(ir::Op& op, ir::Builder& b) {
  if (!op.hasAttr("start") || !op.hasAttr("end")) return nullptr;
  int64_t start = op.intAttr("start"), end = op.intAttr("end");
  if (end - start != 1) return nullptr;
  return makeConstant(b, op.result()->type, ir::intElem(start), op.loc);
}

}  // namespace

ir::Value* foldConstant(ir::Op& op, ir::Builder& b) {
  // Arity as ops.def says, so that malformed (unverified) IR is left alone rather than misread.
  int n = int(op.numOperands());
  if (op.numResults() != 1 || n < op.info().minOperands || (op.info().maxOperands >= 0 && n > op.info().maxOperands))
    return nullptr;
  switch (ir::familyOf(op.opcode)) {
    case ir::Family::Index:
      return op.opcode == Opcode::Arange ? foldArange(op, b) : nullptr;
    case ir::Family::Shape:
      return foldShape(op, b);
    case ir::Family::Cast:
      return op.opcode == Opcode::Cast ? foldCast(op, b) : foldBitcast(op, b);
    case ir::Family::Arith: case ir::Family::Bitwise: case ir::Family::Math:
      return foldElementwise(op, b);
    case ir::Family::Compare:  // select folds on its condition alone (simplify.cpp)
      return op.opcode == Opcode::Cmp ? foldElementwise(op, b) : nullptr;
    // The rest never fold to a constant: their values are unknown at compile time or they have effects.
    case ir::Family::Constant: case ir::Family::Pointer: case ir::Family::Memory: case ir::Family::Reduce:
    case ir::Family::Dot: case ir::Family::Exchange: case ir::Family::Hint: case ir::Family::Control: case ir::Family::Terminator:
    case ir::Family::Assert: case ir::Family::Asm: case ir::Family::Layout: case ir::Family::Shared: case ir::Family::Async:
    case ir::Family::Sync: case ir::Family::Mma: case ir::Family::Partition:
      return nullptr;
  }
  return nullptr;
}

}  // namespace kiln::passes
