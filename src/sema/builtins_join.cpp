// Ops on a minor dim of size 2, with Triton 3.6's rules: tl.join (two tiles into a new last dim),
// tl.split (its inverse), tl.interleave, tl.cat (rank 1, always in order) and tl.flip (Triton's xor swaps
// over the flipped dim seen as log2(n) dims of size 2). Built from existing ops: a join is a select
// between two broadcasts, a split a reduce_combine over the size-2 dim that keeps its first or last element.
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

// join: out[..., 0] = a, out[..., 1] = b.
ir::Value* join(Context& cx, ir::Value* a, ir::Value* b, const SourceLoc& loc) {
  if (a->type.element() != b->type.element())
    fail(loc, "tl.join needs two values of one dtype, got " + dtypeExpr(a->type.element()) + " and " +
                  dtypeExpr(b->type.element()));
  Shape s = broadcastShape(a->type.shape, b->type.shape, loc);
  Shape joined = s;
  joined.push_back(2);
  validateShape(joined, loc);
  auto minor = [&](ir::Value* v) {
    v = broadcastTo(cx, v, s, loc);
    if (v->type.isTensor()) v = expandDims(cx, v, int64_t(s.size()), loc);
    return broadcastTo(cx, v, joined, loc);
  };
  ir::Value* first = minor(a);
  ir::Value* second = minor(b);
  ir::Value* k =
      emit(cx, Opcode::Arange, {}, Type::tensor({2}, Scalar::I32), loc, {{"start", int64_t(0)}, {"end", int64_t(2)}});
  ir::Value* isFirst = emit(cx, Opcode::Cmp, {k, zeroOf(cx, k->type, loc)}, k->type.withElem(Scalar::I1), loc,
                            {ir::Attr{"pred", std::string("eq")}});
  return emit(cx, Opcode::Select, {broadcastTo(cx, isFirst, joined, loc), first, second}, first->type, loc);
}

namespace {

ir::Value* tensorOf(CallArgs& a, size_t i, const char* what) {
  const SValue& v = a.at(i);
  if (!v.isIR() || !v.ir->type.isTensor()) a.fail(std::string(what) + " must be a tensor, got " + v.describe());
  return v.ir;
}

// Pointers travel through the combine region as i64 (combine regions compute on numbers).
ir::Value* asNumbers(Context& cx, ir::Value* v, const SourceLoc& loc) {
  return v->type.isPtr() ? castElem(cx, v, Type::scalar(Scalar::I64), loc) : v;
}
ir::Value* backTo(Context& cx, ir::Value* v, const Type& elem, const SourceLoc& loc) {
  return v->type.element() == elem ? v : castElem(cx, v, elem, loc);
}

SValue joinFn(CallArgs& a) {
  ir::Value* x = toTensor(*a.cx, a.at(0), a.loc, "tl.join's a");
  ir::Value* y = toTensor(*a.cx, a.at(1), a.loc, "tl.join's b");
  return SValue::irValue(join(*a.cx, x, y, a.loc));
}

// split: the two halves of the last dim (size 2); from a rank-1 tile, two scalars.
SValue splitFn(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* x = tensorOf(a, 0, "tl.split's input");
  if (x->type.shape.back() != 2)
    a.fail(a.display + " needs a tensor whose last dim has size 2, got " + a.at(0).describe());
  const Type elem = x->type.element();
  ir::Value* n = asNumbers(cx, x, a.loc);
  CombineBody keepEnds = [](const std::vector<ir::Value*>& args) { return std::vector<ir::Value*>{args[0], args[3]}; };
  std::vector<ir::Value*> halves =
      combineOp(cx, Opcode::ReduceCombine, {n, n}, x->type.rank() - 1, false, keepEnds, a.loc);
  return SValue::tuple({SValue::irValue(backTo(cx, halves[0], elem, a.loc)),
                        SValue::irValue(backTo(cx, halves[1], elem, a.loc))});
}

// interleave: join, then the joined dim merged into the last one.
SValue interleaveFn(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* c = join(cx, toTensor(cx, a.at(0), a.loc, "tl.interleave's a"),
                      toTensor(cx, a.at(1), a.loc, "tl.interleave's b"), a.loc);
  if (c->type.rank() == 1) return SValue::irValue(c);
  Shape s(c->type.shape.begin(), c->type.shape.end() - 2);
  s.push_back(2 * c->type.shape[c->type.shape.size() - 2]);
  return SValue::irValue(reshape(cx, c, s, a.loc));
}

// cat of two rank-1 tiles: input's elements, then other's. kiln never reorders, which can_reorder=True
// also permits.
SValue catFn(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* x = tensorOf(a, 0, "tl.cat's input");
  ir::Value* y = tensorOf(a, 1, "tl.cat's other");
  a.boolArg(2, false);  // can_reorder: a constexpr bool
  if (x->type.rank() != 1 || y->type.rank() != 1)
    a.fail(a.display + " supports rank-1 tensors only, got " + a.at(0).describe() + " and " + a.at(1).describe());
  if (x->type.shape != y->type.shape)
    a.fail(a.display + " needs two tensors of one length (the result's length must be a power of two), got " +
           a.at(0).describe() + " and " + a.at(1).describe());
  ir::Value* pairs = join(cx, x, y, a.loc);  // [n, 2]
  return SValue::irValue(reshape(cx, permute(cx, pairs, {1, 0}, a.loc), {2 * x->type.shape[0]}, a.loc));
}

// flip along `dim`: the dim seen as log2(n) dims of size 2, each swapped by y ^ (y0 ^ y1) on the bits.
SValue flipFn(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* x = tensorOf(a, 0, "tl.flip's input");
  const int64_t rank = x->type.rank();
  int64_t dim = rank - 1;
  if (a.has(1)) {
    dim = a.intArg(1);
    if (dim < -rank || dim >= rank)
      a.fail(a.display + ": dim " + std::to_string(dim) + " is out of range for " + a.at(0).describe());
    if (dim < 0) dim += rank;
  }
  const int64_t n = x->type.shape[size_t(dim)];
  if (n == 1) return SValue::irValue(x);
  const Type elem = x->type.element();
  const int bits = x->type.isPtr() ? 64 : ir::bitWidth(x->type.elem);
  const Type bitsType = Type::scalar(bits == 1 ? Scalar::I1 : bits == 8 ? Scalar::I8 : bits == 16 ? Scalar::I16
                                                : bits == 32 ? Scalar::I32 : Scalar::I64);
  ir::Value* y = bitcastElem(cx, x, bitsType, a.loc);  // pointers: as i64
  Shape split(x->type.shape.begin(), x->type.shape.begin() + dim);
  int steps = 0;
  for (int64_t m = n; m > 1; m /= 2) ++steps, split.push_back(2);
  split.insert(split.end(), x->type.shape.begin() + dim + 1, x->type.shape.end());
  y = reshape(cx, y, split, a.loc);
  CombineBody xorBody = [&cx, &a](const std::vector<ir::Value*>& args) {
    return std::vector<ir::Value*>{emit(cx, Opcode::Xor, {args[0], args[1]}, args[0]->type, a.loc)};
  };
  for (int i = 0; i < steps; ++i) {
    ir::Value* both = combineOp(cx, Opcode::ReduceCombine, {y}, dim + i, false, xorBody, a.loc)[0];
    both = broadcastTo(cx, expandDims(cx, both, dim + i, a.loc), split, a.loc);
    y = emit(cx, Opcode::Xor, {y, both}, y->type, a.loc);
  }
  y = reshape(cx, y, x->type.shape, a.loc);
  return SValue::irValue(bitcastElem(cx, y, elem, a.loc));
}

constexpr BuiltinDef kJoin[] = {
    {"join", kTl, "a b", joinFn},
    {"split", kTl | kMember, "a", splitFn},
    {"interleave", kTl, "a b", interleaveFn},
    {"cat", kTl, "input other can_reorder?", catFn},
    {"flip", kTl | kMember, "x dim?", flipFn},
};

}  // namespace

std::span<const BuiltinDef> joinBuiltins() { return kJoin; }

}  // namespace kiln::sema
