// defer_mma_waits: the wait for a wgmma's result (`mma_wait {pending = 0}` right after its `mma`, as the
// pipeline issues a dot whose group does not stay in flight) moves down its block to the first op that
// reads the result, so the instructions in between run while the tensor cores work; `pending` becomes
// the number of wgmma groups issued after the mma by then (wait_group N waits for all but the N most
// recent groups, so the later ones keep running). With overlap_dots' rotated attention loop this is what
// overlaps the softmax of one block with the P V product of the one before:
//
//   S = mma Q, K_j             S = mma Q, K_j
//   S = mma_wait S {0}         acc = mma P, V_j-1, acc'
//   acc = mma P, V_j-1, acc'   S = mma_wait S {1}        (S done; P V still running)
//   acc = mma_wait acc {0}     softmax(S) -> P, alpha
//   softmax(S) -> P, alpha     acc = mma_wait acc {0}
//   acc' = acc * alpha         acc' = acc * alpha
//
// A wait stops short of anything that orders shared memory or other asynchronous work (barriers, copies,
// stores to shared memory, other waits), of ops with regions and of the block's end, so a slot the mma
// reads is never refilled or released before it.
#include <algorithm>

#include "schedule/schedule.h"

namespace kiln::schedule {

namespace {

using ir::Op;
using ir::Opcode;

bool stopsWaits(const Op& op) {
  switch (op.opcode) {
    case Opcode::MmaWait: case Opcode::Barrier: case Opcode::AsyncCopy: case Opcode::AsyncCommit:
    case Opcode::AsyncWait: case Opcode::TmaLoad: case Opcode::TmaStore: case Opcode::TmaStoreWait:
    case Opcode::LocalStore: case Opcode::MbarrierInit: case Opcode::MbarrierArrive: case Opcode::MbarrierExpectTx:
    case Opcode::MbarrierWait: case Opcode::FenceAsyncShared: case Opcode::DebugBarrier: case Opcode::AsyncCopyArrive:
    case Opcode::WarpgroupTurn:
      return true;
    default:
      return !op.regions.empty() || op.info().effect == ir::Effect::Terminator;
  }
}

bool reads(const Op& op, const Op& wait) {
  for (const auto& r : wait.results)
    if (std::count(op.operands.begin(), op.operands.end(), r.get())) return true;
  return false;
}

// The wgmma whose result `wait` waits for alone, in the same block, or null.
const Op* waitedMma(const Op& wait) {
  if (wait.opcode != Opcode::MmaWait || wait.numOperands() != 1 || wait.intAttr("pending") != 0) return nullptr;
  const Op* mma = wait.operand(0)->def;
  if (!mma || mma->opcode != Opcode::Mma || !mma->intAttrOr("wgmma", 0) || mma->parent != wait.parent) return nullptr;
  return mma;
}

void deferIn(ir::Block& block) {
  std::vector<Op*> waits;
  for (const auto& op : block.ops)
    if (waitedMma(*op)) waits.push_back(op.get());
  for (auto it = waits.rbegin(); it != waits.rend(); ++it) {  // the last first: it may clear the way
    Op* wait = *it;
    const size_t from = block.indexOf(wait);
    size_t to = from + 1;
    while (to < block.ops.size() && !stopsWaits(*block.ops[to]) && !reads(*block.ops[to], *wait)) ++to;
    if (to == from + 1) continue;
    int64_t later = 0;  // groups issued after the mma before the wait's new place
    for (size_t i = block.indexOf(waitedMma(*wait)) + 1; i < to; ++i)
      if (block.ops[i]->opcode == Opcode::Mma && block.ops[i]->intAttrOr("wgmma", 0)) ++later;
    std::unique_ptr<Op> moved = block.remove(wait);
    moved->setAttr("pending", later);
    block.insert(to - 1, std::move(moved));
  }
  for (const auto& op : block.ops)
    for (const auto& r : op->regions) deferIn(*r);
}

}  // namespace

void deferMmaWaits(ir::Function& fn, const GpuContext& ctx) {
  if (ctx.target.sm < 90) return;
  deferIn(fn.body);
}

}  // namespace kiln::schedule
