// The type rules of reduce_combine and scan: N tiles of one shape along an axis, and a combine region
// ^(acc_0..acc_N-1, x_0..x_N-1) of scalars of the tiles' element types that computes element-wise on
// scalars only (no memory, no control flow, no tiles) and yields one value of each element type.
#include "ir/verifier_rules.h"

namespace kiln::ir {

namespace {

void combineRegion(const Op& op, const std::vector<Type>& elems) {
  const Block& body = op.region(0);
  std::vector<Type> args = elems;
  args.insert(args.end(), elems.begin(), elems.end());
  require(argTypes(body) == args, op, [&] {
    return "combine region arguments must be (accumulated values, new values) " + typeList(args) + ", got " +
           typeList(argTypes(body));
  });
  for (const auto& inner : body.ops) {
    require(allowedInCombineRegion(inner->opcode), *inner,
            [&] { return std::string("cannot stand in the combine region of '") + op.name() + "' (scalar element-wise ops only)"; });
    for (const auto& r : inner->results)
      require(!r->type.isTensor(), *inner,
              [&] { return std::string("in the combine region of '") + op.name() + "' must produce a scalar, got " + r->type.str(); });
  }
  terminatedBy(op, body, Opcode::Yield, elems, "the combine region");
}

}  // namespace

void checkCombineTypeRule(const Op& op) {
  const Type& first = op.operand(0)->type;
  const int64_t axis = op.intAttr("axis");
  require(first.isTensor() && !first.isPtr(), op, [&] { return "takes non-pointer tensors, got " + first.str(); });
  require(axis >= 0 && axis < first.rank(), op,
          [&] { return "axis " + std::to_string(axis) + " out of range for " + first.str(); });
  require(op.numResults() == op.numOperands(), op, [&] {
    return "has one result per operand: " + std::to_string(op.numOperands()) + " operand(s), " +
           std::to_string(op.numResults()) + " result(s)";
  });
  std::vector<int64_t> shape = first.shape;
  if (op.opcode == Opcode::ReduceCombine) shape.erase(shape.begin() + axis);
  std::vector<Type> elems;
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    const Type& t = op.operand(i)->type;
    require(t.isTensor() && !t.isPtr() && t.shape == first.shape, op, [&] {
      return "needs non-pointer tensors of one shape, got " + typeList(typesOf(op.operands));
    });
    const Type& r = op.result(i)->type;
    Type want = Type::tensor(shape, t.elem);
    require(r.withoutLayout() == want, op, [&] {
      return "result #" + std::to_string(i) + " of " + t.str() + " along axis " + std::to_string(axis) + " is " +
             want.str() + ", got " + r.str();
    });
    elems.push_back(Type::scalar(t.elem));
  }
  const int64_t reverse = op.intAttrOr("reverse", 0);
  require(reverse == 0 || reverse == 1, op, [&] { return "reverse must be 0 or 1"; });
  combineRegion(op, elems);
}

}  // namespace kiln::ir
