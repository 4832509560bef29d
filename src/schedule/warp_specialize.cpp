// warp_specialize: a loop that asks for it (`tl.range(..., warp_specialize=True)`) and whose slots the
// pipeline fills with TMA runs on two warp partitions (docs/gpu-ir.md), as CUTLASS's Hopper kernels do:
//
//   before      tensor maps, slots, the slots' mbarriers ("full") and one more per slot ("empty",
//               one arrival per consumer thread), a CTA barrier; the scalar setup both sides read
//   consumers   (num_warps warps, the code as it was) iteration i waits for slot i mod S's full phase,
//               runs its dots and, where a barrier let the copies refill slot (i - 1) mod S, arrives on
//               that slot's empty barrier instead (not at i = 0): no CTA barrier in the loop
//   producer    (one warpgroup, setmaxnreg down to 40) the copies of iterations 0 .. S-2, then per
//               iteration i: wait for slot (i - 1) mod S's empty phase of iteration i - 1 (at i = 0 the
//               phase before the first, complete at once), the copies of iteration i + S - 1 into it
//
// The producer's loop is the consumer's with only the scalar slice the copies' coordinates and slots
// need; the copies past the end run as before and the consumers' drain waits for them, so no copy
// lands in bytes the code after the loop reuses. The consumers get the registers the producer gives
// up (setmaxnreg up to 232 at 8 consumer warps). The CTA then has num_warps + 4 warps.
//
// Applies to a loop at the kernel's top level whose copies are all TMA (sm_90a: setmaxnreg and wgmma),
// whose bounds and copy coordinates are scalars computed before it or in its body from scalars, and
// whose code before it that the partitions cannot share is all tiles (moved into the consumers). Any
// other loop keeps its attribute and its schedule (docs/language.md).
#include <algorithm>
#include <set>
#include <unordered_map>

#include "layout/named_layouts.h"
#include "schedule/schedule.h"
#include "schedule/value_uses.h"

namespace kiln::schedule {

namespace {

using ir::Op;
using ir::Opcode;
using ir::Type;
using ir::Value;

constexpr int64_t kProducerWarps = 4;       // one warpgroup: setmaxnreg moves whole warpgroups' budgets
constexpr int64_t kProducerRegisters = 40;  // issues copies and counts phases
constexpr int64_t kConsumerRegisterCap = 240;

struct Plan {
  Op* loop = nullptr;
  Value* full = nullptr;               // the slots' mbarriers, which the copies complete
  std::vector<Op*> bodyCopies;         // tma_load of iteration i + S - 1, in the body
  std::vector<Op*> prologueCopies;     // tma_load of iterations 0 .. S-2, before the loop
  Op* refill = nullptr;                // the barrier before the body's copies
  Op* lastInit = nullptr;              // the last mbarrier_init of `full`
  Value *slot = nullptr, *phase = nullptr, *previous = nullptr;
  std::set<const Op*> slice;           // body ops the producer clones
  std::set<unsigned> carried;          // body arguments (>= 1) the producer carries
  std::set<const Op*> outside;         // ops before the loop that stay before the partitions
};

const Value* bufferOf(const Value* slot) {
  return slot->def && slot->def->opcode == Opcode::SharedSlot ? slot->def->operand(0) : nullptr;
}

// The ops before `loop` that every warp may run (the partitions' shared setup): tensor maps, buffers,
// mbarrier initialisation and its barrier, and pure scalar ops of those and the kernel's parameters.
std::set<const Op*> sharedSetup(const ir::Function& fn, const Op& loop) {
  std::set<const Op*> out;
  auto available = [&](const Value* v) { return v->isBlockArg() ? v->owner == &fn.body : out.count(v->def) > 0; };
  bool afterInit = false;
  for (const auto& op : fn.body.ops) {
    if (op.get() == &loop) break;
    const bool operandsOk = std::all_of(op->operands.begin(), op->operands.end(), available);
    bool setup = false;
    switch (op->opcode) {
      case Opcode::TensorMap: case Opcode::SharedAlloc: setup = true; break;
      case Opcode::MbarrierInit: setup = operandsOk; break;
      case Opcode::Barrier: setup = afterInit && !op->hasAttr("id"); break;
      default:
        setup = op->info().effect == ir::Effect::Pure && op->regions.empty() && operandsOk &&
                std::all_of(op->results.begin(), op->results.end(), [](const auto& r) {
                  return !r->type.isTensor();
                });
    }
    if (!setup) afterInit = false;
    else if (op->opcode == Opcode::MbarrierInit) afterInit = true;
    if (setup) out.insert(op.get());
  }
  return out;
}

std::optional<Plan> plan(ir::Function& fn, Op& loop) {
  Plan p;
  p.loop = &loop;
  ir::Block& body = loop.region(0);
  for (const auto& op : body.ops)
    if (op->opcode == Opcode::TmaLoad) p.bodyCopies.push_back(op.get());
  if (p.bodyCopies.empty()) return std::nullopt;
  Value* bar = p.bodyCopies.front()->operand(1);
  for (const Op* c : p.bodyCopies)
    if (c->operand(1) != bar) return std::nullopt;
  if (!bar->def || bar->def->opcode != Opcode::SharedSlot) return std::nullopt;
  p.full = bar->def->operand(0);
  p.previous = bar->def->operand(1);
  // Iteration i waits for its slot: mbarrier_wait (full[slot], phase), both carried.
  for (const auto& op : body.ops)
    if (op->opcode == Opcode::MbarrierWait && bufferOf(op->operand(0)) == p.full) {
      p.slot = op->operand(0)->def->operand(1);
      p.phase = op->operand(1);
      break;
    }
  if (!p.slot || !p.slot->isBlockArg() || p.slot->owner != &body || !p.phase->isBlockArg() || p.phase->owner != &body)
    return std::nullopt;
  for (size_t i = body.indexOf(p.bodyCopies.front()); i-- > 0;)
    if (body.ops[i]->opcode == Opcode::Barrier && !body.ops[i]->hasAttr("id")) {
      p.refill = body.ops[i].get();
      break;
    }
  if (!p.refill) return std::nullopt;

  p.outside = sharedSetup(fn, loop);
  for (const auto& op : fn.body.ops) {
    if (op.get() == &loop) break;
    if (op->opcode == Opcode::TmaLoad && bufferOf(op->operand(1)) == p.full) p.prologueCopies.push_back(op.get());
    if (op->opcode == Opcode::MbarrierInit && bufferOf(op->operand(0)) == p.full) p.lastInit = op.get();
  }
  if (!p.lastInit || !p.outside.count(p.lastInit)) return std::nullopt;
  auto outside = [&](const Value* v) { return v->isBlockArg() ? v->owner == &fn.body : p.outside.count(v->def) > 0; };
  for (const Op* c : p.prologueCopies)
    if (!std::all_of(c->operands.begin(), c->operands.end(), outside)) return std::nullopt;
  for (unsigned k = 0; k < 3; ++k)
    if (!outside(loop.operand(k))) return std::nullopt;

  // The producer's slice: what the body's copies read, and what the carried values among it advance by.
  const Op* yield = body.terminator();
  std::vector<const Value*> work{p.slot, p.phase};
  for (const Op* c : p.bodyCopies) work.insert(work.end(), c->operands.begin(), c->operands.end());
  std::set<const Value*> seen;
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (v->isBlockArg() && v->owner == &body) {
      if (v->index == 0) continue;  // the induction variable
      p.carried.insert(v->index);
      if (!outside(loop.operand(3 + v->index - 1))) return std::nullopt;
      work.push_back(yield->operand(v->index - 1));
      continue;
    }
    if (outside(v)) continue;
    const Op* d = v->def;
    if (!d || d->parent != &body || d->info().effect != ir::Effect::Pure || !d->regions.empty()) return std::nullopt;
    for (const auto& r : d->results)
      if (r->type.isTensor()) return std::nullopt;
    p.slice.insert(d);
    work.insert(work.end(), d->operands.begin(), d->operands.end());
  }
  return p;
}

// The register budgets of [consumers, producer] after setmaxnreg, or none when the consumers would not
// gain: the launch budget of the whole CTA already reaches the cap.
std::vector<int64_t> registerBudgets(int consumerWarps) {
  const int64_t threads = 32 * (consumerWarps + kProducerWarps);
  const int64_t launch = std::min<int64_t>(248, 65536 / threads / 8 * 8);
  const int64_t consumer =
      std::min<int64_t>(kConsumerRegisterCap, (65536 - 32 * kProducerWarps * kProducerRegisters) / (32 * consumerWarps) / 8 * 8);
  if (consumer <= launch) return {};
  return {consumer, kProducerRegisters};
}

class Specialize {
 public:
  Specialize(ir::Function& fn, Plan p, const GpuContext& ctx) : fn_(fn), p_(std::move(p)), ctx_(ctx) {}

  void run() {
    declareEmptyBarriers();
    Op* partition = createPartition();
    fillProducer(partition->region(1));
    fillConsumers(partition->region(0));
  }

 private:
  Value* i32(ir::Builder& b, int64_t v) { return b.intConst(v, Type::scalar(ir::Scalar::I32), p_.loop->loc); }

  // One more mbarrier per slot, after the full ones: its phase completes when every consumer thread is
  // done with the slot's iteration.
  void declareEmptyBarriers() {
    ir::Builder b(fn_.body, fn_.body.indexOf(p_.lastInit) + 1);
    const SourceLoc& loc = p_.loop->loc;
    empty_ = b.create1(Opcode::SharedAlloc, {}, p_.full->type, p_.full->def->attrs, loc);
    p_.outside.insert(empty_->def);
    const int64_t slots = p_.full->type.slots;
    for (int64_t s = 0; s < slots; ++s) {
      Value* index = i32(b, s);
      Value* slot = b.create1(Opcode::SharedSlot, {empty_, index}, empty_->type.withSlots(1), {}, loc);
      Op* init = b.create(Opcode::MbarrierInit, {slot}, {}, {ir::Attr{"count", int64_t(32) * ctx_.numWarps}}, loc);
      p_.outside.insert({index->def, slot->def, init});
    }
  }

  // The partition op at the end of the kernel's body, and every op that is neither shared setup nor a
  // prologue copy moved, in order, into its first region (the consumers).
  Op* createPartition() {
    ir::Block& top = fn_.body;
    ir::Builder b(top, top.ops.size() - 1);  // before `return`
    std::vector<ir::Attr> attrs{ir::Attr{"warps", std::vector<int64_t>{ctx_.numWarps, kProducerWarps}}};
    if (std::vector<int64_t> regs = registerBudgets(ctx_.numWarps); !regs.empty()) attrs.push_back(ir::Attr{"registers", regs});
    Op* partition = b.create(Opcode::WarpPartition, {}, {}, std::move(attrs), p_.loop->loc);
    ir::Block& consumers = partition->addRegion();
    partition->addRegion();
    std::vector<Op*> moving;
    for (const auto& op : top.ops) {
      if (op.get() == partition) break;
      if (!p_.outside.count(op.get())) moving.push_back(op.get());
    }
    for (Op* op : moving) {
      std::unique_ptr<Op> owned = top.remove(op);
      if (std::find(p_.prologueCopies.begin(), p_.prologueCopies.end(), op) != p_.prologueCopies.end())
        prologue_.push_back(std::move(owned));
      else
        consumers.append(std::move(owned));
    }
    return partition;
  }

  void fillProducer(ir::Block& region) {
    for (auto& copy : prologue_) region.append(std::move(copy));
    const Op& loop = *p_.loop;
    const ir::Block& body = loop.region(0);
    std::vector<Value*> operands{loop.operand(0), loop.operand(1), loop.operand(2)};
    std::vector<Type> types;
    for (unsigned k : p_.carried) {
      operands.push_back(loop.operand(3 + k - 1));
      types.push_back(body.arg(k)->type);
    }
    ir::Builder b(region);
    Op* copies = b.create(Opcode::For, operands, types, {}, loop.loc);
    ir::Block& inner = copies->region(0);
    std::unordered_map<const Value*, Value*> map;
    map[body.arg(0)] = inner.addArg(body.arg(0)->type);
    for (unsigned k : p_.carried) map[body.arg(k)] = inner.addArg(body.arg(k)->type);
    for (const auto& op : body.ops)
      if (p_.slice.count(op.get())) ir::cloneOpInto(*op, inner, inner.ops.size(), map);
    // Slot (i - 1) mod S is free once the consumers are done with iteration i - 1, whose phase parity is
    // iteration i's flipped where i's slot wrapped to 0 (at i = 0 the phase before the first: done).
    ir::Builder ib(inner);
    Value* slot = map.at(p_.slot);
    Value* phase = map.at(p_.phase);
    const Type i32t = Type::scalar(ir::Scalar::I32);
    Value* wrapped = ib.create1(Opcode::Cmp, {slot, i32(ib, 0)}, Type::scalar(ir::Scalar::I1), {ir::Attr{"pred", std::string("eq")}});
    Value* flipped = ib.create1(Opcode::Xor, {phase, i32(ib, 1)}, i32t);
    Value* before = ib.create1(Opcode::Select, {wrapped, flipped, phase}, i32t);
    Value* emptySlot = ib.create1(Opcode::SharedSlot, {empty_, map.at(p_.previous)}, empty_->type.withSlots(1));
    ib.create(Opcode::MbarrierWait, {emptySlot, before}, {}, {}, loop.loc);
    for (const Op* c : p_.bodyCopies) ir::cloneOpInto(*c, inner, inner.ops.size(), map);
    std::vector<Value*> next;
    const Op* yield = body.terminator();
    for (unsigned k : p_.carried) next.push_back(map.at(yield->operand(k - 1)));
    ib.setInsertionPointToEnd(inner);
    ib.create(Opcode::Yield, next, {}, {}, loop.loc);
    ir::Builder(region).create(Opcode::Yield, {}, {}, {}, loop.loc);
  }

  // The consumers: no copies; where the barrier before them stood, each thread arrives on the empty
  // barrier of the slot iteration i - 1 read (from i = 1 on).
  void fillConsumers(ir::Block& region) {
    Op& loop = *p_.loop;
    ir::Block& body = loop.region(0);
    ir::Builder b(body, body.indexOf(p_.refill));
    Value* notFirst = b.create1(Opcode::Cmp, {body.arg(0), loop.operand(0)}, Type::scalar(ir::Scalar::I1),
                                {ir::Attr{"pred", std::string("ne")}}, loop.loc);
    Op* branch = b.create(Opcode::If, {notFirst}, {}, {}, loop.loc);
    ir::Builder then(branch->region(0));
    Value* emptySlot = then.create1(Opcode::SharedSlot, {empty_, p_.previous}, empty_->type.withSlots(1), {}, loop.loc);
    then.create(Opcode::MbarrierArrive, {emptySlot}, {}, {}, loop.loc);
    then.create(Opcode::Yield, {}, {}, {}, loop.loc);
    ir::Builder(branch->region(1)).create(Opcode::Yield, {}, {}, {}, loop.loc);
    body.remove(p_.refill);
    ValueUses uses(fn_);  // the copies go, and the slices only they read
    for (Op* c : p_.bodyCopies) {
      const std::vector<Value*> read = c->operands;
      body.remove(c);
      uses.release(read);
    }
    ir::Builder(region).create(Opcode::Yield, {}, {}, {}, loop.loc);
  }

  ir::Function& fn_;
  Plan p_;
  const GpuContext& ctx_;
  Value* empty_ = nullptr;
  std::vector<std::unique_ptr<Op>> prologue_;
};

}  // namespace

void warpSpecialize(ir::Function& fn, const GpuContext& ctx) {
  if (!ctx.target.archSpecific || ctx.target.sm < 90) return;
  if (ctx.numWarps % 4 || ctx.numWarps + kProducerWarps > 32) return;  // consumers in whole warpgroups
  for (const auto& op : fn.body.ops) {
    if (op->opcode != Opcode::For || !op->intAttrOr("warp_specialize", 0)) continue;
    if (std::optional<Plan> p = plan(fn, *op)) Specialize(fn, std::move(*p), ctx).run();
    return;  // one partition per kernel
  }
}

}  // namespace kiln::schedule
