// The type rules of gather and histogram: ops whose result elements may come from anywhere in the
// operand. gather keeps src's element type in index's shape (equal to src's off the axis); histogram
// counts a rank-1 integer tile into a rank-1 i32 tile of num_bins elements.
#include "ir/verifier_rules.h"

namespace kiln::ir {

namespace {

void gather(const Op& op) {
  const Type &src = op.operand(0)->type, &index = op.operand(1)->type, &r = op.result()->type;
  const int64_t axis = op.intAttr("axis");
  require(src.isTensor() && index.isTensor() && src.rank() == index.rank(), op,
          [&] { return "needs src and index tiles of one rank, got " + typeList({src, index}); });
  require(index.isInt(), op, [&] { return "needs an integer index, got " + index.str(); });
  require(axis >= 0 && axis < src.rank(), op,
          [&] { return "axis " + std::to_string(axis) + " out of range for " + src.str(); });
  for (int d = 0; d < src.rank(); ++d)
    require(d == axis || src.shape[size_t(d)] == index.shape[size_t(d)], op, [&] {
      return "needs index of src's size off axis " + std::to_string(axis) + ": src " + shapeText(src.shape) +
             ", index " + shapeText(index.shape);
    });
  require(r.isTensor() && r.elem == src.elem && r.pointee == src.pointee && r.shape == index.shape, op, [&] {
    return "produces " + src.element().str() + " in index's shape " + shapeText(index.shape) + ", got " + r.str();
  });
}

void histogram(const Op& op) {
  const Type &x = op.operand(0)->type, &r = op.result()->type;
  require(x.isTensor() && x.rank() == 1 && x.isInt() && !x.isBool(), op,
          [&] { return "needs a rank-1 integer tile, got " + x.str(); });
  require(r.isTensor() && r.rank() == 1 && r.elem == Scalar::I32, op,
          [&] { return "produces a rank-1 i32 tile of one count per bin, got " + r.str(); });
}

}  // namespace

void checkExchangeTypeRule(const Op& op) {
  if (op.opcode == Opcode::Gather) return gather(op);
  histogram(op);
}

}  // namespace kiln::ir
