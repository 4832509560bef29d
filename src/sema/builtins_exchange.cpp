// tl.gather and tl.histogram (and their tensor methods) with Triton 3.6's rules, as the gather and
// histogram ops. A histogram's mask is folded into its input: masked-off elements become a value no bin
// holds (all ones: negative when signed, beyond any bin count when unsigned), after narrow integers
// are widened to i32.
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

namespace {

SValue gatherFn(CallArgs& a) {
  const SValue &s = a.at(0), &i = a.at(1);
  if (!s.isIR() || !s.ir->type.isTensor()) a.fail(a.display + ": the source must be a tensor, got " + s.describe());
  if (!i.isIR() || !i.ir->type.isTensor() || !i.ir->type.isInt())
    a.fail(a.display + ": index must be an integer tensor, got " + i.describe());
  ir::Value *src = s.ir, *index = i.ir;
  const int64_t rank = src->type.rank();
  if (index->type.rank() != rank)
    a.fail(a.display + ": source and index tensors must have the same rank, got " + s.describe() + " and " +
           i.describe());
  int64_t axis = a.intArg(2);
  if (axis < -rank || axis >= rank)
    a.fail(a.display + ": gather axis " + std::to_string(axis) + " must be < source rank (" + std::to_string(rank) +
           ")");
  if (axis < 0) axis += rank;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && index->type.shape[size_t(d)] != src->type.shape[size_t(d)])
      a.fail(a.display + ": index dim " + std::to_string(d) + " must match the corresponding source dim: source " +
             shapeStr(src->type.shape) + ", index " + shapeStr(index->type.shape) + ", axis " + std::to_string(axis));
  Type rt = src->type.withShape(index->type.shape);
  return SValue::irValue(emit(*a.cx, Opcode::Gather, {src, index}, rt, a.loc, {{"axis", axis}}));
}

SValue histogramFn(CallArgs& a) {
  Context& cx = *a.cx;
  const SValue& in = a.at(0);
  if (!in.isIR() || !in.ir->type.isTensor() || in.ir->type.rank() != 1)
    a.fail(a.display + ": histogram only supports 1D input, got " + in.describe());
  if (!in.ir->type.isInt()) a.fail(a.display + ": histogram only supports integer input, got " + in.describe());
  const int64_t bins = a.intArg(1);
  if (bins < 1) a.fail(a.display + ": num_bins must be positive, got " + std::to_string(bins));
  validateShape({bins}, a.loc);
  ir::Value* x = in.ir;
  if (ir::bitWidth(x->type.elem) < 32) x = castElem(cx, x, Type::scalar(Scalar::I32), a.loc);
  if (a.has(2)) {
    ir::Value* mask = broadcastTo(cx, toTensor(cx, a.get(2), a.loc, "tl.histogram's mask"), x->type.shape, a.loc);
    if (!mask->type.isBool()) a.fail(a.display + ": Mask must have boolean scalar type, got " + a.get(2).describe());
    ir::Value* none = emit(cx, Opcode::Not, {zeroOf(cx, x->type, a.loc)}, x->type, a.loc);
    x = emit(cx, Opcode::Select, {mask, x, none}, x->type, a.loc);
  }
  return SValue::irValue(emit(cx, Opcode::Histogram, {x}, Type::tensor({bins}, Scalar::I32), a.loc));
}

constexpr BuiltinDef kExchange[] = {
    {"gather", kTl | kMember, "src index axis", gatherFn},
    {"histogram", kTl | kMember, "input num_bins mask?", histogramFn},
};

}  // namespace

std::span<const BuiltinDef> exchangeBuiltins() { return kExchange; }

}  // namespace kiln::sema
