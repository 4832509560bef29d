// Whether lanes past a bound reach memory (lane_reach.h).
#include "schedule/lane_reach.h"

#include <functional>
#include <optional>

#include "schedule/pointer_box.h"

namespace kiln::schedule {

using ir::Opcode;
using ir::Value;

namespace {

using Axes = uint32_t;  // the dims of a tile along which the followed lanes lie, one bit each

bool sameShape(const Value* a, const Value* b) { return a->type.isTensor() && a->type.shape == b->type.shape; }

// Element-wise in the sense that matters here: each result lane is computed from the same lane of the
// operands (shapes equal).
bool lanewise(const ir::Op& op) {
  if (ir::isElementwise(op.opcode)) return true;
  switch (ir::familyOf(op.opcode)) {
    case ir::Family::Cast: case ir::Family::Layout: case ir::Family::Hint: return true;
    default: return false;
  }
}

}  // namespace

LaneReach::LaneReach(const ir::Function& fn) {
  std::function<void(const ir::Block&)> visit = [&](const ir::Block& b) {
    for (const auto& op : b.ops) {
      for (unsigned i = 0; i < op->numOperands(); ++i) uses_[op->operand(i)].push_back(Use{op.get(), i});
      for (const auto& r : op->regions) visit(*r);
    }
  };
  visit(fn.body);
}

bool LaneReach::pastBoundUnwritten(const ir::Op& loop, const ir::Value& loaded, int dim, const ScalarForm& start,
                                   const ScalarForm& bound) const {
  std::unordered_map<const Value*, Axes> followed;
  std::vector<const Value*> work;
  auto follow = [&](const Value* v, Axes axes) {
    if (!axes) return;
    Axes& known = followed[v];
    if ((known | axes) == known) return;
    known |= axes;
    work.push_back(v);
  };
  // Whether a store's mask keeps every lane past the bound along `axes` from being written.
  auto masked = [&](const Value* mask, Axes axes) {
    for (const std::optional<IndexBound>& c : maskConjuncts(loop, mask))
      if (c && c->index.start == start && c->bound == bound) axes &= ~(Axes(1) << c->index.dim);
    return axes == 0;
  };

  follow(&loaded, Axes(1) << dim);
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    const Axes axes = followed.at(v);
    auto it = uses_.find(v);
    if (it == uses_.end()) continue;
    for (const Use& u : it->second) {
      const ir::Op& op = *u.op;
      if (lanewise(op)) {
        for (const auto& r : op.results) {
          if (!sameShape(r.get(), v)) return false;
          follow(r.get(), axes);
        }
        continue;
      }
      switch (op.opcode) {
        case Opcode::Dot: {  // a's rows and b's columns are the product's; the reduced dim mixes lanes
          const int rank = v->type.rank();
          const Axes reduced = u.operand == 0 ? Axes(1) << (rank - 1) : u.operand == 1 ? Axes(1) << (rank - 2) : 0;
          if (axes & reduced) return false;
          follow(op.result(0), axes);
          break;
        }
        case Opcode::For:  // an initial value of a loop-carried one
          if (u.operand < 3) return false;
          follow(op.region(0).arg(u.operand - 2), axes);
          follow(op.result(u.operand - 3), axes);
          break;
        case Opcode::Yield: {
          const ir::Op* owner = op.parentOp();
          if (!owner || (owner->opcode != Opcode::For && owner->opcode != Opcode::If)) return false;
          if (owner->opcode == Opcode::For) follow(owner->region(0).arg(u.operand + 1), axes);
          follow(owner->result(u.operand), axes);
          break;
        }
        case Opcode::Reduce: {  // along another dim (a row sum of the product): the lanes move down past it
          const int axis = int(op.intAttr("axis"));
          if (!op.regions.empty() || op.numResults() != 1 || (axes >> axis) & 1) return false;
          const Axes below = axes & ((Axes(1) << axis) - 1);
          follow(op.result(0), below | ((axes >> (axis + 1)) << axis));
          break;
        }
        case Opcode::ExpandDims: {  // a new size-1 dim: the lanes past it move up
          const int axis = int(op.intAttr("axis"));
          const Axes below = axes & ((Axes(1) << axis) - 1);
          follow(op.result(0), below | ((axes >> axis) << (axis + 1)));
          break;
        }
        case Opcode::Broadcast:  // size-1 dims spread: the followed ones (of their own size) stay
          for (size_t d = 0; d < v->type.shape.size(); ++d)
            if ((axes >> d) & 1 && v->type.shape[d] != op.result(0)->type.shape[d]) return false;
          follow(op.result(0), axes);
          break;
        case Opcode::Store:
          if (u.operand != 1 || op.numOperands() < 3 || !masked(op.operand(2), axes)) return false;
          break;
        default:
          return false;
      }
    }
  }
  return true;
}

}  // namespace kiln::schedule
