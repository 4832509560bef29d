// insert_barriers: a CTA barrier before every shared-memory access that could race an earlier access by
// another thread to the same bytes. The pass walks the code in order with the byte ranges that threads
// may still be reading or writing since the last barrier (what Triton's membar analysis does for its
// buffers):
//   - local_load, an mma reading a slot, mbarrier arrive/expect_tx/wait read; local_store and
//     mbarrier_init write. A read of bytes with a pending write, or a write of bytes with a pending read
//     or write, gets a `barrier` first, which clears both sets.
//   - async_copy writes asynchronously: its bytes are in flight until an async_wait, which turns them into
//     pending writes (the pipeline decides how many groups to wait for; this pass makes what landed
//     visible to the other threads). A copy into bytes others may still read or write waits for a barrier.
//   - tma_load writes its slot asynchronously too, and reads its mbarrier (arrive.expect_tx). Its bytes
//     are ordered for their readers by an mbarrier_wait on that mbarrier (the wait acquires what the copies
//     completed, in every thread that waits), not by a barrier, so they leave nothing pending. Like a copy,
//     a refill of bytes others may still read or write (the previous fill's local_loads) waits for a
//     barrier first.
//   - tma_store reads its slot asynchronously (one thread's bulk copy) after the barrier that orders the
//     slot's writers before it; its bytes stay asynchronously read until a tma_store_wait {pending = 0},
//     which turns them into pending reads (of the issuing thread: a later write by another thread waits
//     for a barrier). A write over bytes still asynchronously read is a compile error: no barrier orders
//     it. A wait with pending > 0 keeps them all (which groups it leaves is not tracked).
//   - Control flow: an `if` leaves the union of its branches; a loop body starts from the union of what
//     comes before the loop and what the body leaves at its back edge (iterated to a fixed point, so the
//     next iteration's first accesses see the last iteration's); a warp partition starts from nothing (a
//     CTA barrier goes first when anything is pending) and ends with the CTA barrier the code generator
//     puts after it. Inside a partition an attribute-less barrier is the partition's own.
//   - An op with scratch (allocate_shared's `scratch = [offset, bytes]`, scratch_size.h) writes it first,
//     passes its own barrier, reads it, and leaves the reads pending unless a second barrier ends it.
//   - A shared_alloc's first writes (a pipeline's prologue copies) must not overwrite bytes others may
//     still read; after a buffer's last use its bytes count as read until the next barrier (threads may
//     still be reading them when scratch placed over them is written).
// A slot whose index is not a constant, or a buffer passed through a region argument, counts as the
// whole buffer, or as all of shared memory. A `pipelined` buffer counts as no bytes: the pipeline pass
// orders its slots with its own waits and barriers (each iteration writes the slot the previous one
// read, which a whole-buffer view would take for a race).
#include <algorithm>
#include <limits>

#include <unordered_map>

#include "schedule/buffer_liveness.h"
#include "schedule/schedule.h"
#include "schedule/scratch_size.h"
#include "support/diagnostic.h"

namespace kiln::schedule {

namespace {

using ir::Opcode;

struct Range {
  int64_t begin = 0, end = 0;
  bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
  bool operator==(const Range&) const = default;
};

struct State {
  std::vector<Range> reads, writes, inFlight;
  std::vector<Range> asyncReads;  // slots tma_stores may still read (until a tma_store_wait)
  bool operator==(const State&) const = default;
  void join(const State& o) {
    auto add = [](std::vector<Range>& to, const std::vector<Range>& from) {
      for (const Range& r : from)
        if (std::find(to.begin(), to.end(), r) == to.end()) to.push_back(r);
    };
    add(reads, o.reads);
    add(writes, o.writes);
    add(inFlight, o.inFlight);
    add(asyncReads, o.asyncReads);
  }
  void barrier() {
    reads.clear();
    writes.clear();
  }
};

bool overlapsAny(const std::vector<Range>& set, const Range& r) {
  return std::any_of(set.begin(), set.end(), [&](const Range& p) { return p.overlaps(r); });
}

// The bytes a shared value (a buffer or one of its slots) stands for.
Range bytesOf(const ir::Value* v) {
  const ir::Op* def = v->def;
  if (def && def->opcode == Opcode::SharedAlloc) {
    if (def->hasAttr("pipelined")) return {0, 0};
    if (!def->hasAttr("offset")) throw InternalError(def->loc, "insert_barriers runs after allocate_shared");
    const int64_t at = def->intAttr("offset");
    return {at, at + v->type.slots * v->type.slotStride()};
  }
  if (def && def->opcode == Opcode::SharedPermute) return bytesOf(def->operand(0));  // a view of the slot
  if (def && def->opcode == Opcode::SharedSlot) {
    Range buffer = bytesOf(def->operand(0));
    if (buffer.begin == buffer.end) return buffer;
    const ir::Op* index = def->operand(1)->def;
    if (!index || index->opcode != Opcode::Constant || !std::holds_alternative<int64_t>(*index->findAttr("value")))
      return buffer;
    const int64_t stride = def->operand(0)->type.slotStride();
    const int64_t at = buffer.begin + std::get<int64_t>(*index->findAttr("value")) * stride;
    return {at, at + v->type.slotBytes()};
  }
  return {0, std::numeric_limits<int64_t>::max()};  // a region argument: anything
}

// The bytes of a buffer, pipelined or not.
Range wholeBuffer(const ir::Op& alloc) {
  const ir::Type& t = alloc.result(0)->type;
  const int64_t at = alloc.intAttr("offset");
  return {at, at + t.slots * t.slotStride()};
}

// An op's scratch (empty when it has none).
Range scratchOf(const ir::Op& op) {
  if (!op.hasAttr("scratch")) return {};
  const std::vector<int64_t>& s = op.listAttr("scratch");
  return {s.at(0), s.at(0) + s.at(1)};
}

class BarrierPass {
 public:
  BarrierPass(const ir::Function& fn, const GpuContext& ctx) : ctx_(ctx), warps_(ctx.numWarps) {
    for (const BufferLiveRange& b : bufferLiveRanges(fn)) deadAfter_.emplace(b.lastUser, wholeBuffer(*b.alloc));
  }

  void block(ir::Block& b, State& s, bool insert) {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      ir::Op& op = *b.ops[i];
      if (needsBarrier(op, s)) {
        s.barrier();
        if (insert) {
          ir::Builder(b, i).create(Opcode::Barrier, {}, {}, {}, op.loc);
          ++i;  // op moved one place on
        }
      }
      after(op, s, insert);
      auto [from, to] = deadAfter_.equal_range(&op);
      for (auto it = from; it != to; ++it) s.reads.push_back(it->second);
    }
  }

 private:
  const GpuContext& ctx_;
  int partitionDepth_ = 0;
  int warps_;  // of the code being walked (a warp partition's own)
  std::unordered_multimap<const ir::Op*, Range> deadAfter_;  // a buffer's last user -> its bytes

  static bool conflictsRead(const State& s, const Range& r) { return overlapsAny(s.writes, r); }
  static bool conflictsWrite(const State& s, const Range& r) { return overlapsAny(s.writes, r) || overlapsAny(s.reads, r); }

  // A write over bytes a tma_store may still read: no barrier orders it, only a tma_store_wait first.
  static void requireStoreWaited(const ir::Op& op, const State& s, const Range& r) {
    if (overlapsAny(s.asyncReads, r))
      throw CompileError(op.loc, std::string(op.name()) + " writes shared memory that a tma_store may still be reading: "
                                                          "a tma_store_wait must come between them");
  }

  bool needsBarrier(const ir::Op& op, const State& s) const {
    if (op.hasAttr("scratch")) requireStoreWaited(op, s, scratchOf(op));
    switch (op.opcode) {
      case Opcode::LocalStore: case Opcode::MbarrierInit: case Opcode::AsyncCopy: case Opcode::TmaLoad:
        requireStoreWaited(op, s, bytesOf(op.operand(0)));
        break;
      case Opcode::SharedAlloc:
        requireStoreWaited(op, s, wholeBuffer(op));
        break;
      default:
        break;
    }
    if (op.hasAttr("scratch") && conflictsWrite(s, scratchOf(op))) return true;
    switch (op.opcode) {
      case Opcode::LocalLoad: case Opcode::MbarrierArrive: case Opcode::MbarrierExpectTx: case Opcode::MbarrierWait:
      case Opcode::TmaStore:
        return conflictsRead(s, bytesOf(op.operand(0)));
      case Opcode::Mma:
        for (unsigned i = 0; i < 2; ++i)
          if (op.operand(i)->type.isShared() && conflictsRead(s, bytesOf(op.operand(i)))) return true;
        return false;
      case Opcode::LocalStore: case Opcode::MbarrierInit: case Opcode::AsyncCopy:
        return conflictsWrite(s, bytesOf(op.operand(0)));
      case Opcode::TmaLoad:
        return conflictsWrite(s, bytesOf(op.operand(0))) || conflictsRead(s, bytesOf(op.operand(1)));
      case Opcode::SharedAlloc:
        return conflictsWrite(s, wholeBuffer(op));
      case Opcode::WarpPartition:  // the partitions start from nothing pending
        return !s.reads.empty() || !s.writes.empty();
      default:
        return false;
    }
  }

  // What op leaves pending (its own accesses, or its regions').
  void after(ir::Op& op, State& s, bool insert) {
    if (op.hasAttr("scratch")) {
      s.barrier();  // its own, between its writes and its reads
      if (scratchUse(op, warps_, ctx_.target).leavesReads) s.reads.push_back(scratchOf(op));
    }
    switch (op.opcode) {
      case Opcode::LocalLoad: case Opcode::MbarrierArrive: case Opcode::MbarrierExpectTx: case Opcode::MbarrierWait:
        s.reads.push_back(bytesOf(op.operand(0)));
        return;
      case Opcode::TmaLoad:  // its slot is ordered for readers by their mbarrier_wait, not by a barrier
        s.reads.push_back(bytesOf(op.operand(1)));
        return;
      case Opcode::Mma:
        for (unsigned i = 0; i < 2; ++i)
          if (op.operand(i)->type.isShared()) s.reads.push_back(bytesOf(op.operand(i)));
        return;
      case Opcode::LocalStore: case Opcode::MbarrierInit:
        s.writes.push_back(bytesOf(op.operand(0)));
        return;
      case Opcode::AsyncCopy:
        s.inFlight.push_back(bytesOf(op.operand(0)));
        return;
      case Opcode::AsyncWait:
        s.writes.insert(s.writes.end(), s.inFlight.begin(), s.inFlight.end());
        s.inFlight.clear();
        return;
      case Opcode::TmaStore:
        s.asyncReads.push_back(bytesOf(op.operand(0)));
        return;
      case Opcode::TmaStoreWait:  // the issuing thread's copies are done reading; others learn it at a barrier
        if (op.intAttr("pending") == 0) {
          s.reads.insert(s.reads.end(), s.asyncReads.begin(), s.asyncReads.end());
          s.asyncReads.clear();
        }
        return;
      case Opcode::Barrier:
        if (clearsAll(op)) s.barrier();
        return;
      case Opcode::FenceAsyncShared:  // orders this thread's accesses, not other threads'
        return;
      case Opcode::DebugBarrier:  // tl.debug_barrier: the bar.sync of every thread running the code
        s.barrier();
        return;
      case Opcode::If: {
        State other = s;
        block(op.region(0), s, insert);
        block(op.region(1), other, insert);
        s.join(other);
        return;
      }
      case Opcode::For: return loop(op, s, insert);
      case Opcode::While: return loop(op, s, insert);
      case Opcode::WarpPartition: {
        State out;
        ++partitionDepth_;
        const int outerWarps = warps_;
        const std::vector<int64_t>& warps = op.listAttr("warps");
        for (size_t i = 0; i < op.regions.size(); ++i) {
          State inside;
          warps_ = int(warps.at(i));
          block(*op.regions[i], inside, insert);
          out.inFlight.insert(out.inFlight.end(), inside.inFlight.begin(), inside.inFlight.end());
          out.asyncReads.insert(out.asyncReads.end(), inside.asyncReads.begin(), inside.asyncReads.end());
        }
        warps_ = outerWarps;
        --partitionDepth_;
        s.barrier();  // the code generator's CTA barrier after the partitions
        s.inFlight.insert(s.inFlight.end(), out.inFlight.begin(), out.inFlight.end());
        s.asyncReads.insert(s.asyncReads.end(), out.asyncReads.begin(), out.asyncReads.end());
        return;
      }
      default:
        return;
    }
  }

  // A barrier of every thread running the code: the attribute-less one (the CTA's, or in a partition the
  // partition's), or id 0 of every thread of the CTA.
  bool clearsAll(const ir::Op& op) const {
    if (!op.hasAttr("id") && !op.hasAttr("threads")) return true;
    return partitionDepth_ == 0 && op.intAttrOr("id", 0) == 0 &&
           op.intAttrOr("threads", ctx_.numWarps * 32) == ctx_.numWarps * 32;
  }

  // The regions of a loop run again and again: they start from what comes before the loop joined with
  // what they leave, to a fixed point (the ranges are finitely many, so it comes).
  void loop(ir::Op& op, State& s, bool insert) {
    State in = s;
    for (int round = 0;; ++round) {
      if (round > 64) throw InternalError(op.loc, "insert_barriers: a loop's pending accesses do not settle");
      State through = in;
      for (auto& r : op.regions) block(*r, through, false);
      State next = s;
      next.join(through);
      if (next == in) break;
      in = std::move(next);
    }
    // The loop leaves after any region (a while loop's condition ends its before region): the union of
    // what is pending after each, from `in` (which already holds what comes before the loop).
    State exit = in, through = in;
    for (auto& r : op.regions) {
      block(*r, through, false);
      exit.join(through);
    }
    through = in;
    for (auto& r : op.regions) block(*r, through, insert);
    s = std::move(exit);
  }
};

}  // namespace

void insertBarriers(ir::Function& fn, const GpuContext& ctx) {
  State s;
  BarrierPass(fn, ctx).block(fn.body, s, true);
}

}  // namespace kiln::schedule
