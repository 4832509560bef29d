// The layout rules of the GPU IR contract, one function per question (see assign_rules.h), and the
// coalesced and default layouts layout assignment starts from.
#include "assign/assign_rules.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "layout/axis_bits.h"
#include "layout/named_layouts.h"
#include "support/diagnostic.h"

namespace kiln::lower::assign {

using ir::Opcode;

LayoutRule layoutRuleOf(Opcode op) {
  switch (ir::familyOf(op)) {
    case ir::Family::Constant: return LayoutRule::Source;
    case ir::Family::Index: return op == Opcode::Arange ? LayoutRule::Source : LayoutRule::Free;
    case ir::Family::Shape:
      if (op == Opcode::Splat) return LayoutRule::Source;
      if (op == Opcode::Broadcast) return LayoutRule::Broadcast;
      if (op == Opcode::ExpandDims) return LayoutRule::ExpandDims;
      if (op == Opcode::Reshape) return LayoutRule::Reshape;
      return LayoutRule::Permute;
    case ir::Family::Cast: case ir::Family::Arith: case ir::Family::Bitwise: case ir::Family::Math:
    case ir::Family::Compare: case ir::Family::Pointer: case ir::Family::Hint:
      return LayoutRule::Elementwise;
    case ir::Family::Memory: return op == Opcode::Store ? LayoutRule::Store : LayoutRule::Load;  // atomics: as loads
    case ir::Family::Reduce: return op == Opcode::Reduce ? LayoutRule::Reduce : LayoutRule::Combine;
    case ir::Family::Dot: return LayoutRule::Dot;
    case ir::Family::Exchange: return LayoutRule::Exchange;
    case ir::Family::Control: return LayoutRule::ControlFlow;
    case ir::Family::Terminator: return LayoutRule::Terminator;
    case ir::Family::Assert: return LayoutRule::Free;
    case ir::Family::Asm: return LayoutRule::Elementwise;  // its results share one layout (tied)
    case ir::Family::Layout:
      if (op == Opcode::ConvertLayout) return LayoutRule::Convert;
      break;  // extract_slice: the pipeline pass's, after layout assignment
    case ir::Family::Sync:
      if (op == Opcode::DebugBarrier) return LayoutRule::Free;
      break;
    case ir::Family::Shared: case ir::Family::Async: case ir::Family::Mma: case ir::Family::Partition:
      break;  // the schedule is made after layout assignment, never before
  }
  throw InternalError({}, std::string("layout assignment: '") + ir::info(op).spelling + "' is a GPU schedule op");
}

namespace {

std::vector<std::pair<std::string, int32_t>> namedShape(const std::vector<int64_t>& shape) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (size_t d = 0; d < shape.size(); ++d) out.emplace_back(layout::dimName(int(d)), int32_t(shape[d]));
  return out;
}

bool isTile(const ir::Value* v) { return v && v->type.isTensor(); }

}  // namespace

Layout broadcastOperand(const Layout& result, const std::vector<int64_t>& operandShape) {
  std::vector<layout::InDim> ins = result.ins();
  std::vector<layout::OutDim> outs = result.outs();
  if (outs.size() != operandShape.size()) throw InternalError({}, "broadcastOperand: rank mismatch");
  for (size_t d = 0; d < outs.size(); ++d) {
    if (operandShape[d] != 1 || outs[d].size == 1) continue;
    outs[d].size = 1;
    for (layout::InDim& in : ins)
      for (layout::Basis& b : in.bases) b[d] = 0;
  }
  return Layout(std::move(ins), std::move(outs));
}

Layout expandDimsOperand(const Layout& result, int axis) {
  int rank = int(result.outs().size());
  std::vector<std::string> kept;
  for (int d = 0; d < rank; ++d)
    if (d != axis) kept.push_back(result.outs()[size_t(d)].name);
  return result.sublayout(result.inDimNames(), kept).renameOuts(layout::standardOutDims(rank - 1));
}

Layout expandDimsResult(const Layout& operand, int axis) {
  std::vector<layout::InDim> ins = operand.ins();
  for (layout::InDim& in : ins)
    for (layout::Basis& b : in.bases) b.insert(b.begin() + axis, 0);
  std::vector<layout::OutDim> outs = operand.outs();
  outs.insert(outs.begin() + axis, layout::OutDim{"", 1});
  for (size_t d = 0; d < outs.size(); ++d) outs[d].name = layout::dimName(int(d));
  return Layout(std::move(ins), std::move(outs));
}

Layout reshapeLayout(const Layout& l, const std::vector<int64_t>& shape) {
  return l.reshapeOuts(namedShape(shape));
}

Layout permuteResult(const Layout& operand, const std::vector<int64_t>& order) {
  std::vector<std::string> names;
  for (int64_t o : order) names.push_back(layout::dimName(int(o)));
  return operand.transposeOuts(names).renameOuts(layout::standardOutDims(int(order.size())));
}

Layout permuteOperand(const Layout& result, const std::vector<int64_t>& order) {
  std::vector<std::string> names;  // result dim i is operand dim order[i]
  for (int64_t o : order) names.push_back(layout::dimName(int(o)));
  return result.renameOuts(names).transposeOuts(layout::standardOutDims(int(order.size())));
}

std::optional<Layout> operandFromResult(const ir::Op& op, unsigned i, const Layout& result) {
  const ir::Value* v = op.operand(i);
  if (!isTile(v)) return std::nullopt;
  switch (layoutRuleOf(op.opcode)) {
    case LayoutRule::Elementwise:
    case LayoutRule::Load:
      return result;
    case LayoutRule::Exchange:
      if (op.opcode == Opcode::Gather && i == 1) return result;
      return std::nullopt;
    case LayoutRule::Broadcast: return broadcastOperand(result, v->type.shape);
    case LayoutRule::ExpandDims: return expandDimsOperand(result, int(op.intAttr("axis")));
    case LayoutRule::Reshape: return reshapeLayout(result, v->type.shape);
    case LayoutRule::Permute: return permuteOperand(result, op.listAttr("order"));
    case LayoutRule::Source: case LayoutRule::Reduce: case LayoutRule::Combine: case LayoutRule::Dot: case LayoutRule::Store:
    case LayoutRule::Convert: case LayoutRule::ControlFlow: case LayoutRule::Terminator: case LayoutRule::Free:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Layout> resultFromOperand(const ir::Op& op, unsigned i, const Layout& operand) {
  if (op.numResults() < 1 || !isTile(op.result()) || !isTile(op.operand(i))) return std::nullopt;
  switch (layoutRuleOf(op.opcode)) {
    case LayoutRule::Elementwise:
    case LayoutRule::Load:
      return operand;
    case LayoutRule::Exchange:
      if (op.opcode == Opcode::Gather && i == 1) return operand;
      return std::nullopt;
    case LayoutRule::ExpandDims: return expandDimsResult(operand, int(op.intAttr("axis")));
    case LayoutRule::Reshape: return reshapeLayout(operand, op.result()->type.shape);
    case LayoutRule::Permute: return permuteResult(operand, op.listAttr("order"));
    case LayoutRule::Reduce: return layout::sliceLayout(operand, int(op.intAttr("axis")));
    case LayoutRule::Broadcast: case LayoutRule::Source: case LayoutRule::Combine: case LayoutRule::Dot: case LayoutRule::Store:
    case LayoutRule::Convert: case LayoutRule::ControlFlow: case LayoutRule::Terminator: case LayoutRule::Free:
      return std::nullopt;
  }
  return std::nullopt;
}

Layout combineOperand(const ir::Op& op, const Layout& first) {
  const int axis = int(op.intAttr("axis"));
  if (layout::axisBits(first, axis)) return first;
  Layout d = defaultLayout(op.operand(0)->type.shape, first.getInDimSize(layout::kWarp));
  if (!layout::axisBits(d, axis))
    throw InternalError(op.loc, "layout assignment: the default layout " + d.str() + " does not hold axis " +
                                    std::to_string(axis) + " in order");
  return d;
}

Layout combineResult(const ir::Op& op, const Layout& operand) {
  const int axis = int(op.intAttr("axis"));
  if (op.opcode == Opcode::Sort) {
    const int64_t k = op.result()->type.shape.at(size_t(axis));
    return k == op.operand(0)->type.shape.at(size_t(axis)) ? operand : layout::truncateDim(operand, axis, int32_t(k));
  }
  return op.opcode == Opcode::Scan ? operand : layout::sliceLayout(operand, axis);
}

std::vector<int32_t> coalescedOrder(const analysis::AxisInfo& info) {
  std::vector<int32_t> order(size_t(info.dims()), 0);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    int64_t ca = info.contiguity[size_t(a)], cb = info.contiguity[size_t(b)];
    return ca != cb ? ca > cb : a > b;
  });
  return order;
}

Layout coalescedLayout(const ir::Value* ptr, const analysis::AxisInfoAnalysis& axis, int numWarps) {
  const std::vector<int64_t>& shape = ptr->type.shape;
  const std::vector<int32_t> order = coalescedOrder(axis.get(ptr));
  int64_t numel = ptr->type.numel();
  int64_t perThread = std::max<int64_t>(1, numel / (int64_t(32) * numWarps));
  int64_t vec = std::max<int64_t>(1, std::min(axis.vectorElements(ptr, order[0]), perThread));
  return layout::defaultBlocked(shape, numWarps, int32_t(vec), order);
}

Layout defaultLayout(const std::vector<int64_t>& shape, int numWarps) {
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  int64_t vec = std::clamp<int64_t>(numel / (int64_t(32) * numWarps), 1, 4);
  return layout::defaultBlocked(shape, numWarps, int32_t(vec), layout::rowMajorOrder(int(shape.size())));
}

const Layout& layoutOf(const ir::Value* v, const ir::Op& op) {
  if (!v->type.layout)
    throw InternalError(op.loc, std::string("GPU IR contract: a tile of '") + op.name() + "' has no layout: " +
                                    v->type.str());
  return *v->type.layout;
}

LayoutRef LayoutPool::intern(const Layout& l) {
  auto it = pool_.find(l);
  if (it != pool_.end()) return it->second;
  auto ref = std::make_shared<const Layout>(l);
  pool_.emplace(l, ref);
  return ref;
}

std::vector<Tie> tiesOf(ir::Op& op) {
  auto terminator = [&](ir::Block& b, Opcode want) -> ir::Op& {
    ir::Op* t = b.terminator();
    if (!t || t->opcode != want)
      throw InternalError(op.loc, std::string("layout assignment: a region of '") + op.name() + "' does not end with " +
                                      ir::info(want).spelling);
    return *t;
  };
  std::vector<Tie> ties;
  if (op.opcode == Opcode::For) {
    ir::Op& y = terminator(op.region(0), Opcode::Yield);
    for (unsigned i = 0; i < op.numResults(); ++i)
      ties.push_back(Tie{{op.result(i), op.region(0).arg(i + 1)}, {&op, &y}, {3 + i, i}});
  } else if (op.opcode == Opcode::If) {
    ir::Op& t = terminator(op.region(0), Opcode::Yield);
    ir::Op& e = terminator(op.region(1), Opcode::Yield);
    for (unsigned i = 0; i < op.numResults(); ++i) ties.push_back(Tie{{op.result(i)}, {&t, &e}, {i, i}});
  } else if (op.opcode == Opcode::While) {
    ir::Op& c = terminator(op.region(0), Opcode::Condition);
    ir::Op& y = terminator(op.region(1), Opcode::Yield);
    for (unsigned i = 0; i < op.numOperands(); ++i) ties.push_back(Tie{{op.region(0).arg(i)}, {&op, &y}, {i, i}});
    for (unsigned j = 0; j < op.numResults(); ++j)
      ties.push_back(Tie{{op.region(1).arg(j), op.result(j)}, {&c}, {j + 1}});
  } else {
    throw InternalError(op.loc, std::string("tiesOf: '") + op.name() + "' is not for, if or while");
  }
  return ties;
}

}  // namespace kiln::lower::assign
