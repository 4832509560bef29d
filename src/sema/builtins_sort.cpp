// tl.sort / x.sort() and tl.topk: one sort op along the last dimension (Triton sorts no other). A top k
// below the dimension's length merges with max, which like tl.max computes in 32 bits for narrower
// types (bf16 and f16 in f32, integers in i32): the result keeps that type, as Triton's does.
#include <bit>

#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

namespace {

ir::Value* sortInput(CallArgs& a) {
  const SValue& x = a.at(0);
  if (!x.isIR() || !x.ir->type.isTensor()) a.fail(a.display + "() needs a tensor to sort, got " + x.describe());
  if (x.ir->type.isPtr()) a.fail(a.display + "() cannot sort pointers: " + x.describe());
  return x.ir;
}

// The dimension to sort along: `dim` (argument i), None meaning the last; only the last one is allowed.
int64_t sortDim(CallArgs& a, size_t i, ir::Value* x) {
  const int64_t rank = x->type.rank();
  if (!a.has(i)) return rank - 1;
  const int64_t dim = wrapAxis(a.intArg(i), rank, a.loc);
  if (dim != rank - 1)
    a.fail(a.display + "() sorts along the last dimension only: dim=" + std::to_string(a.intArg(i)) + " of " +
           SValue::irValue(x).describe() + " is not supported");
  return dim;
}

// The sort op; i1 tiles sort as i8 (0 < 1) and come back as i1.
ir::Value* sortOp(Context& cx, ir::Value* x, int64_t dim, int64_t k, bool descending, const SourceLoc& loc) {
  const bool isBool = x->type.isBool();
  if (isBool) x = castElem(cx, x, Type::scalar(Scalar::I8), loc);
  Shape shape = x->type.shape;
  shape[size_t(dim)] = k;
  ir::Value* r = emit(cx, Opcode::Sort, {x}, x->type.withShape(shape), loc,
                      {{"axis", dim}, {"descending", int64_t(descending ? 1 : 0)}});
  return isBool ? castElem(cx, r, Type::scalar(Scalar::I1), loc) : r;
}

SValue sort(CallArgs& a) {
  ir::Value* x = sortInput(a);
  const int64_t dim = sortDim(a, 1, x);
  return SValue::irValue(sortOp(*a.cx, x, dim, x->type.shape[size_t(dim)], a.boolArg(2, false), a.loc));
}

SValue topk(CallArgs& a) {
  ir::Value* x = sortInput(a);
  const int64_t dim = sortDim(a, 2, x);
  const int64_t n = x->type.shape[size_t(dim)], k = a.intArg(1);
  if (k < 1 || k > n || !std::has_single_bit(uint64_t(k)))
    a.fail(a.display + "(): k must be a power of two from 1 to the sorted dimension's " + std::to_string(n) +
           ", got " + std::to_string(k));
  if (k < n && ir::bitWidth(x->type.elem) < 32)  // tl.max's widening
    x = castElem(*a.cx, x, Type::scalar(x->type.isFloat() ? Scalar::F32 : Scalar::I32), a.loc);
  return SValue::irValue(sortOp(*a.cx, x, dim, k, true, a.loc));
}

constexpr BuiltinDef kSort[] = {
    {"sort", kTl | kMember, "x dim? descending?", sort},
    {"topk", kTl, "x k dim?", topk},  // not a tensor method in Triton
};

}  // namespace

std::span<const BuiltinDef> sortBuiltins() { return kSort; }

}  // namespace kiln::sema
