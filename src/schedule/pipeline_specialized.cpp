// The pipeline pass's warp-specialized form of a TMA loop (see warp_specialize.cpp for the partitions it
// is then split into). A loop that asks for warp specialization (`tl.range(..., warp_specialize=True)`),
// or whose top-level enclosing loop asks for it while holding it directly in its body (tutorial 09's
// persistent tile loop around its k loop), or that is the TMA version of a pointer-built loop (in the
// then-region of its check's top-level `if`, tma_versioning.h), gets no prologue copies and no drain: each iteration copies
// its own tiles once the consumers released the slot's previous round, so a producer may run any number
// of iterations ahead, across the root loop's iterations too, as far as the slots allow:
//
//   before the root   slots, full[S] (one arrival per load), empty[S] (one arrival per warp), barrier
//   iteration i       mbarrier_wait empty[i mod S], parity of round i / S - 1  (at i < S: complete)
//                     tma_load x loads of iteration i into slot i mod S, on full[i mod S]
//                     mbarrier_wait full[i mod S], parity (i / S) & 1
//                     wgmma; wgmma.wait_group 1; if i > 0: each warp arrives on empty[(i - 1) mod S]
//   after the loop    wait_group 0; if it ran: each warp arrives on the last iteration's empty barrier
//
// The slot and phase run on across the root's iterations (carried by the root), so the barriers are
// initialised once. As one sequence of code this is a correct, unpipelined schedule; the
// warp_specialize pass moves the first three lines of each iteration to a producer warpgroup.
#include <functional>

#include "schedule/pipeline_rewrite.h"

namespace kiln::schedule::pipeline {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using ir::Value;

ir::Op* LoopRewrite::specializationRoot(ir::Op& forOp, const GpuContext& ctx, bool tmaCopies, bool asyncDot,
                                        int64_t slotBytes, int stages) {
  if (!tmaCopies || !asyncDot || !warpSpecializable(ctx)) return nullptr;
  ir::Op* root = &forOp;
  ir::Op* around = forOp.parentOp();
  // The TMA version of a pointer-built loop: in the then-region of its check's `if`, at the top level or
  // directly in the body of a top-level loop (a persistent kernel's loop over programs).
  const bool checked = around && around->opcode == Opcode::If && forOp.parent == &around->region(0);
  // Its slots then go before the check's `if` (the producer copies into them), live beside the
  // cp.async version's instead of sharing their bytes: only where they leave that version room for at
  // least one stage (the pipeline gives it as many as fit, none below two: its dots then stage their
  // operands one k step at a time) and the pipeline's margin for scratch.
  if (checked && slotBytes + slotBytes / stages + kScratchRoom > maxSharedPerBlock(ctx.target)) return nullptr;
  ir::Op* holder = checked ? around : &forOp;  // what sits at the top level or in the root loop's body
  if (!holder->parent->parentFunc) {  // nested: directly in the body of a top-level loop
    root = holder->parentOp();
    if (!root || root->opcode != Opcode::For || !root->parent->parentFunc || holder->parent != &root->region(0))
      return nullptr;
  }
  if (root->intAttrOr("warp_specialize", 0)) return root;
  // The compile option picks the first loop nest that can take it, unless a loop asks by itself.
  if (!ctx.warpSpecialize) return nullptr;
  bool asked = false;
  ir::walk(*root->parent->function(), [&](ir::Op& op) { asked = asked || op.intAttrOr("warp_specialize", 0); });
  if (asked) return nullptr;
  root->setAttr("warp_specialize", int64_t(1));
  return root;
}

Value* LoopRewrite::emptyBarrier(Value* index) {
  return b_.create1(Opcode::SharedSlot, {empty_, index}, empty_->type.withSlots(1), {}, for_.loc);
}

void LoopRewrite::initEmptyBarriers() {
  empty_ = b_.create1(Opcode::SharedAlloc, {}, bars_->type, {ir::Attr{"pipelined", int64_t(1)}}, for_.loc);
  for (int s = 0; s < stages_; ++s)
    b_.create(Opcode::MbarrierInit, {emptyBarrier(i32(s))}, {}, {ir::Attr{"count", int64_t(ctx_.numWarps)}}, for_.loc);
}

void LoopRewrite::carrySlotAcrossRoot() {
  const Type i32t = Type::scalar(Scalar::I32);
  if (wsRoot_ == &for_) {  // the loop is the root: slot 0, phase 0
    for (int k = 0; k < 2; ++k) {
      for_.operands.push_back(i32(0));
      for_.addResult(i32t);
    }
    return;
  }
  // The root carries them from one of its iterations to the next: the loop starts where the last left off.
  ir::Block& rootBody = wsRoot_->region(0);
  const unsigned first = for_.numResults();
  Value* carried[2];
  for (int k = 0; k < 2; ++k) {
    wsRoot_->operands.push_back(i32(0));
    wsRoot_->addResult(i32t);
    carried[k] = rootBody.addArg(i32t);
    for_.operands.push_back(carried[k]);
    for_.addResult(i32t);
  }
  Value* after[2] = {for_.result(first), for_.result(first + 1)};
  if (ir::Op* check = for_.parentOp(); check != wsRoot_) {
    // In the then-region of a pointer-built loop's check: the `if` passes them on, the cp.async version
    // (else) leaving them as they were.
    for (int k = 0; k < 2; ++k) {
      check->region(0).terminator()->operands.push_back(after[k]);
      check->region(1).terminator()->operands.push_back(carried[k]);
      after[k] = check->addResult(i32t);
    }
  }
  ir::Op* yield = rootBody.terminator();
  yield->operands.push_back(after[0]);
  yield->operands.push_back(after[1]);
}

void LoopRewrite::issueSpecializedCopies() {
  // The slot's previous round (iteration i - S) was released by every consumer warp: its phase of the
  // empty barrier has the parity of this round's flipped; before the first round that phase counts as
  // complete (an mbarrier's phase before its current one), so the first S iterations do not wait.
  Value* before = b_.create1(Opcode::Xor, {phase_, i32(1)}, Type::scalar(Scalar::I32));
  b_.create(Opcode::MbarrierWait, {emptyBarrier(slot_), before}, {});
  Value* bar = slotBarrier(slot_);
  for (PipelinedLoad& p : pipelined_)
    copy(p, b_.create1(Opcode::SharedSlot, {p.buffer, slot_}, p.buffer->type.withSlots(1)), bar, body_.arg(0), false, 0);
}

void LoopRewrite::releasePreviousSlot() {
  Value* notFirst = b_.create1(Opcode::Cmp, {body_.arg(0), for_.operand(0)}, Type::scalar(Scalar::I1),
                               {ir::Attr{"pred", std::string("ne")}}, for_.loc);
  releaseIf(notFirst, [&](ir::Builder&) { return previous_; });
}

void LoopRewrite::releaseLastSlot() {
  Value* ran = b_.create1(Opcode::Cmp, {for_.operand(0), for_.operand(1)}, Type::scalar(Scalar::I1),
                          {ir::Attr{"pred", std::string("lt")}}, for_.loc);
  // The loop's result is the slot of iteration n; iteration n - 1 read the one before it.
  releaseIf(ran, [&](ir::Builder& b) { return slotBefore(b, for_.result(slot_->index - 1)); });
}

void LoopRewrite::releaseIf(Value* cond, const std::function<Value*(ir::Builder&)>& slotIndex) {
  const SourceLoc& loc = for_.loc;
  ir::Op* branch = b_.create(Opcode::If, {cond}, {}, {}, loc);
  ir::Builder then(branch->region(0));
  Value* slot = then.create1(Opcode::SharedSlot, {empty_, slotIndex(then)}, empty_->type.withSlots(1), {}, loc);
  then.create(Opcode::MbarrierArrive, {slot}, {}, {ir::Attr{"per_warp", int64_t(1)}}, loc);
  then.create(Opcode::Yield, {}, {}, {}, loc);
  ir::Builder(branch->region(1)).create(Opcode::Yield, {}, {}, {}, loc);
}

}  // namespace kiln::schedule::pipeline
