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
  bool rtz = op.strAttrOr("rounding", "") == "rtz";
  return makeConstant(b, op.result()->type, ir::convert(from, to, *e, rtz), op.loc);
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
  switch (op.opcode) {
    case Opcode::Arange:
      return foldArange(op, b);
    case Opcode::Splat: case Opcode::Broadcast: case Opcode::ExpandDims: case Opcode::Reshape:
    case Opcode::Permute:
      return foldShape(op, b);
    case Opcode::Cast:
      return foldCast(op, b);
    case Opcode::Bitcast:
      return foldBitcast(op, b);
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Div: case Opcode::Rem:
    case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Shl: case Opcode::Shr:
    case Opcode::Min: case Opcode::Max: case Opcode::UMulHi: case Opcode::Fma: case Opcode::Neg:
    case Opcode::Not: case Opcode::Abs: case Opcode::Exp: case Opcode::Exp2: case Opcode::Log:
    case Opcode::Log2: case Opcode::Sqrt: case Opcode::Rsqrt: case Opcode::Sin: case Opcode::Cos:
    case Opcode::Tanh: case Opcode::Erf: case Opcode::Floor: case Opcode::Ceil: case Opcode::Cmp:
      return foldElementwise(op, b);
    // select folds on its condition alone (simplify.cpp); the rest never fold to a constant:
    // their values are unknown at compile time or they have effects.
    case Opcode::Select: case Opcode::Constant: case Opcode::ProgramId: case Opcode::NumPrograms:
    case Opcode::PtrAdd: case Opcode::Load: case Opcode::Store: case Opcode::Reduce: case Opcode::Dot:
    case Opcode::MultipleOf: case Opcode::MaxContiguous: case Opcode::ConvertLayout: case Opcode::For: case Opcode::If:
    case Opcode::While: case Opcode::Yield: case Opcode::Condition: case Opcode::Return:
    case Opcode::Assert:
      return nullptr;
  }
  return nullptr;
}

}  // namespace kiln::passes
