// The transfer function of the axis-info analysis: one case per op of ops.def (no default, so a
// new op must say what it knows). Shape, memory and hint ops are here; arithmetic is in axis_arith.
#include <algorithm>

#include "analysis/axis_lattice.h"
#include "analysis/axis_rules.h"
#include "ir/scalar_eval.h"
#include "support/diagnostic.h"

namespace kiln::analysis::rules {

using namespace lattice;

namespace {

size_t I(int d) { return size_t(d); }

AxisInfo constantOp(const ir::Op& op, const ir::Type& t) {
  const ir::AttrValue* v = op.findAttr("value");
  if (t.isInt() && v && std::holds_alternative<int64_t>(*v))
    return constantOf(t, ir::normalize(t.elem, ir::intElem(std::get<int64_t>(*v))).i);
  return uniform(t, 1, false);  // a float splat: constant everywhere, nothing else
}

AxisInfo arange(const ir::Op& op, const ir::Type& t) {
  int64_t start = op.intAttr("start"), size = dimSize(t, 0);
  if (size == 1) return constantOf(t, start);
  AxisInfo x = conservative(t);
  x.contiguity[0] = size;
  x.divisibility[0] = pow2Divisor(start);
  x.nonNegative = start >= 0;
  return x;
}

AxisInfo broadcast(const AxisInfo& in, const ir::Type& from, const ir::Type& to) {
  AxisInfo x = in;
  for (int d = 0; d < to.rank(); ++d)
    if (from.shape[I(d)] == 1 && to.shape[I(d)] != 1) {
      // Every element along d is the one element of the operand: divisibility (which held for
      // all elements, the operand's run being 1 long) stays.
      x.contiguity[I(d)] = 1;
      x.constancy[I(d)] = runCap(to.shape[I(d)]);
    }
  return x;
}

AxisInfo expandDims(const AxisInfo& in, const ir::Type& from, const ir::Type& to, int64_t axis) {
  if (!from.isTensor()) return splat(in, to);
  AxisInfo x = in;
  auto at = [&](std::vector<int64_t>& v, int64_t val) { v.insert(v.begin() + axis, val); };
  at(x.contiguity, 1);
  at(x.constancy, 1);
  at(x.divisibility, elementDivisibility(in, unitOf(from)));  // the new dim's only index is 0
  return x;
}

// A reshape that only adds or drops dims of size 1 keeps the order of the other dims, so their
// facts move; any other reshape keeps what holds of every element.
AxisInfo reshape(const AxisInfo& in, const ir::Type& from, const ir::Type& to) {
  if (in.constant) return constantOf(to, *in.constant);
  int64_t unit = unitOf(from);
  AxisInfo x = conservative(to);
  int64_t every = elementDivisibility(in, unit);
  bool uniformTile = true;
  for (int d = 0; d < in.dims(); ++d) uniformTile &= in.constancy[I(d)] >= dimSize(from, d);
  for (int d = 0; d < x.dims(); ++d) {
    x.divisibility[I(d)] = every;
    if (uniformTile) x.constancy[I(d)] = runCap(dimSize(to, d));
  }
  std::vector<int> fromDims, toDims;
  for (int d = 0; d < from.rank(); ++d)
    if (from.shape[I(d)] != 1) fromDims.push_back(d);
  for (int d = 0; d < to.rank(); ++d)
    if (to.shape[I(d)] != 1) toDims.push_back(d);
  bool same = fromDims.size() == toDims.size();
  for (size_t i = 0; same && i < fromDims.size(); ++i) same = from.shape[I(fromDims[i])] == to.shape[I(toDims[i])];
  if (same)
    for (size_t i = 0; i < toDims.size(); ++i) {
      size_t f = I(fromDims[i]), r = I(toDims[i]);
      x.contiguity[r] = in.contiguity[f];
      x.constancy[r] = in.constancy[f];
      x.divisibility[r] = in.divisibility[f];
    }
  x.nonNegative = in.nonNegative;
  return x;
}

AxisInfo permute(const AxisInfo& in, const std::vector<int64_t>& order) {
  AxisInfo x = in;
  for (size_t d = 0; d < order.size(); ++d) {
    size_t from = size_t(order[d]);
    x.contiguity[d] = in.contiguity.at(from);
    x.constancy[d] = in.constancy.at(from);
    x.divisibility[d] = in.divisibility.at(from);
  }
  return x;
}

// Reducing along `axis` keeps the constancy of the other dims (equal columns reduce to equal
// values); sums, maxima and minima of multiples of D are multiples of D.
AxisInfo reduce(const ir::Op& op, const AxisInfo& in, const ir::Type& t) {
  AxisInfo x = conservative(t);
  size_t axis = size_t(op.intAttr("axis"));
  const std::string& kind = op.strAttr("kind");
  bool isArg = kind == "argmax" || kind == "argmin";
  int64_t every = isArg ? 1 : elementDivisibility(in, 1);
  if (t.isTensor())
    for (size_t d = 0, r = 0; d < size_t(in.dims()); ++d) {
      if (d == axis) continue;
      x.constancy[r] = in.constancy[d];
      x.divisibility[r] = every;
      ++r;
    }
  else
    x.divisibility[0] = every;
  x.nonNegative = isArg || in.nonNegative;
  return x;
}

// Hints are the kernel author's promise (tl.multiple_of / tl.max_contiguous): taken as given, in
// the analysis' sense (the divisibility of each run's first element), as Triton does.
AxisInfo hint(const ir::Op& op, const AxisInfo& in, const ir::Type& t) {
  AxisInfo x = in;
  const std::vector<int64_t>& values = op.listAttr("values");
  for (int d = 0; d < x.dims() && size_t(d) < values.size(); ++d) {
    int64_t v = values[I(d)];
    if (v <= 0) continue;
    if (op.opcode == ir::Opcode::MultipleOf)
      x.divisibility[I(d)] = std::max(x.divisibility[I(d)], pow2Divisor(v));
    else
      x.contiguity[I(d)] = std::max(x.contiguity[I(d)], std::min(pow2Divisor(v), runCap(dimSize(t, d))));
  }
  return x;
}

[[noreturn]] void noResult(const ir::Op& op) {
  throw InternalError(op.loc, std::string("axis info: '") + op.name() + "' has no single result to analyse");
}

}  // namespace

AxisInfo transfer(const ir::Op& op, const std::vector<const AxisInfo*>& in) {
  using ir::Opcode;
  if (op.numResults() != 1) noResult(op);
  const ir::Type& t = op.result(0)->type;
  auto T = [&](unsigned i) -> const ir::Type& { return op.operand(i)->type; };
  if (std::optional<int64_t> c = foldInt(op, in); c && t.isInt()) return constantOf(t, *c);
  const bool isInt = t.isInt();
  switch (op.opcode) {
    case Opcode::Constant: return constantOp(op, t);
    case Opcode::ProgramId:
    case Opcode::NumPrograms: return uniform(t, 1, true);
    case Opcode::Arange: return arange(op, t);

    case Opcode::Splat: return splat(*in[0], t);
    case Opcode::Broadcast: return broadcast(*in[0], T(0), t);
    case Opcode::ExpandDims: return expandDims(*in[0], T(0), t, op.intAttr("axis"));
    case Opcode::Reshape: return reshape(*in[0], T(0), t);
    case Opcode::Permute: return permute(*in[0], op.listAttr("order"));

    case Opcode::Cast: return convert(false, *in[0], T(0), t);
    case Opcode::Bitcast: return convert(true, *in[0], T(0), t);

    case Opcode::Add: return isInt ? addSub(false, *in[0], *in[1], t) : elementwise(in, t);
    case Opcode::Sub: return isInt ? addSub(true, *in[0], *in[1], t) : elementwise(in, t);
    case Opcode::Mul: return isInt ? mul(*in[0], *in[1], t) : elementwise(in, t);
    case Opcode::Div: return isInt ? div(*in[0], *in[1], t) : elementwise(in, t);
    case Opcode::Rem: return isInt ? rem(*in[0], *in[1], t) : elementwise(in, t);
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor: return bitwise(op.opcode, *in[0], *in[1], t);
    case Opcode::Shl: return shift(true, *in[0], *in[1], t);
    case Opcode::Shr: return shift(false, *in[0], *in[1], t);
    case Opcode::Min: return isInt ? minMax(true, *in[0], *in[1], t) : elementwise(in, t);
    case Opcode::Max: return isInt ? minMax(false, *in[0], *in[1], t) : elementwise(in, t);
    case Opcode::Neg:
    case Opcode::Not:
    case Opcode::Abs: return isInt ? unary(op.opcode, *in[0], t) : elementwise(in, t);
    case Opcode::UMulHi:
    case Opcode::Clz: case Opcode::Popc: case Opcode::Brev: case Opcode::MulHi: case Opcode::BytePerm:
    KILN_MATH_OPCODE_CASES: return elementwise(in, t);

    case Opcode::Cmp: return cmp(op, *in[0], *in[1]);
    case Opcode::Select: {
      AxisInfo cond = T(0).isTensor() || !t.isTensor() ? *in[0] : splat(*in[0], t.withElem(ir::Scalar::I1));
      return select(cond, *in[1], *in[2], t);
    }

    case Opcode::PtrAdd: return ptrAdd(*in[0], *in[1], t);
    case Opcode::Load: case Opcode::AtomicRmw: case Opcode::AtomicCas:
      return conservative(t);  // memory holds anything
    case Opcode::Reduce: return reduce(op, *in[0], t);
    case Opcode::Dot: case Opcode::Gather: case Opcode::Histogram: return conservative(t);
    case Opcode::Sort: return conservative(t);  // the elements move

    case Opcode::MultipleOf:
    case Opcode::MaxContiguous: return hint(op, *in[0], t);
    case Opcode::ConvertLayout: return *in[0];  // the same values in other registers

    case Opcode::Store: case Opcode::For: case Opcode::If: case Opcode::While: case Opcode::Yield:
    case Opcode::Condition: case Opcode::Return: case Opcode::Assert: case Opcode::Print: case Opcode::DebugBarrier:
      noResult(op);
    case Opcode::InlineAsm: noResult(op);  // axis_info.cpp gives every result nothing known
    // Several results whose values the combine region decides: axis_info.cpp gives them all ones.
    case Opcode::ReduceCombine: case Opcode::Scan: noResult(op);

    // GPU schedule ops: buffers and what comes back from shared memory or the tensor cores hold anything.
    case Opcode::SharedAlloc: case Opcode::SharedSlot: case Opcode::SharedPermute: case Opcode::LocalLoad: case Opcode::Mma: case Opcode::ExtractSlice:
      return conservative(t);
    case Opcode::LocalStore: case Opcode::AsyncCopy: case Opcode::AsyncCommit: case Opcode::AsyncWait:
    case Opcode::Barrier: case Opcode::FenceAsyncShared: case Opcode::MbarrierInit: case Opcode::MbarrierArrive: case Opcode::MbarrierExpectTx:
    case Opcode::AsyncCopyArrive: case Opcode::WarpgroupTurn:
    case Opcode::MbarrierWait: case Opcode::MmaWait: case Opcode::WarpPartition: case Opcode::TensorMap: case Opcode::TmaLoad: case Opcode::TmaStore: case Opcode::TmaStoreWait:
      noResult(op);  // no result, or several (mma_wait: axis_info.cpp passes its operands' facts through)
  }
  noResult(op);
}

}  // namespace kiln::analysis::rules
