// Which loads of a `for` loop the pipeline pass takes (see pipeline_loads.h).
#include <algorithm>
#include <map>
#include <optional>
#include <functional>
#include <set>

#include "analysis/access_plan.h"
#include "ir/constant_zero.h"
#include "schedule/pipeline_loads.h"

namespace kiln::schedule {

using ir::Opcode;

namespace {

// Ops a load's address and mask may be computed with, to be lowered again for a later iteration: pure
// and cheap. Loads, stores, dots, reductions and control flow are not. A layout conversion is: layout
// assignment puts one into an address where two loads share an index tile in different layouts (a
// 1x64 column index broadcast over A's 128 rows and B's 256 at 8 warps), and the slice's op limit keeps
// it to small tiles.
bool recomputable(Opcode op) {
  if (op == Opcode::ConvertLayout) return true;
  switch (ir::familyOf(op)) {
    case ir::Family::Constant: case ir::Family::Index: case ir::Family::Shape: case ir::Family::Cast:
    case ir::Family::Arith: case ir::Family::Bitwise: case ir::Family::Compare: case ir::Family::Pointer:
    case ir::Family::Hint:
      return true;
    case ir::Family::Math:  // one instruction, unlike the rest of its family
      return op == Opcode::Fma;
    case ir::Family::Memory: case ir::Family::Reduce: case ir::Family::Dot: case ir::Family::Exchange:
    case ir::Family::Control:
    case ir::Family::Terminator: case ir::Family::Assert: case ir::Family::Asm: case ir::Family::Layout: case ir::Family::Shared: case ir::Family::Async:
    case ir::Family::Sync: case ir::Family::Mma: case ir::Family::Partition:
      return false;
  }
  return false;
}

constexpr size_t kMaxSliceOps = 64;  // a longer address computation is not worth lowering twice

// Whether `v` is defined inside `body` (as an argument or by an op at any depth below it).
bool inside(const ir::Value* v, const ir::Block& body) {
  const ir::Block* b = v->def ? v->def->parent : v->owner;
  while (b) {
    if (b == &body) return true;
    b = b->parentOp ? b->parentOp->parent : nullptr;
  }
  return false;
}

void countUses(const ir::Block& b, const ir::Value* v, std::vector<const ir::Op*>& users) {
  for (const auto& op : b.ops) {
    if (std::count(op->operands.begin(), op->operands.end(), v)) users.push_back(op.get());
    for (const auto& r : op->regions) countUses(*r, v, users);
  }
}

// The advancing description of body argument `k + 1`, when the body yields it advanced.
std::optional<Advancing> advancingArg(const ir::Block& body, const ir::Op& yield, unsigned k) {
  const ir::Value* arg = body.arg(k + 1);
  const ir::Value* y = yield.operand(k);
  const ir::Op* d = y->def;
  if (!d || d->parent != &body) return std::nullopt;
  // The advanced value may start from the argument through hints on it (`tl.multiple_of(ptrs, ...)`
  // at the top of the body, which the frontend binds the name to).
  const ir::Value* from = d->operand(0);
  while (from != arg && from->def && from->def->parent == &body && ir::familyOf(from->def->opcode) == ir::Family::Hint)
    from = from->def->operand(0);
  if (from != arg) return std::nullopt;
  if (d->opcode != Opcode::PtrAdd && d->opcode != Opcode::Add) return std::nullopt;
  const ir::Value* step = d->operand(1);
  if (inside(step, body) || !analysis::isUniform(step) || !ir::isInt(step->type.elem) || step->type.elem == ir::Scalar::I1)
    return std::nullopt;
  if (d->opcode == Opcode::Add && (!ir::isInt(arg->type.elem) || arg->type.isPtr())) return std::nullopt;
  return Advancing{arg, step, d->opcode == Opcode::PtrAdd};
}

}  // namespace

int pipelineStages(const ir::Op& forOp, int defaultStages) {
  return int(forOp.intAttrOr("num_stages", defaultStages));
}


LoopLoads findPipelineLoads(const ir::Op& forOp) {
  LoopLoads out;
  if (forOp.opcode != Opcode::For || forOp.regions.empty()) return out;
  const ir::Block& body = forOp.region(0);
  const ir::Op* yield = body.terminator();
  if (!yield || yield->opcode != Opcode::Yield || body.numArgs() != yield->numOperands() + 1) return out;

  // Loads that feed tl.dot pipeline in every loop; others only where the loop asks for it
  // (tl.range(..., num_stages=)), as in Triton: they take a round trip through shared memory.
  const bool asked = forOp.hasAttr("num_stages");
  for (const auto& opPtr : body.ops) {
    const ir::Op& load = *opPtr;
    if (load.opcode != Opcode::Load || !load.result(0)->type.isTensor()) continue;
    const ir::Value* res = load.result(0);
    if (res->type.elem == ir::Scalar::I1 || ir::bitWidth(res->type.elem) > 32) continue;
    std::vector<const ir::Op*> users;
    countUses(body, res, users);
    // A transposed operand (`b.T`): the dots read the load through a permute of its two dims.
    const ir::Op* permute = nullptr;
    if (users.size() == 1 && users[0]->opcode == Opcode::Permute && users[0]->parent == &body && res->type.rank() == 2) {
      permute = users[0];
      users.clear();
      countUses(body, permute->result(0), users);
    }
    const ir::Value* operand = permute ? permute->result(0) : res;
    const ir::Op* convert = users.size() == 1 && users[0]->opcode == Opcode::ConvertLayout && users[0]->parent == &body
                                ? users[0] : nullptr;
    // Dots that read the load (or its permute) in its own layout (wgmma's B, read from shared memory).
    if (!convert && !users.empty() &&
        std::all_of(users.begin(), users.end(), [&](const ir::Op* u) { return u->opcode == Opcode::Dot && u->parent == &body; }))
      convert = operand->def;
    bool feedsDot = convert != nullptr;
    if (convert) {
      std::vector<const ir::Op*> dots;
      countUses(body, convert->result(0), dots);
      feedsDot = !dots.empty();
      for (const ir::Op* u : dots)
        feedsDot = feedsDot && u->opcode == Opcode::Dot && u->operand(2) != convert->result(0);
    }
    // A dot operand is read from its slot by ldmatrix, so masked-off elements must be the zeros cp.async
    // fills in; a load read back into registers takes its `other` with a select.
    if (feedsDot && load.numOperands() > 2 && !ir::isConstantZero(load.operand(2), ir::SignedZero::PositiveOnly)) feedsDot = false;
    if (!feedsDot && (!asked || permute)) continue;  // a permute is taken only on its way to a dot
    if (!feedsDot) convert = nullptr;

    // The backward slice of the pointer and the mask inside the body.
    std::set<const ir::Op*> slice;
    std::vector<Advancing> advancing;
    bool ok = true, readsIv = false;
    std::function<void(const ir::Value*)> visit = [&](const ir::Value* v) {
      if (!ok || !inside(v, body)) return;
      if (v == body.arg(0)) {
        readsIv = true;
        return;
      }
      if (v->isBlockArg()) {
        if (v->owner != &body) {
          ok = false;
          return;
        }
        std::optional<Advancing> a = advancingArg(body, *yield, v->index - 1);
        if (!a) ok = false;
        else if (std::none_of(advancing.begin(), advancing.end(), [&](const Advancing& x) { return x.arg == v; }))
          advancing.push_back(*a);
        return;
      }
      const ir::Op* d = v->def;
      if (d->parent != &body || !recomputable(d->opcode)) {
        ok = false;
        return;
      }
      if (!slice.insert(d).second) return;
      if (slice.size() > kMaxSliceOps) {
        ok = false;
        return;
      }
      for (const ir::Value* o : d->operands) visit(o);
    };
    visit(load.operand(0));
    if (load.numOperands() > 1) visit(load.operand(1));
    if (!ok) continue;
    // The TMA coordinates: recomputed like the address, or the load is copied with cp.async only.
    bool tmaCoords = load.hasAttr("tma");
    if (tmaCoords) {
      const std::set<const ir::Op*> sliceBefore = slice;
      const std::vector<Advancing> advancingBefore = advancing;
      const bool readsIvBefore = readsIv;
      for (unsigned k = 3; k < 3 + unsigned(load.intAttr("tma")); ++k) visit(load.operand(k));
      if (!ok) {
        slice = sliceBefore;
        advancing = advancingBefore;
        readsIv = readsIvBefore;
        ok = true;
        tmaCoords = false;
      }
    }

    PipelineCandidate c;
    c.load = &load;
    c.convert = convert;
    c.permute = permute;
    c.tmaCoords = tmaCoords;
    for (const auto& op : body.ops)
      if (slice.count(op.get())) c.slice.push_back(op.get());
    out.loads.push_back(std::move(c));
    out.readsInductionVariable = out.readsInductionVariable || readsIv;
    for (const Advancing& a : advancing)
      if (std::none_of(out.advancing.begin(), out.advancing.end(), [&](const Advancing& x) { return x.arg == a.arg; }))
        out.advancing.push_back(a);
  }
  return out;
}

DrivingDots drivingDots(const ir::Op& forOp, const LoopLoads& loads) {
  const ir::Block& body = forOp.region(0);
  std::map<const ir::Op*, size_t> position;
  for (size_t i = 0; i < body.ops.size(); ++i) position[body.ops[i].get()] = i;
  DrivingDots out;
  for (const PipelineCandidate& c : loads.loads) {
    if (!c.convert) return {};
    std::vector<const ir::Op*> users;
    countUses(body, c.convert->result(0), users);
    if (users.size() != 1 || users[0]->opcode != Opcode::Dot || users[0]->parent != &body) return {};
    const ir::Op* dot = users[0];
    if (dot->operand(0) != c.convert->result(0) && dot->operand(1) != c.convert->result(0)) return {};
    if (!out.last || position[dot] > position[out.last]) out.last = dot;
    if (!out.first || position[dot] < position[out.first]) out.first = dot;
  }
  return out;
}

}  // namespace kiln::schedule
