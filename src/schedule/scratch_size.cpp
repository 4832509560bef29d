// The scratch of each op that stages data through shared memory (scratch_size.h). These are the sizes
// the lowerings in src/lower ask for; each lowering checks that it stays within them.
#include "schedule/scratch_size.h"

#include <algorithm>
#include <bit>

#include "assign/dot_layouts.h"
#include "layout/axis_bits.h"
#include "layout/conversions.h"
#include "layout/wgmma_shared.h"
#include "layout/register_parts.h"
#include "layout/scratch_layout.h"

namespace kiln::schedule {

namespace {

using ir::Opcode;
using layout::LinearLayout;

int elemBytes(ir::Scalar t) { return t == ir::Scalar::I1 ? 1 : ir::bitWidth(t) / 8; }
int64_t round16(int64_t bytes) { return (bytes + 15) / 16 * 16; }

bool readsValue(const ir::Block& b, const ir::Value* v) {
  for (const auto& op : b.ops) {
    if (std::find(op->operands.begin(), op->operands.end(), v) != op->operands.end()) return true;
    for (const auto& r : op->regions)
      if (readsValue(*r, v)) return true;
  }
  return false;
}

// convert_layout: nothing when registers are renamed or shuffled within warps. A pointer tile moves its
// 32- or 64-bit offsets (or whole pointers) depending on how the code generator formed it: the larger.
ScratchUse convert(const ir::Op& op) {
  const ir::Value* x = op.operand(0);
  const LinearLayout &from = *x->type.layout, &to = *op.result(0)->type.layout;
  if (layout::registerOnlyConversion(from, to)) return {};
  if (std::optional<LinearLayout> m = layout::warpLocalConversion(from, to))
    if (layout::shufflesCanConvert(*m)) return {};
  const int64_t numel = x->type.numel();
  int64_t bytes = conversionScratchBytes(from, to, elemBytes(x->type.elem), numel);
  if (x->type.isPtr()) bytes = std::max(bytes, conversionScratchBytes(from, to, 4, numel));
  return {bytes, false};
}

// The builtin reductions: one partial per warp slot of every result element, and for argmax/argmin
// their indices after the 16-byte aligned values.
ScratchUse reduce(const ir::Op& op) {
  const LinearLayout& l = *op.operand(0)->type.layout;
  const int axis = int(op.intAttr("axis"));
  const int32_t warpMask = layout::reductionBits(l, axis).get(layout::kWarp);
  if (!warpMask) return {};
  const int64_t slots = int64_t(1) << std::popcount(uint32_t(warpMask));
  const ir::Type& y = op.result(0)->type;
  const int64_t numel = y.isTensor() ? y.numel() : 1;
  const std::string& kind = op.strAttr("kind");
  const bool isArg = kind == "argmax" || kind == "argmin";
  const ir::Scalar from = op.operand(0)->type.elem;
  const ir::Scalar value =
      isArg ? (ir::isFloat(from) ? (from == ir::Scalar::F64 ? ir::Scalar::I64 : ir::Scalar::I32) : from) : y.elem;
  return {round16(slots * numel * elemBytes(value)) + (isArg ? slots * numel * 4 : 0), true};
}

// reduce_combine and scan: each warp's partials of every row and register group, one 16-byte aligned
// array per operand.
ScratchUse combine(const ir::Op& op) {
  const LinearLayout& l = *op.operand(0)->type.layout;
  const int axis = int(op.intAttr("axis"));
  std::optional<layout::AxisBits> bits = layout::axisBits(l, axis);
  if (!bits || bits->warps == 0) return {};
  int64_t rows = 1;
  for (int d = 0; d < int(l.outs().size()); ++d)
    if (d != axis) rows *= l.getOutDimSize(layout::dimName(d));
  const int64_t elems = (int64_t(1) << bits->regHigh.size()) * (int64_t(1) << bits->warps) * rows;
  int64_t bytes = 0;
  for (const ir::Value* v : op.operands) bytes += round16(elems * elemBytes(v->type.elem));
  return {bytes, true};
}

ScratchUse sort(const ir::Op& op) {
  const ir::Value* x = op.operand(0);
  std::optional<layout::AxisBits> bits = layout::axisBits(*x->type.layout, int(op.intAttr("axis")));
  if (!bits || bits->warps == 0) return {};
  const int64_t bytes = x->type.numel() * elemBytes(x->type.elem);
  return {bytes <= kSortDoubleBufferBytes ? 2 * round16(bytes) : bytes, true};
}

ScratchUse atomic(const ir::Op& op) {
  if (!op.parent || !readsValue(*op.parent, op.result(0))) return {};
  const ir::Type& ptr = op.operand(0)->type;
  const int bytes = elemBytes(op.result(0)->type.elem);
  if (!ptr.isTensor()) return {bytes, true};  // thread 0's old value, for every thread
  const layout::DimMasks free = ptr.layout->getFreeVariableMasks();
  if (!free.get(layout::kLane) && !free.get(layout::kWarp)) return {};  // every thread owns its elements
  return {ptr.layout->totalOutSize() * bytes, true};
}

// wgmma reads B (and a tf32, fp8 or 8-bit integer A) from shared memory: one in registers is staged
// there, aligned to its swizzle pattern.
ScratchUse mma(const ir::Op& op, int numWarps, const ptx::Target& target) {
  std::optional<lower::MmaConfig> cfg = lower::mmaConfig(op, numWarps, target);
  if (!cfg || !cfg->wgmma) return {};
  const int64_t bytes = lower::wgmmaStagingBytes(op);
  if (bytes == 0) return {};
  return {bytes, true};
}

}  // namespace

int64_t conversionRoundBytes(const LinearLayout& from, const LinearLayout& to, int elemBytes, int64_t maxRoundBytes) {
  const LinearLayout src = layout::uniqueRegisters(from).compact, dst = layout::uniqueRegisters(to).compact;
  return layout::splitIntoRounds(src, dst, maxRoundBytes / elemBytes).src.totalOutSize() * elemBytes;
}

int64_t conversionScratchBytes(const LinearLayout& from, const LinearLayout& to, int elemBytes, int64_t numel) {
  const int64_t whole = numel * elemBytes;
  return conversionRoundBytes(from, to, elemBytes, whole > kScratchSplitAbove ? kScratchRoundBytes : whole);
}

ScratchUse scratchUse(const ir::Op& op, int numWarps, const ptx::Target& target) {
  switch (op.opcode) {
    case Opcode::ConvertLayout: return convert(op);
    case Opcode::Reduce: return reduce(op);
    case Opcode::ReduceCombine: case Opcode::Scan: return combine(op);
    case Opcode::Sort: return sort(op);
    case Opcode::Gather: {
      const ir::Type& src = op.operand(0)->type;
      return {src.numel() * elemBytes(src.isPtr() ? ir::Scalar::U64 : src.elem), true};
    }
    case Opcode::Histogram: return {op.result(0)->type.numel() * 4, true};
    case Opcode::AtomicRmw: case Opcode::AtomicCas: return atomic(op);
    case Opcode::Mma: case Opcode::Dot: return mma(op, numWarps, target);
    default: return {};
  }
}

}  // namespace kiln::schedule
