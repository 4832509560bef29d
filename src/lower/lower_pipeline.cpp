// The code generation side of software pipelining (lower/pipeline.h): slots in reserved shared memory,
// the prologue, the per-iteration wait, copy and read, and the drain after the loop.
#include <algorithm>

#include "assign/dot_layouts.h"
#include "lower/global_access.h"
#include "lower/linear_emit.h"
#include "lower/pipeline.h"
#include "lower/shared_tile.h"
#include "ptx/isel.h"
#include "ptx/memory.h"
#include "schedule/schedule.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using layout::LinearLayout;
using ptx::Reg;
using ptx::RegClass;

namespace {

bool wordSized(ir::Scalar t) { return t != ir::Scalar::I1 && (ir::bitWidth(t) == 32 || ir::bitWidth(t) == 64); }

}  // namespace

// ---------------------------------------------------------------- one load

PipelinedLoad::PipelinedLoad(LoopPipeline& loop, const PipelineCandidate& c, ScratchPlan plan, int32_t vec,
                             int64_t slotBytes, int64_t offset)
    : loop_(loop), c_(c), plan_(std::move(plan)), vec_(vec), slotBytes_(slotBytes), offset_(offset) {}

void PipelinedLoad::copy(Codegen& cg, Reg slotBase, Reg valid) {
  ptx::Entry& e = cg.e;
  const ir::Value* ptr = c_.load->operand(0);
  const int bytes = memBytes(c_.load->result(0)->type.elem);
  CopySource src(cg, ptr, c_.load->numOperands() > 1 ? c_.load->operand(1) : nullptr);
  SharedAddresses storeAt(cg, slotBase, storeThread_, threadMask(plan_.storeOffsets, 0), bytes);
  // Where the layout gives an element to several threads (a tile smaller than the block), one of them
  // copies it: the others would write the same bytes again, a race in the eyes of racecheck.
  if (Reg owner = cg.ownerPredicate(*ptr->type.layout); owner.valid()) {
    Reg both = e.reg(RegClass::Pred);
    e.inst("and.pred", {both, valid, owner});
    valid = both;
  }
  copyToShared(cg, src, storeAt, plan_.storeOffsets, vec_, vec_ * bytes, ptx::when(valid));
}

void PipelinedLoad::atLoad(Codegen& cg) {
  const ir::Block& body = loop_.forOp_.region(0);
  const ir::Op& load = *c_.load;
  if (!feedsDot()) {  // this iteration's tile, read back into the load's own layout
    const ir::Value* res = load.result(0);
    std::vector<Reg> regs =
        SharedTileReader(cg, load, plan_, readBase_, res->type.elem, *res->type.layout, readThread_).all();
    if (load.numOperands() > 2) {
      const ir::Value *mask = load.operand(1), *other = load.operand(2);
      const size_t n = regs.size();
      std::vector<Reg> m = mask->type.isTensor() ? cg.regs(mask) : std::vector<Reg>(n, cg.reg(mask));
      std::vector<Reg> o = other->type.isTensor() ? cg.regs(other) : std::vector<Reg>(n, cg.reg(other));
      for (size_t r = 0; r < n; ++r) {
        Reg d = cg.e.reg(regs[r].cls);
        cg.e.inst("selp" + std::string(ptx::regTypeName(regs[r].cls)), {d, regs[r], o.at(r), m.at(r)});
        regs[r] = d;
      }
    }
    cg.bind(res, std::move(regs));
  }
  auto copyAhead = [this, &cg, &body] {
    loop_.atIteration(cg, c_, false, cg.reg(body.arg(0)), loop_.stages_ - 1,
                      [&](Reg valid) { copy(cg, writeBase_, valid); });
  };
  if (feedsDot()) cg.deferUntilMma(&loop_, copyAhead);
  else copyAhead();
}

std::shared_ptr<SharedTileReader> PipelinedLoad::read(Codegen& cg, const ir::Op& convert) {
  if (&convert != c_.convert) codegenBug(convert, "a pipelined load read by another op");
  auto reader = std::make_shared<SharedTileReader>(cg, convert, plan_, readBase_, c_.load->result(0)->type.elem,
                                                   *convert.result(0)->type.layout, readThread_);
  for (size_t i = 0; i < carried_.size(); ++i) reader->adopt(firstGroups_[i], carried_[i]);
  return reader;
}

// ---------------------------------------------------------------- the loop

LoopPipeline::LoopPipeline(Codegen& cg, const ir::Op& forOp, const LoopCounter& counter, LoopLoads loads, int stages)
    : cg_(cg), forOp_(forOp), counter_(counter), loads_(std::move(loads)), stages_(stages) {}

LoopPipeline::~LoopPipeline() {
  for (const auto& p : pipelined_) cg_.setPipelined(p->c_.load, nullptr);
  if (dot_) cg_.setDotDriver(dot_, nullptr);
}

std::unique_ptr<LoopPipeline> LoopPipeline::create(Codegen& cg, const ir::Op& forOp, const LoopCounter& counter) {
  int stages = pipelineStages(forOp, cg.numStages);
  if (stages < 2 || cg.e.target().sm < 80) return nullptr;
  LoopLoads loads = findPipelineLoads(forOp);
  if (loads.loads.empty() || !wordSized(counter.type)) return nullptr;
  for (const Advancing& a : loads.advancing)
    if (!wordSized(a.step->type.elem) || (!a.pointer && !wordSized(a.arg->type.elem))) return nullptr;

  struct Planned {
    PipelineCandidate c;
    ScratchPlan plan;
    int32_t vec;
    int64_t slotBytes;
  };
  std::vector<Planned> planned;
  for (const PipelineCandidate& c : loads.loads) {
    const ir::Value* res = c.load->result(0);
    const LinearLayout& from = *res->type.layout;
    const int bytes = memBytes(res->type.elem);
    UniqueRegisters src = uniqueRegisters(from);
    UniqueRegisters dst = c.convert ? uniqueRegisters(*c.convert->result(0)->type.layout) : src;
    // cp.async copies what each register holds; a layout that repeats elements in registers would copy
    // them twice, so those loads stay as they are.
    bool distinct = src.original.size() == size_t(Codegen::numRegs(res->type));
    for (size_t i = 0; distinct && i < src.original.size(); ++i) distinct = src.original[i] == int32_t(i);
    if (!distinct) continue;
    ScratchPlan plan = planScratch(src.compact, dst.compact, bytes);
    const ir::Value* mask = c.load->numOperands() > 1 ? c.load->operand(1) : nullptr;
    AccessPlan access = planAccess(cg, c.load->operand(0), mask, from);
    int32_t vec = std::min<int32_t>(plan.storeVec, int32_t(access.vec));
    while (vec * bytes > 16) vec /= 2;
    if (vec * bytes < 4) continue;  // cp.async moves 4, 8 or 16 bytes
    const int64_t tileBytes = src.compact.totalOutSize() * bytes;
    planned.push_back(Planned{c, std::move(plan), vec, (tileBytes + 127) / 128 * 128});
  }
  // A load that feeds no dot gains from prefetching only while its slots stay small: a memory-bound
  // kernel needs many blocks per SM, and shared memory is what limits them (softmax rows of 4096 fp32 in
  // four 16 KB slots ran at 74% of the copy bandwidth, against 79% unpipelined; rows of 1024 in four
  // 4 KB slots went from 47% to 58%, H200). So those take at most kMaxPrefetchBytes of slots. Nor do
  // registers serve better: prefetching those 4096-wide rows a row ahead into registers took the kernel
  // from 39 to 72 registers, 3 programs per SM instead of 4, and from 81% / 90% to 74% / 82% (4096 and
  // 32768 rows, H200); so a larger tile is not prefetched at all.
  constexpr int64_t kMaxPrefetchBytes = 16 * 1024;
  std::erase_if(planned, [&](const Planned& p) { return !p.c.convert && p.slotBytes * 2 > kMaxPrefetchBytes; });
  if (planned.empty()) return nullptr;
  int64_t perStage = 0, prefetchPerStage = 0;
  for (const Planned& p : planned) (p.c.convert ? perStage : prefetchPerStage) += p.slotBytes;
  while (stages > 2 && prefetchPerStage * stages > kMaxPrefetchBytes) --stages;
  perStage += prefetchPerStage;
  // Fewer stages when the slots do not fit beside what is already reserved (and a little scratch).
  const int64_t room = schedule::maxSharedPerBlock(cg.e.target()) - cg.reservedShared() - 16 * 1024;
  while (stages > 2 && perStage * stages > room) --stages;
  if (perStage * stages > room) return nullptr;

  auto pipeline = std::unique_ptr<LoopPipeline>(new LoopPipeline(cg, forOp, counter, std::move(loads), stages));
  pipeline->reservedBytes_ = perStage * stages;
  int64_t at = cg.reserveShared(pipeline->reservedBytes_);
  for (Planned& p : planned) {
    pipeline->pipelined_.push_back(
        std::make_unique<PipelinedLoad>(*pipeline, p.c, std::move(p.plan), p.vec, p.slotBytes, at));
    at += p.slotBytes * stages;
    cg.setPipelined(p.c.load, pipeline->pipelined_.back().get());
  }
  const DrivingDots dots = drivingDots(forOp, pipeline->loads_);
  std::optional<MmaConfig> firstCfg;
  if (dots.first) firstCfg = mmaConfig(*dots.first, cg.numWarps, cg.e.target());
  if (dots.last && firstCfg && mmaConfig(*dots.last, cg.numWarps, cg.e.target())) {
    pipeline->dot_ = dots.last;
    for (const auto& p : pipeline->pipelined_) {
      const ir::Value* operand = p->c_.convert->result(0);
      if (dots.first->operand(0) != operand && dots.first->operand(1) != operand) continue;  // a later dot's
      p->kDim_ = dots.first->operand(0) == operand ? 1 : 0;
      p->kTile_ = firstCfg->kTile;
    }
    cg.setDotDriver(dots.last, pipeline.get());
  }
  return pipeline;
}

Reg LoopPipeline::advance(Codegen& cg, Reg base, const ir::Value* step, ir::Scalar type, int64_t times, int elemBytes) {
  ptx::Entry& e = cg.e;
  const bool wide = ir::bitWidth(step->type.elem) == 64;
  Reg by = e.reg(wide ? RegClass::B64 : RegClass::B32);
  e.inst(wide ? "mul.lo.s64" : "mul.lo.s32", {by, uniformRegister(cg, step), times});
  Reg out = e.reg(base.cls);
  if (elemBytes > 0) {
    ptx::selectPtrAdd(e, step->type.elem, elemBytes, out, base, by);
  } else {
    if (ir::bitWidth(type) != ir::bitWidth(step->type.elem))
      throw InternalError(forOp_.loc, "pipeline: an advancing value and its step differ in width");
    e.inst(ir::bitWidth(type) == 64 ? "add.s64" : "add.s32", {out, base, by});
  }
  return out;
}

template <class F>
void LoopPipeline::atIteration(Codegen& cg, const PipelineCandidate& c, bool fromInits, Reg ivBase, int64_t ahead,
                               F&& use) {
  ptx::Entry& e = cg.e;
  const ir::Block& body = forOp_.region(0);
  std::vector<Codegen::Binding> saved{cg.binding(body.arg(0))};
  for (const Advancing& a : loads_.advancing) saved.push_back(cg.binding(a.arg));
  for (const ir::Op* op : c.slice)
    for (const auto& r : op->results) saved.push_back(cg.binding(r.get()));

  // The induction variable `ahead` steps on, and whether that iteration runs (and did not wrap).
  const bool wide = ir::bitWidth(counter_.type) == 64;
  Reg iv = ivBase;
  if (ahead > 0) {
    Reg by = e.reg(iv.cls);
    iv = e.reg(iv.cls);
    e.inst(wide ? "mul.lo.s64" : "mul.lo.s32", {by, counter_.step, ahead});
    e.inst(wide ? "add.s64" : "add.s32", {iv, ivBase, by});
  }
  Reg valid = e.reg(RegClass::Pred);
  e.inst("setp.lt" + counter_.cmpType, {valid, iv, counter_.ub});
  if (ahead > 0) {
    Reg noWrap = e.reg(RegClass::Pred);
    e.inst("setp.gt.and" + counter_.cmpType, {noWrap, iv, ivBase, valid});
    valid = noWrap;
  }

  std::vector<Codegen::Binding> moved;
  for (const Advancing& a : loads_.advancing) {
    const ir::Value* from = fromInits ? forOp_.operand(3 + (a.arg->index - 1)) : a.arg;
    Codegen::Binding b = cg.binding(from);
    b.value = a.arg;
    if (ahead > 0) {
      const int elemBytes = a.pointer ? memBytes(a.arg->type.pointee) : 0;
      if (b.tile) {
        b.tile->base = advance(cg, b.tile->base, a.step, a.arg->type.elem, ahead, elemBytes);
      } else if (b.regs) {
        for (Reg& r : *b.regs) r = advance(cg, r, a.step, a.arg->type.elem, ahead, elemBytes);
      } else {
        codegenBug(forOp_, "an advancing loop value is not lowered");
      }
    }
    moved.push_back(std::move(b));
  }
  cg.bind(body.arg(0), {iv});
  for (const Codegen::Binding& b : moved) cg.restore(b);
  for (const ir::Op* op : c.slice) cg.lowerOp(*op);
  use(valid);
  for (const Codegen::Binding& b : saved) cg.restore(b);
}

void LoopPipeline::prologue(Codegen& cg) {
  ptx::Entry& e = cg.e;
  e.comment("software pipeline: " + std::to_string(pipelined_.size()) + " loads, " + std::to_string(stages_) +
            " stages");
  slot_ = e.reg(RegClass::B32);
  e.inst("mov.b32", {slot_, 0});
  for (const auto& p : pipelined_) {
    p->storeThread_ = threadPart(cg, p->plan_.storeOffsets, 0);
    p->readThread_ = SharedTileReader::threadOffsetOf(cg, p->plan_);
  }
  for (int s = 0; s + 1 < stages_; ++s) {
    for (const auto& p : pipelined_)
      atIteration(cg, p->c_, true, counter_.lb, s,
                  [&](Reg valid) { p->copy(cg, cg.sharedAddress(p->offset_ + s * p->slotBytes_), valid); });
    ptx::cpAsyncCommit(e);
  }
  if (dot_) {  // iteration 0's slot and first k-slice, as each iteration's dot does for the next
    ptx::cpAsyncWait(e, stages_ - 2);
    cg.barrier();
    for (const auto& p : pipelined_)
      if (p->kDim_ >= 0) p->carried_ = loadFirstSlice(cg, *p, cg.sharedAddress(p->offset_));
  }
}

std::vector<std::vector<Reg>> LoopPipeline::loadFirstSlice(Codegen& cg, PipelinedLoad& p, Reg base) {
  const ir::Op& convert = *p.c_.convert;
  SharedTileReader reader(cg, convert, p.plan_, base, p.c_.load->result(0)->type.elem,
                          *convert.result(0)->type.layout, p.readThread_);
  if (p.firstGroups_.empty())
    p.firstGroups_ = reader.groupsWhere([&](const std::vector<int32_t>& at) { return at[size_t(p.kDim_)] < p.kTile_; });
  std::vector<std::vector<Reg>> out;
  for (int32_t g : p.firstGroups_) out.push_back(reader.loadGroupNow(g));
  return out;
}

void LoopPipeline::beginIteration(Codegen& cg) {
  ptx::Entry& e = cg.e;
  driven_ = false;
  if (!dot_) {
    ptx::cpAsyncWait(e, stages_ - 2);
    cg.barrier();
  }
  Reg isFirst = e.reg(RegClass::Pred), before = e.reg(RegClass::B32), previous = e.reg(RegClass::B32);
  e.inst("setp.eq.u32", {isFirst, slot_, 0});
  e.inst("sub.u32", {before, slot_, 1});
  e.inst("selp.b32", {previous, stages_ - 1, before, isFirst});
  for (const auto& p : pipelined_) {
    Reg slot0 = cg.sharedAddress(p->offset_);
    p->readBase_ = e.reg(RegClass::B32);
    p->writeBase_ = e.reg(RegClass::B32);
    e.inst("mad.lo.u32", {p->readBase_, slot_, p->slotBytes_, slot0});
    e.inst("mad.lo.u32", {p->writeBase_, previous, p->slotBytes_, slot0});
  }
}

void LoopPipeline::endIteration(Codegen& cg) {
  ptx::Entry& e = cg.e;
  if (dot_) {
    if (!driven_) codegenBug(forOp_, "pipeline: the loop's dot did not synchronise the iteration");
  } else {
    cg.flushDeferredMma(this);
    ptx::cpAsyncCommit(e);
  }
  nextSlotInto(cg, slot_);
}

void LoopPipeline::nextSlotInto(Codegen& cg, Reg dst) {
  ptx::Entry& e = cg.e;
  Reg next = e.reg(RegClass::B32), wraps = e.reg(RegClass::Pred);
  e.inst("add.u32", {next, slot_, 1});
  e.inst("setp.eq.u32", {wraps, next, stages_});
  e.inst("selp.b32", {dst, 0, next, wraps});
}

void LoopPipeline::beforeLastSlice(Codegen& cg) {
  ptx::Entry& e = cg.e;
  cg.flushDeferredMma(this);
  ptx::cpAsyncCommit(e);
  ptx::cpAsyncWait(e, stages_ - 2);
  cg.barrier();
  Reg nextSlot = e.reg(RegClass::B32);
  nextSlotInto(cg, nextSlot);
  for (const auto& p : pipelined_) {
    if (p->kDim_ < 0) continue;
    Reg base = e.reg(RegClass::B32);
    e.inst("mad.lo.u32", {base, nextSlot, p->slotBytes_, cg.sharedAddress(p->offset_)});
    p->next_ = loadFirstSlice(cg, *p, base);
  }
  driven_ = true;
}

void LoopPipeline::afterLastSlice(Codegen& cg) {
  for (const auto& p : pipelined_)
    for (size_t g = 0; g < p->carried_.size(); ++g)
      for (size_t j = 0; j < p->carried_[g].size(); ++j) {
        Reg to = p->carried_[g][j];
        cg.e.inst("mov" + std::string(ptx::regTypeName(to.cls)), {to, p->next_[g][j]});
      }
}

void LoopPipeline::finish(Codegen& cg) {
  ptx::cpAsyncWait(cg.e, 0);
  cg.barrier();
  cg.releaseShared(reservedBytes_);
  for (const auto& p : pipelined_) cg.setPipelined(p->c_.load, nullptr);
  if (dot_) cg.setDotDriver(dot_, nullptr);
}

}  // namespace kiln::lower
