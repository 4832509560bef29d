// The pipeline pass's rewrite of one loop (see pipeline.cpp for the schedule it builds): the buffers and
// the prologue before the loop, the slot reads and the copies ahead in the body, the drain after it.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "assign/dot_layouts.h"
#include "schedule/pipeline_rewrite.h"
#include "schedule/split_mma.h"
#include "support/diagnostic.h"

namespace kiln::schedule::pipeline {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using ir::Value;

namespace {

int64_t usesIn(const ir::Block& b, const Value* v) {
  int64_t n = 0;
  for (const auto& op : b.ops) {
    n += std::count(op->operands.begin(), op->operands.end(), v);
    for (const auto& r : op->regions) n += usesIn(*r, v);
  }
  return n;
}

// Whether a dot only accumulates across iterations: its accumulator is a body argument nothing else
// reads and its result only goes back to that argument through the yield.
bool accumulatesOnly(const ir::Block& body, const ir::Op& dot) {
  const Value *acc = dot.operand(2), *res = dot.result(0);
  if (!acc->isBlockArg() || acc->owner != &body || acc->index == 0 || usesIn(body, acc) != 1) return false;
  const ir::Op* yield = body.terminator();
  return usesIn(body, res) == 1 && yield->operand(acc->index - 1) == res;
}

bool usedIn(const ir::Block& b, const Value* v) {
  for (const auto& op : b.ops) {
    if (std::find(op->operands.begin(), op->operands.end(), v) != op->operands.end()) return true;
    for (const auto& r : op->regions)
      if (usedIn(*r, v)) return true;
  }
  return false;
}

}  // namespace

LoopRewrite::LoopRewrite(ir::Op& forOp, const GpuContext& ctx, LoopLoads loads, std::vector<PipelinedLoad> pipelined,
                         int stages, int64_t bytes)
    : for_(forOp), body_(forOp.region(0)), ctx_(ctx), loads_(std::move(loads)), pipelined_(std::move(pipelined)),
      stages_(stages), bytes_(bytes) {
  std::vector<const ir::Op*> wgmma;
  for (const auto& op : body_.ops)
    if (std::optional<DotPlan> plan = planDot(*op, ctx_)) {
      dots_.emplace_back(op.get(), *plan);
      if (plan->cfg.wgmma) wgmma.push_back(op.get());
    }
  if (!wgmma.empty()) {  // no k-slices to drive the loop with: each wgmma dot is one group
    // A group stays in flight into the next iteration only when A is read from a slot: an A in registers
    // must not be written while a wgmma reading it runs (PTX ISA, wgmma.mma_async), and the next
    // iteration writes the registers of its own A, which ptxas may give the same physical registers.
    auto aFromSlot = [&](const ir::Op& dot) {
      return std::any_of(pipelined_.begin(), pipelined_.end(), [&](const PipelinedLoad& p) {
        return p.c.convert && p.c.convert->result(0) == dot.operand(0) && p.align > 0;
      });
    };
    if (wgmma.size() == 1 && accumulatesOnly(body_, *wgmma[0]) && aFromSlot(*wgmma[0])) {
      asyncDot_ = wgmma[0];
      asyncResult_ = int64_t(asyncDot_->operand(2)->index) - 1;
    }
    return;
  }
  LoopLoads taken;
  for (const PipelinedLoad& p : pipelined_) taken.loads.push_back(p.c);
  const DrivingDots dots = drivingDots(for_, taken);
  if (!dots.last || !dotPlan(*dots.first) || !dotPlan(*dots.last)) return;
  driver_ = dots.last;
  first_ = dots.first;
  const DotPlan& firstPlan = *dotPlan(*first_);
  const int64_t kTile = firstPlan.cfg.kTile;
  for (PipelinedLoad& p : pipelined_) {
    const Value* operand = p.c.convert->result(0);
    if (first_->operand(0) != operand && first_->operand(1) != operand) continue;  // a later dot's
    p.kDim = first_->operand(0) == operand ? 1 : 0;
    p.kTile = kTile;
    p.sliceType = kSliceType(*first_, firstPlan.cfg, p.kDim == 1 ? 0 : 1);
  }
}

void LoopRewrite::run() {
  wsRoot_ = specializationRoot(for_, ctx_, tma(), asyncDot_ != nullptr, bytes_, stages_);
  slot_ = body_.addArg(Type::scalar(Scalar::I32));
  if (tma()) phase_ = body_.addArg(Type::scalar(Scalar::I32));
  prologue();
  rewriteBody();
  b_.setInsertionPointAfter(&for_);  // the drain: no copy in flight, every slot read
  if (asyncDot_) {  // the last iteration's group, before anything reads its accumulator
    // (first: with a cp.async wait between the last wgmma and its wait, ptxas serialises every wgmma)
    Value* acc = for_.result(unsigned(asyncResult_));
    ir::Op* wait = b_.create(Opcode::MmaWait, {acc}, {acc->type}, {ir::Attr{"pending", int64_t(0)}}, for_.loc);
    ir::replaceAllUses(*for_.parent, acc, wait->result(0));
    wait->operands[0] = acc;
  }
  if (specialized()) {
    releaseLastSlot();  // no copy past the end, the slots stay the loop's
  } else {
    if (tma()) drainTma();
    else b_.create(Opcode::AsyncWait, {}, {}, {ir::Attr{"pending", int64_t(0)}}, for_.loc);
    b_.create(Opcode::Barrier, {}, {}, {}, for_.loc);
  }
  dropUnreadAdvancing();
}

bool LoopRewrite::readsThroughDescriptors() const {
  return std::any_of(pipelined_.begin(), pipelined_.end(), [](const PipelinedLoad& p) { return p.align > 0; });
}

Value* LoopRewrite::i32(int64_t v) { return b_.intConst(v, Type::scalar(Scalar::I32), for_.loc); }

Value* LoopRewrite::slotBefore(ir::Builder& b, Value* slot) const {
  const Type i32t = Type::scalar(Scalar::I32);
  Value* wrapped = b.create1(Opcode::Cmp, {slot, b.intConst(0, i32t, for_.loc)}, Type::scalar(Scalar::I1), {ir::Attr{"pred", std::string("eq")}});
  Value* before = b.create1(Opcode::Sub, {slot, b.intConst(1, i32t, for_.loc)}, i32t);
  return b.create1(Opcode::Select, {wrapped, b.intConst(stages_ - 1, i32t, for_.loc), before}, i32t);
}

// A uniform step as a scalar: the splatted value, or the constant.
Value* LoopRewrite::scalarOf(const Value* uniform) {
  if (!uniform->type.isTensor()) return const_cast<Value*>(uniform);
  const ir::Op* d = uniform->def;
  if (d->opcode == Opcode::Splat) return d->operand(0);
  return b_.create1(Opcode::Constant, {}, uniform->type.element(), d->attrs, d->loc);
}

Value* LoopRewrite::advanced(const Advancing& a, Value* from, int64_t ahead) {
  if (ahead == 0) return from;
  Value* step = scalarOf(a.step);
  Value* by = b_.create1(Opcode::Mul, {step, b_.intConst(ahead, step->type, for_.loc)}, step->type, {}, for_.loc);
  const Type& t = a.arg->type;
  if (t.isTensor()) by = b_.create1(Opcode::Splat, {by}, t.withElem(step->type.elem), {}, for_.loc);
  return b_.create1(a.pointer ? Opcode::PtrAdd : Opcode::Add, {from, by}, t, {}, for_.loc);
}

LoopRewrite::CopyOperands LoopRewrite::cloneAt(const PipelineCandidate& c, Value* ivBase, bool fromInits,
                                               int64_t ahead, bool tma) {
  const SourceLoc& loc = c.load->loc;
  const Type ivType = for_.operand(0)->type, i1 = Type::scalar(Scalar::I1);
  Value* iv = ivBase;
  if (ahead > 0) {
    Value* by = b_.create1(Opcode::Mul, {for_.operand(2), b_.intConst(ahead, ivType, loc)}, ivType, {}, loc);
    iv = b_.create1(Opcode::Add, {ivBase, by}, ivType, {}, loc);
  }
  // Whether that iteration runs: a cp.async copy past the end is masked off; a TMA copy past the end
  // is not issued, its thread arriving on the slot's mbarrier without bytes (drainTma waits for it).
  Value* valid = tma && ahead == 0 ? nullptr
                                   : b_.create1(Opcode::Cmp, {iv, for_.operand(1)}, i1, {ir::Attr{"pred", std::string("lt")}}, loc);
  if (ahead > 0) {  // and the induction variable did not wrap
    Value* noWrap = b_.create1(Opcode::Cmp, {iv, ivBase}, i1, {ir::Attr{"pred", std::string("gt")}}, loc);
    valid = b_.create1(Opcode::And, {valid, noWrap}, i1, {}, loc);
  }
  std::unordered_map<const Value*, Value*> map{{body_.arg(0), iv}};
  auto mapped = [&](Value* v) {
    auto it = map.find(v);
    return it == map.end() ? v : it->second;
  };
  // What the copy needs: the whole slice for cp.async (pointer and mask), for TMA the ops the
  // coordinates are computed with (a pointer load's description leaves its address tile unread).
  std::vector<const ir::Op*> slice = c.slice;
  if (tma) {
    const unsigned first = 3, end = 3 + unsigned(c.load->intAttr("tma"));
    std::set<const Value*> needed(c.load->operands.begin() + first, c.load->operands.begin() + end);
    for (size_t i = slice.size(); i-- > 0;) {
      const ir::Op* op = slice[i];
      bool used = std::any_of(op->results.begin(), op->results.end(), [&](const auto& r) { return needed.count(r.get()) > 0; });
      if (used) needed.insert(op->operands.begin(), op->operands.end());
      else slice.erase(slice.begin() + ptrdiff_t(i));
    }
  }
  std::set<const Value*> read;  // the advancing values this slice reads
  for (const ir::Op* op : slice) read.insert(op->operands.begin(), op->operands.end());
  if (tma) read.insert(c.load->operands.begin() + 3, c.load->operands.begin() + 3 + c.load->intAttr("tma"));
  else read.insert(c.load->operands.begin(), c.load->operands.end());
  for (const Advancing& a : loads_.advancing)
    if (read.count(a.arg)) {
      Value* from = fromInits ? for_.operand(3 + (a.arg->index - 1)) : const_cast<Value*>(a.arg);
      map[a.arg] = advanced(a, from, ahead);
    }
  for (const ir::Op* op : slice) {
    std::vector<Value*> operands;
    for (Value* o : op->operands) operands.push_back(mapped(o));
    std::vector<Type> types;
    for (const auto& r : op->results) types.push_back(r->type);
    ir::Op* n = b_.create(op->opcode, operands, types, op->attrs, op->loc);
    for (unsigned i = 0; i < op->numResults(); ++i) map[op->result(i)] = n->result(i);
  }
  if (tma) {
    CopyOperands out{nullptr, valid, {}};
    for (unsigned k = 3; k < 3 + unsigned(c.load->intAttr("tma")); ++k) out.coords.push_back(mapped(c.load->operand(k)));
    return out;
  }
  Value* ptr = mapped(c.load->operand(0));
  if (c.load->numOperands() < 2) return {ptr, valid, {}};  // one predicate for the whole tile
  Value* mask = mapped(c.load->operand(1));
  if (mask->type.isTensor()) valid = b_.create1(Opcode::Splat, {valid}, mask->type, {}, loc);
  return {ptr, b_.create1(Opcode::And, {mask, valid}, mask->type, {}, loc), {}};
}

void LoopRewrite::copy(PipelinedLoad& p, Value* slot, Value* bar, Value* ivBase, bool fromInits, int64_t ahead) {
  CopyOperands src = cloneAt(p.c, ivBase, fromInits, ahead, p.tma);
  if (!p.tma) {
    b_.create(Opcode::AsyncCopy, {slot, src.ptr, src.mask}, {}, {}, p.c.load->loc);
    return;
  }
  std::vector<Value*> operands{slot, bar};
  operands.insert(operands.end(), src.coords.begin(), src.coords.end());
  std::vector<ir::Attr> attrs{ir::Attr{"map", p.map}};
  if (src.mask) {  // the iteration may be past the end
    operands.push_back(src.mask);
    attrs.push_back(ir::Attr{"predicated", int64_t(1)});
  }
  b_.create(Opcode::TmaLoad, operands, {}, std::move(attrs), p.c.load->loc);
}

void LoopRewrite::prologue() {
  if (tma()) declareTensorMaps();  // at the kernel's entry: before the insertion point is taken
  b_.setInsertionPointBefore(specialized() ? wsRoot_ : &for_);
  for (PipelinedLoad& p : pipelined_) {
    const Type& t = p.c.load->result(0)->type;
    std::vector<ir::Attr> attrs{ir::Attr{"pipelined", int64_t(1)}};
    if (p.align > 0) attrs.push_back(ir::Attr{"align", p.align});
    p.buffer = b_.create1(Opcode::SharedAlloc, {}, Type::shared(t.shape, t.elem, stages_, p.shared), attrs, p.c.load->loc);
  }
  if (tma()) initSlotBarriers();
  if (specialized()) return carrySlotAcrossRoot();  // the producer copies each iteration's own tiles
  for (int s = 0; s + 1 < stages_; ++s) {
    Value* bar = tma() ? slotBarrier(i32(s)) : nullptr;
    for (PipelinedLoad& p : pipelined_)
      copy(p, b_.create1(Opcode::SharedSlot, {p.buffer, i32(s)}, p.buffer->type.withSlots(1)), bar, for_.operand(0), true, s);
    if (!tma()) b_.create(Opcode::AsyncCommit, {}, {});
  }
  for_.operands.push_back(i32(0));  // the slot of iteration 0
  for_.addResult(Type::scalar(Scalar::I32));
  if (tma()) {  // and its mbarrier's phase
    for_.operands.push_back(i32(0));
    for_.addResult(Type::scalar(Scalar::I32));
  }
  if (!driven()) return;
  // Iteration 0's slot and first k-slice, as each iteration's driving dot does for the next.
  b_.create(Opcode::AsyncWait, {}, {}, {ir::Attr{"pending", int64_t(stages_ - 2)}});
  b_.create(Opcode::Barrier, {}, {});
  for (PipelinedLoad& p : pipelined_) {
    if (p.kDim < 0) continue;
    Value* first = sliceOf(p, b_.create1(Opcode::SharedSlot, {p.buffer, i32(0)}, p.buffer->type.withSlots(1)));
    for_.operands.push_back(first);
    for_.addResult(first->type);
    p.carried = body_.addArg(first->type);
  }
}

Value* LoopRewrite::viewOf(const PipelinedLoad& p, Value* slot) {
  if (!p.c.permute) return slot;
  const std::vector<int64_t>& order = p.c.permute->listAttr("order");
  return b_.create1(Opcode::SharedPermute, {slot}, slot->type.permuted(order), {ir::Attr{"order", order}},
                    p.c.permute->loc);
}

Value* LoopRewrite::sliceOf(PipelinedLoad& p, Value* slot) {
  return b_.create1(Opcode::LocalLoad, {viewOf(p, slot)}, p.sliceType,
                    {ir::Attr{"slice_dim", int64_t(p.kDim)}, ir::Attr{"slice_offset", int64_t(0)}}, p.c.load->loc);
}

LoopRewrite::SlotAndPhase LoopRewrite::advance(SlotAndPhase at) {
  const Type i32t = Type::scalar(Scalar::I32);
  Value* n = b_.create1(Opcode::Add, {at.slot, i32(1)}, i32t);
  Value* wraps = b_.create1(Opcode::Cmp, {n, i32(stages_)}, Type::scalar(Scalar::I1), {ir::Attr{"pred", std::string("eq")}});
  if (at.phase) {  // flips each time the slot wraps to 0
    Value* flipped = b_.create1(Opcode::Xor, {at.phase, i32(1)}, i32t);
    at.phase = b_.create1(Opcode::Select, {wraps, flipped, at.phase}, i32t);
  }
  at.slot = b_.create1(Opcode::Select, {wraps, i32(0), n}, i32t);
  return at;
}

Value* LoopRewrite::nextSlot() {
  SlotAndPhase next = advance({slot_, phase_});
  nextPhase_ = next.phase;
  return next.slot;
}

bool LoopRewrite::issueDeferredCopy() {
  if (deferred_.empty()) return false;
  PipelinedLoad* p = deferred_.front();
  deferred_.pop_front();
  copy(*p, p->writeSlot, writeBar_, body_.arg(0), false, stages_ - 1);
  return true;
}

void LoopRewrite::synchronizeBeforeLastSlice() {
  while (issueDeferredCopy()) {
  }
  b_.create(Opcode::AsyncCommit, {}, {});
  b_.create(Opcode::AsyncWait, {}, {}, {ir::Attr{"pending", int64_t(stages_ - 2)}});
  b_.create(Opcode::Barrier, {}, {});
  next_ = nextSlot();
  for (PipelinedLoad& p : pipelined_)
    if (p.kDim >= 0) p.next = sliceOf(p, b_.create1(Opcode::SharedSlot, {p.buffer, next_}, p.buffer->type.withSlots(1)));
}

const DotPlan* LoopRewrite::dotPlan(const ir::Op& dot) const {
  for (const auto& [op, plan] : dots_)
    if (op == &dot) return &plan;
  return nullptr;
}

PipelinedLoad* LoopRewrite::operandLoad(const Value* v) {
  for (PipelinedLoad& p : pipelined_)
    if (p.whole && p.whole == v) return &p;
  return nullptr;
}

void LoopRewrite::dropIfUnused(Value* v) {
  PipelinedLoad* p = operandLoad(v);
  if (!p || usedIn(body_, v)) return;
  body_.remove(v->def);
  p->whole = nullptr;
}

void LoopRewrite::rewriteBody() {
  std::vector<ir::Op*> ops;
  for (const auto& op : body_.ops) ops.push_back(op.get());
  b_.setInsertionPoint(body_, 0);
  if (specialized()) {
    issueSpecializedCopies();
    b_.create(Opcode::MbarrierWait, {slotBarrier(slot_), phase_}, {});
  } else if (tma()) {
    // Iteration i's copies landed (the mbarrier's phase completes with their bytes, and makes them
    // visible to the waiting threads, wgmma's reads included). Unless the dot's barrier after its
    // wait does it (asyncDot), a barrier: every thread is done with iteration i - 1's slots.
    b_.create(Opcode::MbarrierWait, {slotBarrier(slot_), phase_}, {});
    if (!asyncDot_) b_.create(Opcode::Barrier, {}, {});
  } else if (!driven()) {  // iteration i's slots landed, and every thread is done with iteration i - 1's
    b_.create(Opcode::AsyncWait, {}, {}, {ir::Attr{"pending", int64_t(stages_ - 2)}});
    // wgmma reads its slots through the async proxy: each thread's copies, landed, are made visible
    // to it before the barrier passes them on.
    if (readsThroughDescriptors()) b_.create(Opcode::FenceAsyncShared, {}, {});
    b_.create(Opcode::Barrier, {}, {});
  }
  // (i - 1) mod S: the slot iteration i - 1 read, which the copy for iteration i + S - 1 fills.
  Value* previous = slotBefore(b_, slot_);
  previous_ = previous;
  for (PipelinedLoad& p : pipelined_) {
    p.readSlot = b_.create1(Opcode::SharedSlot, {p.buffer, slot_}, p.buffer->type.withSlots(1));
    p.writeSlot = b_.create1(Opcode::SharedSlot, {p.buffer, previous}, p.buffer->type.withSlots(1));
    p.readView = viewOf(p, p.readSlot);
  }
  if (tma() && !specialized()) writeBar_ = slotBarrier(previous);

  std::vector<ir::Op*> replaced;
  for (ir::Op* op : ops) {
    auto load = std::find_if(pipelined_.begin(), pipelined_.end(), [&](const PipelinedLoad& p) { return p.c.load == op; });
    auto convert = std::find_if(pipelined_.begin(), pipelined_.end(),
                                [&](const PipelinedLoad& p) { return p.c.convert && p.c.convert == op; });
    const bool permute = std::any_of(pipelined_.begin(), pipelined_.end(), [&](const PipelinedLoad& p) {
      return p.c.permute == op && p.c.convert != op;
    });
    b_.setInsertionPointBefore(op);
    if (load != pipelined_.end()) {
      replaced.push_back(op);
      if (load->c.convert) {  // read by a dot: its copy waits for that dot's k-slices
        if (!specialized()) deferred_.push_back(&*load);
        if (load->c.convert == op) {  // the dots read the load itself: the whole slot stands for it
          load->whole = b_.create1(Opcode::LocalLoad, {load->readSlot}, op->result(0)->type, {}, op->loc);
          ir::replaceAllUses(body_, op->result(0), load->whole);
        }
        continue;
      }
      Value* x = b_.create1(Opcode::LocalLoad, {load->readSlot}, op->result(0)->type, {}, op->loc);
      if (op->numOperands() > 2)  // masked-off elements are `other`, not the zeros of the copy
        x = b_.create1(Opcode::Select, {op->operand(1), x, op->operand(2)}, x->type, {}, op->loc);
      ir::replaceAllUses(body_, op->result(0), x);
      if (!specialized()) copy(*load, load->writeSlot, writeBar_, body_.arg(0), false, stages_ - 1);
    } else if (permute) {  // its convert reads the slot's view instead
      replaced.push_back(op);
    } else if (convert != pipelined_.end()) {
      replaced.push_back(op);
      convert->whole = b_.create1(Opcode::LocalLoad, {convert->readView}, op->result(0)->type, {}, op->loc);
      ir::replaceAllUses(body_, op->result(0), convert->whole);
    } else if (const DotPlan* plan = dotPlan(*op)) {
      if (plan->cfg.wgmma) issueWgmma(*this, *op, *plan);
      else splitDot(*this, *op, *plan, op == driver_);
    }
  }

  ir::Op* yield = body_.terminator();
  b_.setInsertionPointBefore(yield);
  if (!driven()) {
    while (issueDeferredCopy()) {
    }
    if (!tma()) b_.create(Opcode::AsyncCommit, {}, {});
    next_ = nextSlot();
  } else if (!next_) {
    throw InternalError(for_.loc, "pipeline: the driving dot did not synchronise the iteration");
  }
  yield->operands.push_back(next_);
  if (tma()) yield->operands.push_back(nextPhase_);
  for (PipelinedLoad& p : pipelined_)
    if (p.kDim >= 0) yield->operands.push_back(p.next);

  std::reverse(replaced.begin(), replaced.end());  // converts before the loads they read
  for (ir::Op* op : replaced) body_.remove(op);
  eraseDeadSlices();
}

void LoopRewrite::eraseDeadSlices() {
  std::set<const ir::Op*> slices;
  for (const PipelinedLoad& p : pipelined_) slices.insert(p.c.slice.begin(), p.c.slice.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = body_.ops.size(); i-- > 0;) {
      ir::Op* op = body_.ops[i].get();
      if (!slices.count(op)) continue;
      bool used = false;
      for (const auto& r : op->results) used = used || usedIn(body_, r.get());
      if (used) continue;
      slices.erase(op);
      body_.remove(op);
      changed = true;
    }
  }
}

void LoopRewrite::dropUnreadAdvancing() {
  ir::Op* yield = body_.terminator();
  for (const Advancing& a : loads_.advancing) {
    const unsigned k = a.arg->index - 1;  // its result, init (operand 3 + k) and yield operand
    ir::Op* step = yield->operand(k)->def;
    if (!step || step->parent != &body_ || usedIn(*for_.parent, for_.result(k))) continue;
    bool onlyStep = true;
    ir::walk(body_, [&](ir::Op& op) {
      if (&op != step && std::count(op.operands.begin(), op.operands.end(), a.arg)) onlyStep = false;
    });
    const Value* next = step->result(0);
    size_t yields = 0;
    ir::walk(body_, [&](ir::Op& op) {
      if (std::count(op.operands.begin(), op.operands.end(), next)) yields += &op == yield ? 1 : 2;
    });
    if (!onlyStep || yields != 1) continue;
    yield->operands.erase(yield->operands.begin() + k);
    body_.remove(step);
    for_.operands.erase(for_.operands.begin() + 3 + k);
    body_.args.erase(body_.args.begin() + 1 + k);
    for_.results.erase(for_.results.begin() + k);
    for (unsigned i = 0; i < body_.numArgs(); ++i) body_.args[i]->index = i;
    for (unsigned i = 0; i < for_.numResults(); ++i) for_.results[i]->index = i;
  }
}

}  // namespace kiln::schedule::pipeline
