// warp_specialize: a top-level loop that asks for it (`tl.range(..., warp_specialize=True)`) and that the
// pipeline gave its warp-specialized form (pipeline_specialized.cpp: each iteration waits for its slot's
// "empty" mbarrier, copies its own tiles by TMA, waits for the slot's "full" mbarrier, runs its wgmma and
// releases the previous slot) runs on two warp partitions (docs/gpu-ir.md), as CUTLASS's Hopper kernels do:
//
//   before      tensor maps, slots, full and empty mbarriers, a CTA barrier; the scalars both sides read
//   consumers   (num_warps warps, setmaxnreg up to 232 at 8) the code as it was, without the copies and
//               the empty waits: wait full, wgmma, release; the epilogue; everything else the kernel does
//   producer    (one warpgroup, setmaxnreg down to 40) the loop nest's skeleton: the same loops, carrying
//               only what the copies need, each iteration waiting for its slot's empty phase and copying
//
// The producer runs ahead of the consumers by as many iterations as there are slots, across the root
// loop's iterations too (a persistent kernel's next tile loads while the consumers store the last). The
// CTA then has num_warps + 4 warps.
//
// The root may also be the TMA version of a pointer-built loop, in the then-region of its check's
// top-level `if` (tma_versioning.h): the setup before it moves before the `if`, the consumers run the
// whole `if` and the producer's skeleton sits in an `if` on the same check. Such an `if` may also sit
// in the root loop's body (a persistent kernel's loop over programs, the check made per tile): the
// producer's skeleton then holds a copy of it with the results it reads (slot and phase).
//
// Applies when everything the producer needs (loop bounds, coordinates, slots, phases) is scalar code in
// the loop bodies of the nest or shared setup before the root (kernel parameters, program ids, constants,
// tensor maps, buffers, mbarriers); the code before the root that is not such setup moves into the
// consumers. Otherwise the loop keeps the pipeline's form, which runs correctly on every warp.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

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

const Value* bufferOf(const Value* slot) {
  return slot->def && slot->def->opcode == Opcode::SharedSlot ? slot->def->operand(0) : nullptr;
}

// Whether `op` is shared setup (sharedSetup below), its operands available (`operandsOk`), after mbarrier initialisation or not.
bool setupOp(const Op& op, bool operandsOk, bool afterInit) {
  switch (op.opcode) {
    case Opcode::TensorMap: case Opcode::SharedAlloc: return true;
    case Opcode::MbarrierInit: return operandsOk;
    case Opcode::Barrier: return afterInit && !op.hasAttr("id");
    default:
      return op.info().effect == ir::Effect::Pure && op.regions.empty() && operandsOk &&
             std::all_of(op.results.begin(), op.results.end(), [](const auto& r) { return !r->type.isTensor(); });
  }
}

// The top-level op holding `root`: itself, or the check's `if` around a pointer-built loop's TMA version.
const Op& topLevel(const Op& root) { return root.parent->parentFunc ? root : *root.parentOp(); }

// The ops before `root` that every warp may run (the partitions' shared setup): tensor maps, buffers,
// mbarrier initialisation and its barrier, and pure scalar ops of those and the kernel's parameters.
std::set<const Op*> sharedSetup(const ir::Function& fn, const Op& root) {
  std::set<const Op*> out;
  auto available = [&](const Value* v) { return v->isBlockArg() ? v->owner == &fn.body : out.count(v->def) > 0; };
  bool afterInit = false;
  for (const auto& op : fn.body.ops) {
    if (op.get() == &topLevel(root)) break;
    const bool operandsOk = std::all_of(op->operands.begin(), op->operands.end(), available);
    const bool setup = setupOp(*op, operandsOk, afterInit);
    if (!setup) afterInit = false;
    else if (op->opcode == Opcode::MbarrierInit) afterInit = true;
    if (setup) out.insert(op.get());
  }
  return out;
}

// For a root in the then-region of the check's `if` (the TMA version of a pointer-built loop): moves
// the setup the pipeline put before it (slots, mbarriers, their barrier, scalars) to before the `if`,
// where every warp runs it. False, moving nothing, when anything else comes first.
bool hoistSetup(ir::Function& fn, Op& root) {
  if (root.parent->parentFunc) return true;
  Op& check = *root.parentOp();
  ir::Block& then = *root.parent;
  std::set<const Op*> moved;
  auto available = [&](const Value* v) {
    const ir::Block* b = v->isBlockArg() ? v->owner : v->def->parent;
    return b == &fn.body || (!v->isBlockArg() && moved.count(v->def));
  };
  bool afterInit = false;
  std::vector<Op*> prefix;
  for (const auto& op : then.ops) {
    if (op.get() == &root) break;
    if (!setupOp(*op, std::all_of(op->operands.begin(), op->operands.end(), available), afterInit)) return false;
    afterInit = afterInit || op->opcode == Opcode::MbarrierInit;
    moved.insert(op.get());
    prefix.push_back(op.get());
  }
  for (Op* op : prefix) fn.body.insert(fn.body.indexOf(&check), then.remove(op));
  return true;
}

// What the producer takes of the root's loop nest.
struct Plan {
  Op* root = nullptr;
  std::set<const Op*> producer;                 // tma_load and the waits for empty slots
  std::set<const Op*> slice;                    // the scalar ops they need, in the nest's loop bodies
  std::map<const Op*, std::set<unsigned>> loops;  // the nest's loops holding producer ops: body args carried
  // The nest's `if`s holding producer ops (a pointer-built loop's check inside the root): results kept.
  std::map<const Op*, std::set<unsigned>> branches;
  std::set<const Op*> outside;                  // ops before the root that stay before the partitions
};

bool holdsProducerOps(const ir::Block& b, const std::set<const Op*>& producer) {
  for (const auto& op : b.ops) {
    if (producer.count(op.get())) return true;
    for (const auto& r : op->regions)
      if (holdsProducerOps(*r, producer)) return true;
  }
  return false;
}

std::optional<Plan> plan(ir::Function& fn, Op& root) {
  Plan p;
  p.root = &root;
  // The copies, and every mbarrier wait on a buffer no copy completes (the empty slots').
  std::set<const Value*> full;
  std::vector<const Op*> waits;
  ir::walk(root.region(0), [&](Op& op) {
    if (op.opcode == Opcode::TmaLoad) {
      p.producer.insert(&op);
      full.insert(bufferOf(op.operand(1)));
    } else if (op.opcode == Opcode::MbarrierWait) {
      waits.push_back(&op);
    }
  });
  if (p.producer.empty()) return std::nullopt;
  bool emptyWaits = false;
  for (const Op* w : waits)
    if (!full.count(bufferOf(w->operand(0)))) p.producer.insert(w), emptyWaits = true;
  if (!emptyWaits) return std::nullopt;  // not the pipeline's warp-specialized form

  // The loops from the root down to the producer ops, and nothing else with producer ops inside.
  std::vector<const ir::Block*> work{&root.region(0)};
  p.loops[&root];
  while (!work.empty()) {
    const ir::Block* b = work.back();
    work.pop_back();
    for (const auto& op : b->ops) {
      const bool holds = std::any_of(op->regions.begin(), op->regions.end(),
                                     [&](const auto& r) { return holdsProducerOps(*r, p.producer); });
      if (!holds) continue;
      if (op->opcode == Opcode::If) {
        p.branches[op.get()];
        for (const auto& r : op->regions) work.push_back(r.get());
        continue;
      }
      if (op->opcode != Opcode::For) return std::nullopt;  // under a while: not a skeleton
      p.loops[op.get()];
      work.push_back(&op->region(0));
    }
  }

  p.outside = sharedSetup(fn, root);
  auto outside = [&](const Value* v) { return v->isBlockArg() ? v->owner == &fn.body : p.outside.count(v->def) > 0; };
  auto loopOfBody = [&](const ir::Block* b) -> const Op* {
    return b->parentOp && p.loops.count(b->parentOp) ? b->parentOp : nullptr;
  };
  auto inNest = [&](const ir::Block* b) { return loopOfBody(b) || (b->parentOp && p.branches.count(b->parentOp)); };
  std::vector<const Value*> values;
  for (const Op* op : p.producer) values.insert(values.end(), op->operands.begin(), op->operands.end());
  for (const auto& [loop, carried] : p.loops) values.insert(values.end(), loop->operands.begin(), loop->operands.begin() + 3);
  for (const auto& [branch, kept] : p.branches) values.push_back(branch->operand(0));
  std::set<const Value*> seen;
  auto carry = [&](const Op* loop, unsigned arg) {  // body argument `arg` (>= 1): its init and what the body yields
    if (!p.loops.at(loop).insert(arg).second) return;
    values.push_back(loop->operand(3 + arg - 1));
    values.push_back(loop->region(0).terminator()->operand(arg - 1));
  };
  auto keep = [&](const Op* branch, unsigned result) {  // what both regions yield for it
    if (!p.branches.at(branch).insert(result).second) return;
    for (const auto& r : branch->regions) values.push_back(r->terminator()->operand(result));
  };
  while (!values.empty()) {
    const Value* v = values.back();
    values.pop_back();
    if (!seen.insert(v).second || outside(v)) continue;
    if (v->isBlockArg()) {
      const Op* loop = loopOfBody(v->owner);
      if (!loop) return std::nullopt;
      if (v->index > 0) carry(loop, v->index);
      continue;
    }
    const Op* d = v->def;
    if (p.loops.count(d)) {  // a result of a loop of the nest
      carry(d, v->index + 1);
      continue;
    }
    if (p.branches.count(d)) {
      keep(d, v->index);
      continue;
    }
    if (!inNest(d->parent) || d->info().effect != ir::Effect::Pure || !d->regions.empty()) return std::nullopt;
    for (const auto& r : d->results)
      if (r->type.isTensor()) return std::nullopt;
    p.slice.insert(d);
    values.insert(values.end(), d->operands.begin(), d->operands.end());
  }
  return p;
}

// The register budgets of [consumers, producer] after setmaxnreg, or none when the consumers would not
// gain: the launch budget of the whole CTA already reaches the cap.
std::vector<int64_t> registerBudgets(int consumerWarps) {
  const int64_t threads = 32 * (consumerWarps + kProducerWarps);
  const int64_t launch = std::min<int64_t>(248, 65536 / threads / 8 * 8);
  const int64_t consumer = std::min<int64_t>(
      kConsumerRegisterCap, (65536 - 32 * kProducerWarps * kProducerRegisters) / (32 * consumerWarps) / 8 * 8);
  if (consumer <= launch) return {};
  return {consumer, kProducerRegisters};
}

class Specialize {
 public:
  Specialize(ir::Function& fn, Plan p, const GpuContext& ctx) : fn_(fn), p_(std::move(p)), ctx_(ctx) {}

  void run() {
    // (the TMA version of a pointer-built loop: the producer copies only when the check holds)
    Value* check = p_.root->parent->parentFunc ? nullptr : p_.root->parentOp()->operand(0);
    Op* partition = createPartition();
    ir::Block& producer = partition->region(1);
    std::unordered_map<const Value*, Value*> map;
    if (!check) {
      cloneSkeleton(*p_.root, producer, map);
    } else {
      Op* guard = ir::Builder(producer).create(Opcode::If, {check}, {}, {}, p_.root->loc);
      cloneSkeleton(*p_.root, guard->region(0), map);
      for (unsigned r = 0; r < 2; ++r) ir::Builder(guard->region(r)).create(Opcode::Yield, {}, {}, {}, p_.root->loc);
    }
    ir::Builder(producer).create(Opcode::Yield, {}, {}, {}, p_.root->loc);
    dropProducerOps();
    ir::Builder(partition->region(0)).create(Opcode::Yield, {}, {}, {}, p_.root->loc);
  }

 private:
  // The partition op at the end of the kernel's body, and every op that is not shared setup moved, in
  // order, into its first region (the consumers).
  Op* createPartition() {
    ir::Block& top = fn_.body;
    ir::Builder b(top, top.ops.size() - 1);  // before `return`
    // (the producer's copies are one thread's: its warpgroup's other warps only take the register cut)
    std::vector<ir::Attr> attrs{ir::Attr{"warps", std::vector<int64_t>{ctx_.numWarps, kProducerWarps}},
                                ir::Attr{"lead_warp", std::vector<int64_t>{0, 1}}};
    if (std::vector<int64_t> regs = registerBudgets(ctx_.numWarps); !regs.empty()) attrs.push_back(ir::Attr{"registers", regs});
    Op* partition = b.create(Opcode::WarpPartition, {}, {}, std::move(attrs), p_.root->loc);
    ir::Block& consumers = partition->addRegion();
    partition->addRegion();
    std::vector<Op*> moving;
    for (const auto& op : top.ops) {
      if (op.get() == partition) break;
      if (!p_.outside.count(op.get())) moving.push_back(op.get());
    }
    for (Op* op : moving) consumers.append(top.remove(op));
    return partition;
  }

  // A copy of loop `loop` in `dst` carrying only the producer's arguments, its body the producer ops, the
  // scalar slice they read and the loops holding more of them, in their order.
  void cloneSkeleton(const Op& loop, ir::Block& dst, std::unordered_map<const Value*, Value*>& map) {
    auto mapped = [&](Value* v) {
      auto it = map.find(v);
      return it == map.end() ? v : it->second;
    };
    const std::set<unsigned>& carried = p_.loops.at(&loop);
    const ir::Block& body = loop.region(0);
    std::vector<Value*> operands{mapped(loop.operand(0)), mapped(loop.operand(1)), mapped(loop.operand(2))};
    std::vector<Type> types;
    for (unsigned k : carried) {
      operands.push_back(mapped(loop.operand(3 + k - 1)));
      types.push_back(body.arg(k)->type);
    }
    Op* copy = ir::Builder(dst).create(Opcode::For, operands, types, {}, loop.loc);
    ir::Block& inner = copy->region(0);
    map[body.arg(0)] = inner.addArg(body.arg(0)->type);
    unsigned result = 0;
    for (unsigned k : carried) {
      map[body.arg(k)] = inner.addArg(body.arg(k)->type);
      map[loop.result(k - 1)] = copy->result(result++);
    }
    cloneBlock(body, inner, map);
    std::vector<Value*> next;
    for (unsigned k : carried) next.push_back(mapped(body.terminator()->operand(k - 1)));
    ir::Builder(inner).create(Opcode::Yield, next, {}, {}, loop.loc);
  }

  // The producer's part of a block of the nest, appended to `dst` (without the terminator).
  void cloneBlock(const ir::Block& src, ir::Block& dst, std::unordered_map<const Value*, Value*>& map) {
    for (const auto& op : src.ops) {
      if (p_.loops.count(op.get())) cloneSkeleton(*op, dst, map);
      else if (p_.branches.count(op.get())) cloneBranch(*op, dst, map);
      else if (p_.producer.count(op.get()) || p_.slice.count(op.get())) ir::cloneOpInto(*op, dst, dst.ops.size(), map);
    }
  }

  // A copy of `if` `branch` in `dst` with the results the producer reads, its regions the producer's parts.
  void cloneBranch(const Op& branch, ir::Block& dst, std::unordered_map<const Value*, Value*>& map) {
    auto mapped = [&](Value* v) {
      auto it = map.find(v);
      return it == map.end() ? v : it->second;
    };
    const std::set<unsigned>& kept = p_.branches.at(&branch);
    std::vector<Type> types;
    for (unsigned k : kept) types.push_back(branch.result(k)->type);
    Op* copy = ir::Builder(dst).create(Opcode::If, {mapped(branch.operand(0))}, types, {}, branch.loc);
    for (unsigned r = 0; r < 2; ++r) {
      cloneBlock(branch.region(r), copy->region(r), map);
      std::vector<Value*> next;
      for (unsigned k : kept) next.push_back(mapped(branch.region(r).terminator()->operand(k)));
      ir::Builder(copy->region(r)).create(Opcode::Yield, next, {}, {}, branch.loc);
    }
    unsigned result = 0;
    for (unsigned k : kept) map[branch.result(k)] = copy->result(result++);
  }

  // The consumers keep everything but the producer ops, and the slices only those read.
  void dropProducerOps() {
    ValueUses uses(fn_);
    std::vector<Op*> ops;
    ir::walk(p_.root->region(0), [&](Op& op) {
      if (p_.producer.count(&op)) ops.push_back(&op);
    });
    for (Op* op : ops) {
      const std::vector<Value*> read = op->operands;
      op->parent->remove(op);
      uses.release(read);
    }
  }

  ir::Function& fn_;
  Plan p_;
  const GpuContext& ctx_;
};

}  // namespace

bool warpSpecializable(const GpuContext& ctx) {
  return ctx.target.archSpecific && ctx.target.sm >= 90 && ctx.numWarps % 4 == 0 && ctx.numWarps + kProducerWarps <= 32;
}

void warpSpecialize(ir::Function& fn, const GpuContext& ctx) {
  if (!warpSpecializable(ctx)) return;
  for (const auto& op : fn.body.ops) {
    Op* root = op.get();
    if (op->opcode == Opcode::If)  // the check around a pointer-built loop's TMA version
      for (const auto& inner : op->region(0).ops)
        if (inner->opcode == Opcode::For && inner->intAttrOr("warp_specialize", 0)) root = inner.get();
    if (root->opcode != Opcode::For || !root->intAttrOr("warp_specialize", 0)) continue;
    if (!hoistSetup(fn, *root)) return;
    if (std::optional<Plan> p = plan(fn, *root)) Specialize(fn, std::move(*p), ctx).run();
    return;  // one partition per kernel
  }
}

}  // namespace kiln::schedule
