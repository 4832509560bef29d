// Shape builtins: reshape/view/ravel, permute/trans, expand_dims, broadcast_to and broadcast, and
// x.item() (a one-element tile as a scalar). Shapes passed as tuples or as separate arguments
// (tl.reshape(x, (4, 8)) == tl.reshape(x, 4, 8)).
#include <algorithm>

#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Type;

ir::Value* expandDims(Context& cx, ir::Value* v, int64_t axis, const SourceLoc& loc) {
  Shape s = v->type.shape;
  if (axis < 0 || axis > int64_t(s.size()))
    throw InternalError(loc, "expand_dims axis " + std::to_string(axis) + " out of range for " + v->type.str());
  s.insert(s.begin() + axis, 1);
  validateShape(s, loc);  // the rank bound
  if (!v->type.isTensor()) return emit(cx, Opcode::Splat, {v}, v->type.withShape(s), loc);
  return emit(cx, Opcode::ExpandDims, {v}, v->type.withShape(s), loc, {{"axis", axis}});
}

ir::Value* permute(Context& cx, ir::Value* v, const std::vector<int64_t>& order, const SourceLoc& loc) {
  const Shape& in = v->type.shape;
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool isPerm = order.size() == in.size();
  for (size_t i = 0; isPerm && i < sorted.size(); ++i) isPerm = sorted[i] == int64_t(i);
  if (!isPerm)
    fail(loc, "permute dims must be a permutation of 0..." + std::to_string(int64_t(in.size()) - 1) + " for " +
                  SValue::irValue(v).describe() + ", got " + shapeStr(order));
  bool identity = true;
  Shape out(in.size());
  for (size_t i = 0; i < order.size(); ++i) {
    out[i] = in[size_t(order[i])];
    identity = identity && order[i] == int64_t(i);
  }
  if (identity) return v;
  return emit(cx, Opcode::Permute, {v}, v->type.withShape(out), loc, {{"order", order}});
}

ir::Value* reshape(Context& cx, ir::Value* v, const Shape& shape, const SourceLoc& loc) {
  if (shape.empty()) fail(loc, "reshape to a 0-d shape is not supported; use a reduction to get a scalar");
  validateShape(shape, loc);
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (numel != v->type.numel())
    fail(loc, "reshape cannot change the number of elements: " + SValue::irValue(v).describe() + " has " +
                  std::to_string(v->type.numel()) + ", shape " + shapeStr(shape) + " has " + std::to_string(numel));
  if (!v->type.isTensor()) return emit(cx, Opcode::Splat, {v}, v->type.withShape(shape), loc);
  if (v->type.shape == shape) return v;
  return emit(cx, Opcode::Reshape, {v}, v->type.withShape(shape), loc);
}

// Tile IR has no unsplat op: a max-reduction over the single element combines nothing, so it is
// exact on the interpreter and the GPU (NaN and -0.0 included). It goes through tl.max's rules
// (narrow types widen first, then convert back, which is exact); pointers travel as i64.
ir::Value* unsplat(Context& cx, ir::Value* v, const SourceLoc& loc) {
  const Type& t = v->type;
  if (!t.isTensor()) return v;
  if (t.numel() != 1)
    fail(loc, "can only unsplat single-element tensors: item() needs one element, got " +
                  SValue::irValue(v).describe() + " (" + std::to_string(t.numel()) + " elements)");
  Type elem = t.element();
  ir::Value* flat = reshape(cx, v, {1}, loc);
  if (t.isPtr()) flat = castElem(cx, flat, Type::scalar(ir::Scalar::I64), loc);
  ir::Value* s = reduceValue(cx, SValue::irValue(flat), "max", 0, false, loc).ir;
  return s->type == elem ? s : castElem(cx, s, elem, loc);
}

namespace {

SValue item(CallArgs& a) {
  const SValue& x = a.at(0);
  if (!x.isIR()) a.fail(a.display + "() needs a tensor, got " + x.describe());
  return SValue::irValue(unsplat(*a.cx, x.ir, a.loc));
}

ir::Value* tensorArg(CallArgs& a) {
  const SValue& x = a.at(0);
  if (!x.isIR()) a.fail(a.display + "() needs a tensor, got " + x.describe());
  return x.ir;
}

Shape restShape(CallArgs& a) { return a.shapeArg(SValue::tuple(a.rest), "the shape"); }

SValue reshapeFn(CallArgs& a) { return SValue::irValue(reshape(*a.cx, tensorArg(a), restShape(a), a.loc)); }
SValue ravel(CallArgs& a) {
  ir::Value* x = tensorArg(a);
  return SValue::irValue(reshape(*a.cx, x, {x->type.numel()}, a.loc));
}

SValue permuteFn(CallArgs& a, bool defaultTranspose) {
  ir::Value* x = tensorArg(a);
  std::vector<int64_t> dims = a.shapeArg(SValue::tuple(a.rest), "dims");
  if (dims.empty() && defaultTranspose) dims = {1, 0};
  return SValue::irValue(permute(*a.cx, x, dims, a.loc));
}
SValue trans(CallArgs& a) { return permuteFn(a, true); }
SValue permuteB(CallArgs& a) { return permuteFn(a, false); }

SValue expandDimsFn(CallArgs& a) {
  ir::Value* x = toTensor(*a.cx, a.at(0), a.loc, "tl.expand_dims's input");
  std::vector<int64_t> axes = a.intList(a.at(1), "axis");
  int64_t rank = x->type.rank() + int64_t(axes.size());
  for (int64_t& ax : axes) ax = wrapAxis(ax, rank, a.loc);
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    a.fail("tl.expand_dims received duplicate axes, normalized axes = " + shapeStr(axes));
  for (int64_t ax : sorted) x = expandDims(*a.cx, x, ax, a.loc);
  return SValue::irValue(x);
}

SValue broadcastToFn(CallArgs& a) {
  ir::Value* x = toTensor(*a.cx, a.at(0), a.loc, "tl.broadcast_to's input");
  Shape shape = restShape(a);
  validateShape(shape, a.loc);
  return SValue::irValue(broadcastTo(*a.cx, x, shape, a.loc));
}

SValue broadcastFn(CallArgs& a) {
  ir::Value* x = toTensor(*a.cx, a.at(0), a.loc, "tl.broadcast's input");
  ir::Value* y = toTensor(*a.cx, a.at(1), a.loc, "tl.broadcast's other");
  Shape shape = broadcastShape(x->type.shape, y->type.shape, a.loc);
  return SValue::tuple({SValue::irValue(broadcastTo(*a.cx, x, shape, a.loc)),
                        SValue::irValue(broadcastTo(*a.cx, y, shape, a.loc))});
}

constexpr BuiltinDef kShape[] = {
    {"reshape", kTl | kMember, "input *shape can_reorder?", reshapeFn},
    {"view", kTl | kMember, "input *shape", reshapeFn},
    {"ravel", kTl | kMember, "input can_reorder?", ravel},
    {"trans", kTl | kMember, "input *dims", trans},
    {"permute", kTl | kMember, "input *dims", permuteB},
    {"expand_dims", kTl | kMember, "input axis", expandDimsFn},
    {"broadcast_to", kTl | kMember, "input *shape", broadcastToFn},
    {"broadcast", kTl, "input other", broadcastFn},
    {"item", kMember, "input", item},  // a tensor method only, as in Triton
};

}  // namespace

std::span<const BuiltinDef> shapeBuiltins() { return kShape; }

}  // namespace kiln::sema
