// The combine region lowered op by op, tuple shuffles and selects, rows along an axis and the warp
// exchange through shared memory (see combine_region.h).
#include "lower/combine_region.h"

#include "layout/named_layouts.h"
#include "lower/linear_emit.h"
#include "ptx/isel.h"
#include "ptx/memory.h"

namespace kiln::lower {

using layout::LinearLayout;
using ptx::Reg;

Combiner::Combiner(Codegen& cg, const ir::Op& op) : cg_(cg), op_(op) {
  for (const ir::Value* v : op.operands) types_.push_back(v->type.elem);
  if (op.regions.size() != 1 || op.region(0).numArgs() != 2 * types_.size())
    codegenBug(op, "malformed combine region");
}

Tuple Combiner::combine(const Tuple& acc, const Tuple& x, Reg valid) {
  const ir::Block& body = op_.region(0);
  const size_t n = types_.size();
  if (acc.size() != n || x.size() != n) codegenBug(op_, "combine of tuples of the wrong size");
  for (size_t k = 0; k < n; ++k) {
    cg_.bind(body.arg(unsigned(k)), {acc[k]});
    cg_.bind(body.arg(unsigned(n + k)), {x[k]});
  }
  const ir::Op* yield = body.terminator();
  if (!yield || yield->opcode != ir::Opcode::Yield || yield->numOperands() != n)
    codegenBug(op_, "combine region without its yield");
  for (const auto& inner : body.ops) {
    if (inner.get() == yield) continue;
    if (inner->opcode != ir::Opcode::Assert || !valid.valid()) {
      cg_.lowerOp(*inner);
      continue;
    }
    // assert(cond or not valid): the condition rebound for this one lowering.
    const ir::Value* cond = inner->operand(0);
    Codegen::Binding saved = cg_.binding(cond);
    Reg held = cg_.e.reg(ptx::RegClass::Pred), skip = cg_.e.reg(ptx::RegClass::Pred);
    cg_.e.inst("not.pred", {skip, valid});
    cg_.e.inst("or.pred", {held, cg_.reg(cond), skip});
    cg_.bind(cond, {held});
    cg_.lowerOp(*inner);
    cg_.restore(saved);
  }
  Tuple out;
  for (const ir::Value* v : yield->operands) out.push_back(cg_.regs(v).at(0));
  return out;
}

Tuple Combiner::select(Reg pred, const Tuple& ifTrue, const Tuple& ifFalse) {
  Tuple out;
  for (size_t k = 0; k < types_.size(); ++k) {
    if (ifTrue[k].id == ifFalse[k].id && ifTrue[k].cls == ifFalse[k].cls) {
      out.push_back(ifTrue[k]);
      continue;
    }
    Reg d = cg_.e.reg(ptx::regClassOf(types_[k]));
    Reg src[] = {pred, ifTrue[k], ifFalse[k]};
    ptx::selectElementwise(cg_.e, ptx::ElementOp{ir::Opcode::Select, types_[k], ptx::CmpPred::Eq, false, false, op_.loc},
                           d, src);
    out.push_back(d);
  }
  return out;
}

Tuple Combiner::shuffle(ptx::ShflMode mode, const Tuple& v, ptx::Operand lane) {
  Tuple out;
  for (size_t k = 0; k < types_.size(); ++k) {
    Reg d = cg_.e.reg(v[k].cls);
    ptx::shuffle(cg_.e, mode, types_[k], d, v[k], lane);
    out.push_back(d);
  }
  return out;
}

namespace {

int32_t deposit(int32_t v, const std::vector<int>& bits) {
  int32_t r = 0;
  for (size_t i = 0; i < bits.size(); ++i)
    if (v >> i & 1) r |= int32_t(1) << bits[i];
  return r;
}

int32_t extract(int32_t r, const std::vector<int>& bits) {
  int32_t v = 0;
  for (size_t i = 0; i < bits.size(); ++i)
    if (r >> bits[i] & 1) v |= int32_t(1) << i;
  return v;
}

}  // namespace

CombineInput combineInput(Codegen& cg, const ir::Op& op) {
  CombineInput in;
  if (!op.operand(0)->type.layout) codegenBug(op, "operand without a layout");
  in.layout = op.operand(0)->type.layout.get();
  in.axis = int(op.intAttr("axis"));
  std::optional<layout::AxisBits> bits = layout::axisBits(*in.layout, in.axis);
  if (!bits) codegenBug(op, "the operand layout does not hold the axis in order: " + in.layout->str());
  in.bits = *bits;
  for (const ir::Value* v : op.operands) in.regs.push_back(cg.regs(v));
  in.rows = int32_t(1) << bits->regOther.size();
  in.groups = int32_t(1) << bits->regHigh.size();
  in.lows = int32_t(1) << bits->regLow.size();
  return in;
}

Tuple CombineInput::at(int32_t r) const {
  Tuple t;
  for (const std::vector<Reg>& x : regs) t.push_back(x.at(size_t(r)));
  return t;
}

int32_t registerIndex(const layout::AxisBits& bits, int32_t row, int32_t group, int32_t low) {
  return deposit(row, bits.regOther) | deposit(group, bits.regHigh) | deposit(low, bits.regLow);
}

RegisterParts registerParts(const layout::AxisBits& bits, int32_t r) {
  return {extract(r, bits.regOther), extract(r, bits.regHigh), extract(r, bits.regLow)};
}

Rows rowsOf(Codegen& cg, const LinearLayout& l, int axis, const layout::AxisBits& bits) {
  Rows rows;
  std::vector<int64_t> shape;  // the tile without the axis
  for (int d = 0; d < int(l.outs().size()); ++d)
    if (d != axis) shape.push_back(l.getOutDimSize(layout::dimName(d)));
  for (int64_t s : shape) rows.count *= s;
  if (shape.empty()) {
    rows.thread = linearOf(cg, cg.lane(), {});  // zero: one row
  } else {
    LinearLayout flat = layout::sliceLayout(l, axis).reshapeOuts({{std::string(layout::kOffset), int32_t(rows.count)}});
    rows.thread = threadPart(cg, flat, 0);
    rows.threadMask = threadMask(flat, 0);
  }
  for (int32_t s = 0; s < (int32_t(1) << bits.regOther.size()); ++s) {
    std::vector<int32_t> c = registerCoords(l, registerIndex(bits, s, 0, 0));
    int64_t flat = 0;
    for (int d = 0, k = 0; d < int(l.outs().size()); ++d)
      if (d != axis) flat = flat * shape[size_t(k++)] + c[size_t(d)];
    rows.registers.push_back(flat);
  }
  return rows;
}

std::vector<std::vector<std::vector<Tuple>>> exchangeWarps(Codegen& cg, const ir::Op& op,
                                                           const std::vector<ir::Scalar>& types,
                                                           const Rows& rows, Reg slot, int slots,
                                                           const std::vector<std::vector<Tuple>>& values, Reg guard) {
  ptx::Entry& e = cg.e;
  const int64_t groups = int64_t(values.size());
  const int64_t perSlot = rows.count, elems = groups * slots * perSlot;
  std::vector<int64_t> offsets;  // of each component's array in the scratch
  int64_t bytes = 0;
  for (ir::Scalar t : types) {
    offsets.push_back(bytes);
    bytes += (elems * memBytes(t) + 15) / 16 * 16;
  }
  const Codegen::Scratch scratch = cg.scratch(op, bytes);
  e.comment("combine across warps through shared memory");
  std::vector<std::vector<std::vector<Tuple>>> out(static_cast<size_t>(groups));
  std::vector<SharedAddresses> stores, loads;
  for (size_t k = 0; k < types.size(); ++k) {
    const int vb = memBytes(types[k]);
    Reg base = e.reg(ptx::RegClass::B32), mine = e.reg(ptx::RegClass::B32);
    e.inst("add.u32", {base, scratch.address, offsets[k]});
    e.inst("mad.lo.u32", {mine, slot, perSlot * vb, base});
    stores.emplace_back(cg, mine, rows.thread, rows.threadMask, vb);
    loads.emplace_back(cg, base, rows.thread, rows.threadMask, vb);
  }
  const ptx::Guard when = guard.valid() ? ptx::when(guard) : ptx::Guard{};
  for (int64_t g = 0; g < groups; ++g)
    for (size_t s = 0; s < values[size_t(g)].size(); ++s)
      for (size_t k = 0; k < types.size(); ++k) {
        auto a = stores[k].at(g * slots * perSlot + rows.registers.at(s));
        ptx::storeVector(e, ptx::Space::Shared, types[k], std::span<const Reg>(&values[size_t(g)][s][k], 1), a.reg, a.offset,
                         {}, when);
      }
  cg.barrier();
  for (int64_t g = 0; g < groups; ++g) {
    out[size_t(g)].resize(size_t(slots));
    for (int w = 0; w < slots; ++w)
      for (size_t s = 0; s < values[size_t(g)].size(); ++s) {
        Tuple t;
        for (size_t k = 0; k < types.size(); ++k) {
          Reg r = e.reg(ptx::regClassOf(types[k]));
          auto a = loads[k].at((g * slots + w) * perSlot + rows.registers.at(s));
          ptx::loadVector(e, ptx::Space::Shared, types[k], std::span<const Reg>(&r, 1), a.reg, a.offset);
          t.push_back(r);
        }
        out[size_t(g)][size_t(w)].push_back(std::move(t));
      }
  }
  return out;
}

}  // namespace kiln::lower
