// pingpong: on sm_90a, the two warpgroups of an 8-warp CTA take turns at the tensor cores in a pipelined
// wgmma loop (attention after overlap_dots), as FlashAttention-3's "ping-pong" schedule does: while one
// warpgroup's dots run, the other one runs its softmax. Without it both warpgroups issue their dots at
// the same moment (the pipeline's CTA barrier at the top of every iteration lines them up), wait for
// them together, and leave the tensor cores idle through the softmax they then run together.
//
// Turns need the warpgroups apart by half an iteration, so no CTA barrier may stay in the loop: the
// pipeline's "every thread's copies landed, every thread is done with the slot" barrier becomes two
// mbarriers per slot. Every thread's copies arrive on the slot's "full" barrier when they land
// (cp.async.mbarrier.arrive.noinc), and each warp arrives on its "empty" barrier once its dots read the
// slot. The copies move up to right after the dots (a warpgroup's copies for iteration j + S - 1 must
// not wait until its softmax of j is over: the other warpgroup needs them by its turn j + S - 1):
//
//   before the loop   mbarrier_init full[s] (every thread), empty[s] (every warp); barrier
//                     prologue copies of iterations 0 .. S-2, each group then async_copy_arrive full[k]
//                     warpgroup_turn start               (warpgroup 0 goes first)
//   iteration j       mbarrier_wait full[j mod S], parity (j / S) & 1; fence_async_shared
//                     warpgroup_turn wait; the dots (Q K_j, P V_j-1); warpgroup_turn pass
//                     mbarrier_wait empty[(j - 1) mod S] (every warp is done with iteration j - 1's slot)
//                     the copies of iteration j + S - 1 into it; async_commit; async_copy_arrive full[..]
//                     mma_wait {0}; mbarrier_arrive empty[j mod S] {per_warp}
//                     the softmax and the rest of the body (its own waits now find the dots done)
//   after the loop    warpgroup_turn end; mbarrier_wait on the S - 1 full phases still in flight
//
// A loop copied by TMA (tma_versioning.h: attention's K and V from per-head bases) keeps the pipeline's
// full barriers, completed by thread 0's copies, and its drain; only its CTA barrier goes, the empty
// barriers join, and its tma_loads move up behind the dots (no fence: TMA writes through the async proxy
// wgmma reads).
//
// The wait for the dots right after the copies costs nothing the warpgroup had: ptxas already places the
// P V product's wait before the softmax's exponentials (docs/hopper.md), and the other warpgroup's dots
// now fill the tensor cores meanwhile.
//
// The loop qualifies when it is the pipeline's (its body starts with the pipeline's wait, fence and
// barrier, or a TMA loop's full wait and barrier; one commit group or only tma_loads; slots of
// pipelined buffers read only by its dots), at the top level of the kernel (not in another loop, no
// warp partition), every dot a wgmma of warps [8, 1] (each warpgroup its
// own rows) reading B from a slot, and nothing else in it crossing warps (no barrier, no shared-memory
// access, no op that stages data through scratch).
#include <algorithm>
#include <set>

#include "ir/constant_zero.h"
#include "layout/named_layouts.h"
#include "schedule/schedule.h"
#include "schedule/scratch_size.h"

namespace kiln::schedule {

namespace {

using ir::Op;
using ir::Opcode;
using ir::Scalar;
using ir::Type;
using ir::Value;

constexpr int64_t kTurnBarrier = 1;  // named barriers 1 and 2: warpgroup w waits at 1 + w
constexpr int kWarps = 8;
// Taking turns costs two named barriers per iteration and the overlap of a warpgroup's own P V product
// with its softmax; it pays when a turn keeps the tensor cores busy long enough: per row of the
// warpgroup, the loop's dots multiply-add at least this many times (BLOCK_N x HEAD_DIM summed over the
// two dots). Measured on the H200 (bench/results/2026-12-04-h200-pingpong.md): 128x128 blocks at D128
// 12% faster, causal 10%, at D64 5%; 128x64 at D128 level (9% causal); 128x64 at D64 (2 x 4096) 3% slower.
constexpr int64_t kMinTurnWork = 16384;

struct Plan {
  Op* loop = nullptr;
  bool tma = false;               // the copies are tma_loads: the slots' full barriers are the pipeline's
  Op *firstMma = nullptr, *lastMma = nullptr;
  Op* commit = nullptr;           // the copies' last op: their async_commit, or the last tma_load
  Value* phase = nullptr;         // a TMA loop's body argument: the parity of its slot's full barrier
  std::vector<Op*> copies;        // the body's async_copy (or tma_load) ops
  std::vector<Op*> moved;         // the ops moved up behind the dots: the copies, their commit, what they read
  std::vector<Op*> prologue;      // the async_commits before the loop, slot k's k-th
  Op* firstPrologueCopy = nullptr;
  Value* readSlot = nullptr;      // body argument: the slot iteration j reads
  Value* writeSlot = nullptr;     // the slot its copies fill: (j - 1) mod S
  int64_t stages = 0;
};

bool nestedInLoop(const Op& op) {
  for (const Op* p = op.parentOp(); p; p = p->parentOp())
    if (p->opcode == Opcode::For || p->opcode == Opcode::While || p->opcode == Opcode::WarpPartition) return true;
  return false;
}

// The pipelined buffer and index of a slot value, or nothing.
std::optional<std::pair<const Op*, Value*>> pipelinedSlot(const Value* v) {
  const Op* slot = v->def;
  while (slot && slot->opcode == Opcode::SharedPermute) slot = slot->operand(0)->def;
  if (!slot || slot->opcode != Opcode::SharedSlot) return std::nullopt;
  const Op* buffer = slot->operand(0)->def;
  if (!buffer || buffer->opcode != Opcode::SharedAlloc || !buffer->intAttrOr("pipelined", 0)) return std::nullopt;
  return std::make_pair(buffer, slot->operand(1));
}

// `v` is `slot == 0 ? stages - 1 : slot - 1` (the pipeline's slotBefore).
bool isSlotBefore(const Value* v, const Value* slot, int64_t stages) {
  const Op* sel = v->def;
  if (!sel || sel->opcode != Opcode::Select || ir::scalarIntConstant(sel->operand(1)) != stages - 1) return false;
  const Op *cmp = sel->operand(0)->def, *sub = sel->operand(2)->def;
  return cmp && cmp->opcode == Opcode::Cmp && cmp->strAttr("pred") == "eq" && cmp->operand(0) == slot &&
         ir::scalarIntConstant(cmp->operand(1)) == 0 && sub && sub->opcode == Opcode::Sub && sub->operand(0) == slot &&
         ir::scalarIntConstant(sub->operand(1)) == 1;
}

bool crossesWarps(const Op& op, const GpuContext& ctx) {
  switch (op.opcode) {
    case Opcode::Barrier: case Opcode::DebugBarrier: case Opcode::LocalStore: case Opcode::LocalLoad:
    case Opcode::AsyncWait: case Opcode::AsyncCopyArrive: case Opcode::TmaLoad: case Opcode::TmaStore:
    case Opcode::TmaStoreWait: case Opcode::MbarrierInit: case Opcode::MbarrierArrive: case Opcode::MbarrierExpectTx:
    case Opcode::MbarrierWait: case Opcode::WarpgroupTurn: case Opcode::SharedAlloc: case Opcode::AtomicRmw:
    case Opcode::AtomicCas:
      return true;
    default:
      return !op.regions.empty() || op.hasAttr("scratch") || scratchUse(op, kWarps, ctx.target).bytes > 0;
  }
}

// The ops after the dots that the copies need, to move up with them: pure ops only (moving a
// definition earlier keeps every later use valid), else nothing.
std::optional<std::vector<Op*>> copySlice(const Plan& p) {
  const ir::Block& body = p.loop->region(0);
  std::set<const Op*> take(p.copies.begin(), p.copies.end());
  take.insert(p.commit);
  const size_t after = body.indexOf(p.lastMma);
  for (size_t i = body.indexOf(p.commit); i > after; --i) {
    const Op* op = body.ops[i].get();
    if (!take.count(op)) continue;
    for (const Value* v : op->operands)
      if (v->def && v->def->parent == &body && body.indexOf(v->def) > after) take.insert(v->def);
  }
  std::vector<Op*> out;
  for (size_t i = after + 1; i <= body.indexOf(p.commit); ++i) {
    Op* op = body.ops[i].get();
    if (!take.count(op)) continue;
    if (op->opcode != Opcode::AsyncCopy && op->opcode != Opcode::AsyncCommit && op->opcode != Opcode::TmaLoad &&
        op->info().effect != ir::Effect::Pure)
      return std::nullopt;
    out.push_back(op);
  }
  return out;
}

// The head of the pipeline's loop body: cp.async's `async_wait; fence_async_shared; barrier`, or TMA's
// `shared_slot (full barrier of the read slot); mbarrier_wait; barrier` (then the read slot and phase).
bool pipelineHead(const ir::Block& body, Plan& p) {
  if (body.ops.size() < 4 || body.ops[2]->opcode != Opcode::Barrier || !body.ops[2]->attrs.empty()) return false;
  const Op &first = *body.ops[0], &second = *body.ops[1];
  if (first.opcode == Opcode::AsyncWait) return second.opcode == Opcode::FenceAsyncShared;
  if (first.opcode != Opcode::SharedSlot || second.opcode != Opcode::MbarrierWait || second.operand(0) != first.result(0) ||
      !pipelinedSlot(first.result(0)))
    return false;
  p.tma = true;
  p.readSlot = first.operand(1);
  p.phase = second.operand(1);
  return p.phase->isBlockArg() && p.phase->owner == &body;
}

std::optional<Plan> planFor(Op& loop, const GpuContext& ctx) {
  if (nestedInLoop(loop)) return std::nullopt;
  ir::Block& body = loop.region(0);
  Plan p;
  p.loop = &loop;
  if (!pipelineHead(body, p)) return std::nullopt;
  std::set<const Op*> buffers;
  int64_t turnWork = 0;
  for (size_t i = 3; i + 1 < body.ops.size(); ++i) {
    Op& op = *body.ops[i];
    if (op.opcode == Opcode::Mma) {
      if (!op.intAttrOr("wgmma", 0) || op.listAttr("warps") != std::vector<int64_t>{kWarps, 1}) return std::nullopt;
      turnWork += op.result(0)->type.shape.at(1) * op.operand(0)->type.shape.at(1);
      for (unsigned k = 0; k < 2; ++k) {
        if (!op.operand(k)->type.isShared()) {
          if (k == 1) return std::nullopt;  // a B in registers is staged through scratch
          continue;
        }
        std::optional<std::pair<const Op*, Value*>> s = pipelinedSlot(op.operand(k));
        if (!s) continue;  // a buffer written before the loop (stage_operands' Q)
        if (p.readSlot && p.readSlot != s->second) return std::nullopt;
        p.readSlot = s->second;
        buffers.insert(s->first);
      }
      if (!p.firstMma) p.firstMma = &op;
      if (p.commit) return std::nullopt;  // a dot after the copies
      p.lastMma = &op;
    } else if (op.opcode == (p.tma ? Opcode::TmaLoad : Opcode::AsyncCopy)) {
      std::optional<std::pair<const Op*, Value*>> s = pipelinedSlot(op.operand(0));
      if (!s || (p.commit && !p.tma) || (p.writeSlot && p.writeSlot != s->second)) return std::nullopt;
      p.writeSlot = s->second;
      buffers.insert(s->first);
      p.copies.push_back(&op);
      if (p.tma) p.commit = &op;
    } else if (op.opcode == Opcode::AsyncCommit && !p.tma) {
      if (p.commit) return std::nullopt;
      p.commit = &op;
    } else if (crossesWarps(op, ctx)) {
      return std::nullopt;
    }
  }
  if (turnWork < kMinTurnWork || !p.lastMma || !p.commit || p.copies.empty() || !p.readSlot || !p.readSlot->isBlockArg() ||
      p.readSlot->owner != &body)
    return std::nullopt;
  for (const Op* b : buffers) {
    if (p.stages && p.stages != b->result(0)->type.slots) return std::nullopt;
    p.stages = b->result(0)->type.slots;
  }
  if (p.stages < 2 || !isSlotBefore(p.writeSlot, p.readSlot, p.stages) ||
      ir::scalarIntConstant(loop.operand(p.readSlot->index + 2)) != 0)  // body argument k is the loop's operand k + 2
    return std::nullopt;
  if (p.tma) {  // the pipeline's full barriers stay: only the copies move
    std::optional<std::vector<Op*>> moved = copySlice(p);
    if (!moved) return std::nullopt;
    p.moved = std::move(*moved);
    return p;
  }
  // The prologue: S - 1 commit groups after the first copy into these buffers, in the loop's block.
  ir::Block& outer = *loop.parent;
  for (size_t i = 0; i < outer.indexOf(&loop); ++i) {
    Op& op = *outer.ops[i];
    if (op.opcode == Opcode::AsyncCopy && !p.firstPrologueCopy) {
      std::optional<std::pair<const Op*, Value*>> s = pipelinedSlot(op.operand(0));
      if (s && buffers.count(s->first)) p.firstPrologueCopy = &op;
    } else if (op.opcode == Opcode::AsyncCommit && p.firstPrologueCopy) {
      p.prologue.push_back(&op);
    }
  }
  if (!p.firstPrologueCopy || int64_t(p.prologue.size()) != p.stages - 1) return std::nullopt;
  std::optional<std::vector<Op*>> moved = copySlice(p);
  if (!moved) return std::nullopt;
  p.moved = std::move(*moved);
  return p;
}

class Rewrite {
 public:
  explicit Rewrite(const Plan& p) : p_(p), body_(p.loop->region(0)) {}

  void run() {
    const Type bars = Type::shared({1}, Scalar::I64, p_.stages,
                                   std::make_shared<const layout::LinearLayout>(layout::sharedPlain({1}, {0})));
    const ir::Attr pipelined{"pipelined", int64_t(1)};
    // (TMA: before the loop, after the pipeline's prologue copies, whose full barriers it initialised;
    // before its barrier there, if there is one, which then serves these too)
    Op* before = p_.tma ? p_.loop : p_.firstPrologueCopy;
    const ir::Block& outer = *p_.loop->parent;
    const size_t loopAt = outer.indexOf(p_.loop);
    const Op* last = loopAt > 0 ? outer.ops[loopAt - 1].get() : nullptr;
    Op* barrier = p_.tma && last && last->opcode == Opcode::Barrier && last->attrs.empty()
                      ? outer.ops[loopAt - 1].get()
                      : nullptr;
    b_.setInsertionPointBefore(barrier ? barrier : before);
    if (!p_.tma) full_ = b_.create1(Opcode::SharedAlloc, {}, bars, {pipelined}, loc());
    empty_ = b_.create1(Opcode::SharedAlloc, {}, bars, {pipelined}, loc());
    for (int64_t s = 0; s < p_.stages; ++s) {
      if (full_) b_.create(Opcode::MbarrierInit, {slot(full_, i32(s))}, {}, {ir::Attr{"count", int64_t(kWarps * 32)}}, loc());
      b_.create(Opcode::MbarrierInit, {slot(empty_, i32(s))}, {}, {ir::Attr{"count", int64_t(kWarps)}}, loc());
    }
    if (!barrier) b_.create(Opcode::Barrier, {}, {}, {}, loc());  // the mbarriers initialised, for every thread
    for (size_t k = 0; k < p_.prologue.size(); ++k) {
      b_.setInsertionPointAfter(p_.prologue[k]);
      b_.create(Opcode::AsyncCopyArrive, {slot(full_, i32(int64_t(k)))}, {}, {}, loc());
    }
    b_.setInsertionPointBefore(p_.loop);
    b_.create(Opcode::WarpgroupTurn, {}, {}, turn("start"), loc());

    Value* phaseOut = nullptr;
    if (p_.tma) {
      phase_ = p_.phase;
    } else {
      phase_ = body_.addArg(Type::scalar(Scalar::I32));
      p_.loop->operands.push_back(i32(0));
      phaseOut = p_.loop->addResult(Type::scalar(Scalar::I32));
    }
    rewriteBody();

    b_.setInsertionPointAfter(p_.loop);
    b_.create(Opcode::WarpgroupTurn, {}, {}, turn("end"), loc());
    if (p_.tma) return;  // (the pipeline's drain waits for the copies past the end)
    // Copies of the S - 1 iterations past the end are in flight: their arrivals complete before the
    // barriers' bytes may serve anything else.
    Value *at = p_.loop->result(p_.readSlot->index - 1), *phase = phaseOut;
    for (int64_t k = 0; k + 1 < p_.stages; ++k) {
      b_.create(Opcode::MbarrierWait, {slot(full_, at), phase}, {}, {}, loc());
      std::tie(at, phase) = advance(at, phase);
    }
  }

 private:
  const Plan& p_;
  ir::Block& body_;
  ir::Builder b_;
  Value *full_ = nullptr, *empty_ = nullptr, *phase_ = nullptr;

  const SourceLoc& loc() const { return p_.loop->loc; }
  Value* i32(int64_t v) { return b_.intConst(v, Type::scalar(Scalar::I32), loc()); }
  Value* slot(Value* buffer, Value* index) {
    return b_.create1(Opcode::SharedSlot, {buffer, index}, buffer->type.withSlots(1), {}, loc());
  }
  static std::vector<ir::Attr> turn(const char* step) {
    return {ir::Attr{"step", std::string(step)}, ir::Attr{"barrier", kTurnBarrier}};
  }
  Value* flip(Value* phase) { return b_.create1(Opcode::Xor, {phase, i32(1)}, Type::scalar(Scalar::I32), {}, loc()); }
  Value* cmpEq(Value* a, Value* b) {
    return b_.create1(Opcode::Cmp, {a, b}, Type::scalar(Scalar::I1), {ir::Attr{"pred", std::string("eq")}}, loc());
  }
  // The next slot, and the phase parity flipped when it wraps to 0.
  std::pair<Value*, Value*> advance(Value* at, Value* phase) {
    const Type i32t = Type::scalar(Scalar::I32);
    Value* n = b_.create1(Opcode::Add, {at, i32(1)}, i32t, {}, loc());
    Value* wraps = cmpEq(n, i32(p_.stages));
    Value* flipped = flip(phase);
    return {b_.create1(Opcode::Select, {wraps, i32(0), n}, i32t, {}, loc()),
            b_.create1(Opcode::Select, {wraps, flipped, phase}, i32t, {}, loc())};
  }

  void rewriteBody() {
    // The head: this iteration's slot is full (every thread's copies landed), visible to wgmma. A TMA
    // loop's wait stays: its copies wrote through the async proxy, which wgmma reads, so no fence.
    if (p_.tma) {
      body_.remove(body_.ops[2].get());
    } else {
      for (int k = 0; k < 3; ++k) body_.remove(body_.ops.front().get());
      b_.setInsertionPoint(body_, 0);
      b_.create(Opcode::MbarrierWait, {slot(full_, p_.readSlot), phase_}, {}, {}, loc());
      b_.create(Opcode::FenceAsyncShared, {}, {}, {}, loc());
    }
    b_.setInsertionPointBefore(p_.firstMma);
    b_.create(Opcode::WarpgroupTurn, {}, {}, turn("wait"), loc());
    b_.setInsertionPointAfter(p_.lastMma);
    b_.create(Opcode::WarpgroupTurn, {}, {}, turn("pass"), loc());
    // Every warp is done with iteration j - 1's slot (released in round (j - 1) / S) before it is refilled.
    Value* first = cmpEq(p_.readSlot, i32(0));
    Value* flipped = flip(phase_);
    Value* released = b_.create1(Opcode::Select, {first, flipped, phase_}, Type::scalar(Scalar::I32), {}, loc());
    b_.create(Opcode::MbarrierWait, {slot(empty_, p_.writeSlot), released}, {}, {}, loc());
    for (Op* op : p_.moved) {
      std::unique_ptr<Op> taken = body_.remove(op);
      body_.insert(b_.position(), std::move(taken));
      b_.setInsertionPoint(body_, b_.position() + 1);
    }
    if (!p_.tma) b_.create(Opcode::AsyncCopyArrive, {slot(full_, p_.writeSlot)}, {}, {}, loc());
    b_.create(Opcode::MmaWait, {}, {}, {ir::Attr{"pending", int64_t(0)}}, loc());
    b_.create(Opcode::MbarrierArrive, {slot(empty_, p_.readSlot)}, {}, {ir::Attr{"per_warp", int64_t(1)}}, loc());
    if (p_.tma) return;  // (the pipeline yields the next phase already)
    // The phase of the next iteration's slot.
    Op* yield = body_.terminator();
    b_.setInsertionPointBefore(yield);
    Value* wraps = cmpEq(b_.create1(Opcode::Add, {p_.readSlot, i32(1)}, Type::scalar(Scalar::I32), {}, loc()), i32(p_.stages));
    yield->operands.push_back(b_.create1(Opcode::Select, {wraps, flip(phase_), phase_}, Type::scalar(Scalar::I32), {}, loc()));
  }
};

}  // namespace

void pingpong(ir::Function& fn, const GpuContext& ctx) {
  if (ctx.target.sm < 90 || ctx.numWarps != kWarps) return;
  bool partitioned = false;
  std::vector<Op*> loops;
  ir::walk(fn, [&](Op& op) {
    if (op.opcode == Opcode::WarpPartition) partitioned = true;
    if (op.opcode == Opcode::For) loops.push_back(&op);
  });
  if (partitioned) return;
  for (Op* loop : loops)
    if (std::optional<Plan> plan = planFor(*loop, ctx)) Rewrite(*plan).run();
}

}  // namespace kiln::schedule
