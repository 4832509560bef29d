// Reductions: tl.sum (integers narrower than 32 bits accumulate in i32/u32, or in `dtype`), tl.max /
// tl.min (bf16 computes in f32; without indices, types narrower than 32 bits widen to f32/i32),
// tl.argmax / tl.argmin (i32 indices). axis=None reduces every dimension; keep_dims keeps size-1 dims.
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using K = SValue::Kind;

namespace {

ir::Value* reduceInput(Context& cx, const SValue& input, std::string_view kind, const SourceLoc& loc) {
  ir::Value* x = input.isIR() ? input.ir : nullptr;
  if (!x || !x->type.isTensor())
    fail(loc, "tl." + std::string(kind) + " needs a tensor to reduce, got " + input.describe());
  if (x->type.isPtr()) fail(loc, "tl." + std::string(kind) + " cannot reduce pointers: " + input.describe());
  return x;
}

// One Reduce op (after flattening when axis is None), then the kept size-1 dimensions.
ir::Value* reduceOp(Context& cx, ir::Value* x, const char* kind, std::optional<int64_t> axis, bool keepDims,
                    const SourceLoc& loc) {
  int64_t rank = x->type.rank();
  int64_t ax = 0;
  if (axis) {
    ax = wrapAxis(*axis, rank, loc);
  } else if (rank > 1) {
    x = reshape(cx, x, {x->type.numel()}, loc);
  }
  Shape out = x->type.shape;
  out.erase(out.begin() + ax);
  Scalar elem = (std::string_view(kind) == "argmax" || std::string_view(kind) == "argmin") ? Scalar::I32 : x->type.elem;
  ir::Value* r = emit(cx, Opcode::Reduce, {x}, Type::tensor(out, elem), loc,
                      {{"axis", ax}, {"kind", std::string(kind)}});
  if (keepDims) {
    if (axis) return expandDims(cx, r, ax, loc);
    for (int64_t i = 0; i < rank; ++i) r = expandDims(cx, r, 0, loc);
  }
  return r;
}

std::optional<int64_t> axisArg(const CallArgs& a, size_t i) {
  if (!a.has(i)) return std::nullopt;
  return a.intArg(i);
}

ir::Value* promoteBf16(Context& cx, ir::Value* x, const SourceLoc& loc) {
  return x->type.elem == Scalar::BF16 ? castElem(cx, x, Type::scalar(Scalar::F32), loc) : x;
}

// tl.max / tl.min without indices: narrow types compare in 32 bits.
ir::Value* widenForMinMax(Context& cx, ir::Value* x, const SourceLoc& loc) {
  x = promoteBf16(cx, x, loc);
  if (ir::bitWidth(x->type.elem) >= 32) return x;
  return castElem(cx, x, Type::scalar(x->type.isFloat() ? Scalar::F32 : Scalar::I32), loc);
}

// Triton's _pick_sum_dtype: integers narrower than 32 bits sum in 32 bits of the same signedness.
ir::Value* widenForSum(Context& cx, ir::Value* x, const SourceLoc& loc) {
  if (!x->type.isInt() || ir::bitWidth(x->type.elem) >= 32) return x;
  return castElem(cx, x, Type::scalar(ir::isSigned(x->type.elem) ? Scalar::I32 : Scalar::U32), loc);
}

SValue sum(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* x = reduceInput(cx, a.at(0), "sum", a.loc);
  x = a.has(3) ? castElem(cx, x, a.dtypeArg(3), a.loc) : widenForSum(cx, x, a.loc);
  return SValue::irValue(reduceOp(cx, x, "sum", axisArg(a, 1), a.boolArg(2, false), a.loc));
}

SValue minMax(CallArgs& a, bool isMax) {
  Context& cx = *a.cx;
  const char* kind = isMax ? "max" : "min";
  ir::Value* x = reduceInput(cx, a.at(0), kind, a.loc);
  std::optional<int64_t> axis = axisArg(a, 1);
  bool keep = a.boolArg(4, false);
  if (a.boolArg(2, false)) {  // return_indices; the tie-break choice does not change kiln's leftmost index
    if (!axis) a.fail(a.display + "(): return_indices=True needs an axis");
    x = promoteBf16(cx, x, a.loc);
    ir::Value* v = reduceOp(cx, x, kind, axis, keep, a.loc);
    ir::Value* i = reduceOp(cx, x, isMax ? "argmax" : "argmin", axis, keep, a.loc);
    return SValue::tuple({SValue::irValue(v), SValue::irValue(i)});
  }
  return SValue::irValue(reduceOp(cx, widenForMinMax(cx, x, a.loc), kind, axis, keep, a.loc));
}
SValue maxFn(CallArgs& a) { return minMax(a, true); }
SValue minFn(CallArgs& a) { return minMax(a, false); }

SValue argMinMax(CallArgs& a, bool isMax) {
  Context& cx = *a.cx;
  const char* kind = isMax ? "argmax" : "argmin";
  ir::Value* x = promoteBf16(cx, reduceInput(cx, a.at(0), kind, a.loc), a.loc);
  if (!a.has(1)) a.fail(a.display + "() needs an axis");
  return SValue::irValue(reduceOp(cx, x, kind, a.intArg(1), a.boolArg(3, false), a.loc));
}
SValue argmax(CallArgs& a) { return argMinMax(a, true); }
SValue argmin(CallArgs& a) { return argMinMax(a, false); }

constexpr BuiltinDef kReduce[] = {
    {"sum", kTl | kMember, "input axis? keep_dims? dtype?", sum},
    {"max", kTl | kMember, "input axis? return_indices? return_indices_tie_break_left? keep_dims?", maxFn},
    {"min", kTl | kMember, "input axis? return_indices? return_indices_tie_break_left? keep_dims?", minFn},
    {"argmax", kTl | kMember, "input axis tie_break_left? keep_dims?", argmax},
    {"argmin", kTl | kMember, "input axis tie_break_left? keep_dims?", argmin},
};

}  // namespace

SValue reduceValue(Context& cx, const SValue& input, std::string_view kind, std::optional<int64_t> axis,
                   bool keepDims, const SourceLoc& loc) {
  ir::Value* x = reduceInput(cx, input, kind, loc);
  if (kind == "sum") return SValue::irValue(reduceOp(cx, widenForSum(cx, x, loc), "sum", axis, keepDims, loc));
  if (kind == "max" || kind == "min")
    return SValue::irValue(reduceOp(cx, widenForMinMax(cx, x, loc), kind == "max" ? "max" : "min", axis, keepDims, loc));
  throw InternalError(loc, "reduceValue kind " + std::string(kind));
}

std::span<const BuiltinDef> reduceBuiltins() { return kReduce; }

}  // namespace kiln::sema
