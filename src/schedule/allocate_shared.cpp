// allocate_shared: an offset for every shared buffer, from the buffers' live ranges (buffer_liveness.h),
// then for every op's scratch (scratch_size.h).
// Buffers are placed largest first, each at the lowest 128-byte boundary (or its own `align`, wgmma's
// swizzled tiles) where it overlaps no placed buffer that is live at the same time.
// Scratch is placed in program order, 16-byte aligned, at the lowest place that overlaps no buffer live
// at the op: between two of them where it fits (a persistent matmul's k loop converts through the bytes
// its epilogue's TMA store buffer takes later), else above them. In a warp partition the buffers used in
// the other partitions, and the scratch placed in them, count as live too: partitions run at once. It lives only while
// its op runs, so scratch of different ops shares bytes; but a read the op leaves pending makes the next
// write to those bytes wait for a barrier (insert_barriers). A small scratch (up to kMovableScratch
// bytes) moves past reads still pending instead: softmax's two reductions cost one barrier each, not
// two. What is pending is followed as insert_barriers follows it, without the back edges of loops.
// A layout conversion that would go in rounds (scratch_size.h) takes fewer, larger ones, the whole tile
// if it can, where they fit under the bytes the buffers need anyway: after a pipelined loop a matmul's
// epilogue converts its accumulator through the slots' bytes at once, with wider accesses and two
// barriers instead of two per round, and the kernel's shared memory does not grow.
#include <algorithm>
#include <unordered_map>

#include "schedule/buffer_liveness.h"
#include "schedule/scratch_size.h"
#include "schedule/schedule.h"
#include "support/diagnostic.h"

namespace kiln::schedule {

namespace {

struct Range {
  int64_t begin = 0, end = 0;
  bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
};

constexpr int64_t kMovableScratch = 512;

class ScratchPlacer {
 public:
  // `offsets`: each buffer's alloc and its offset; `write`: sets the ops' scratch attributes (else only
  // end() is of use).
  ScratchPlacer(const ir::Function& fn, const GpuContext& ctx, const std::vector<BufferLiveRange>& buffers,
                const std::unordered_map<const ir::Op*, int64_t>& offsets, int64_t bufferBytes, bool write)
      : ctx_(ctx), buffers_(buffers), offsets_(offsets), warps_(ctx.numWarps), bufferBytes_(bufferBytes),
        write_(write), end_(bufferBytes) {
    number(fn.body);
    for (const BufferLiveRange& b : buffers) deadAfter_.emplace(b.lastUser, &b);
  }

  int64_t end() const { return end_; }

  void block(const ir::Block& b, std::vector<Range>& pending) {
    for (const auto& owned : b.ops) {
      ir::Op& op = *owned;
      visit(op, pending);
      auto [from, to] = deadAfter_.equal_range(&op);
      for (auto it = from; it != to; ++it) pending.push_back(bytesOf(*it->second));  // still read by others
    }
  }

 private:
  const GpuContext& ctx_;
  const std::vector<BufferLiveRange>& buffers_;
  const std::unordered_map<const ir::Op*, int64_t>& offsets_;  // each buffer's alloc: its offset
  std::unordered_map<const ir::Op*, int64_t> pos_;
  std::unordered_multimap<const ir::Op*, const BufferLiveRange*> deadAfter_;
  std::unordered_map<const ir::Block*, std::pair<int64_t, int64_t>> span_;  // a block's first and last op number
  int warps_;
  int64_t bufferBytes_;  // the buffers' bytes at once: the kernel needs them anyway
  // In a warp partition: the bytes the other partitions use (their buffers and scratch), and where the
  // scratch placed in this one is logged.
  std::vector<Range> concurrent_;
  std::vector<Range>* placed_ = nullptr;
  bool write_;
  int64_t end_;  // the highest byte placed, buffers included

  void number(const ir::Block& b) {
    const int64_t first = int64_t(pos_.size());
    int64_t next = first;
    for (const auto& op : b.ops) {
      pos_[op.get()] = next++;
      for (const auto& r : op->regions) number(*r);
      next = int64_t(pos_.size());
    }
    span_[&b] = {first, int64_t(pos_.size()) - 1};
  }

  Range bytesOf(const BufferLiveRange& b) const {
    const int64_t at = offsets_.at(b.alloc);
    return {at, at + b.bytes};
  }

  static bool conflicts(const std::vector<Range>& pending, const Range& r) {
    return std::any_of(pending.begin(), pending.end(), [&](const Range& p) { return p.overlaps(r); });
  }

  // The bytes of the buffers live at op number n, lowest first.
  std::vector<Range> liveAt(int64_t n) const {
    std::vector<Range> live = concurrent_;
    for (const BufferLiveRange& b : buffers_)
      if (b.first < n && n <= b.last) live.push_back(bytesOf(b));
    std::sort(live.begin(), live.end(), [](const Range& x, const Range& y) { return x.begin < y.begin; });
    return live;
  }

  // The lowest 16-byte aligned byte from which `bytes` overlap none of `live`.
  static int64_t base(const std::vector<Range>& live, int64_t bytes) {
    int64_t at = 0;
    for (const Range& r : live) {
      if (at + bytes <= r.begin) break;
      at = std::max(at, (r.end + 15) / 16 * 16);
    }
    return at;
  }

  // Where scratch from `low` must end: the next live buffer above it, or the buffers' bytes.
  int64_t ceiling(const std::vector<Range>& live, int64_t low) const {
    for (const Range& r : live)
      if (r.begin >= low) return r.begin;
    return bufferBytes_;
  }

  // The bytes a conversion's rounds may take from `low` on: fewer, larger rounds than the default
  // `bytes` where they end by `limit` (halving from the whole tile).
  int64_t conversionBytes(const ir::Op& op, int64_t low, int64_t bytes, int64_t limit) const {
    const ir::Type& x = op.operand(0)->type;
    if (x.isPtr()) return bytes;  // a pointer tile moves offsets of either width: the default covers both
    const layout::LinearLayout &from = *x.layout, &to = *op.result(0)->type.layout;
    const int elemBytes = x.elem == ir::Scalar::I1 ? 1 : ir::bitWidth(x.elem) / 8;
    for (int64_t most = x.numel() * elemBytes; most > bytes; most /= 2) {
      const int64_t round = conversionRoundBytes(from, to, elemBytes, most);
      if (round > bytes && low + round <= limit) return round;
    }
    return bytes;
  }

  void visit(ir::Op& op, std::vector<Range>& pending) {
    switch (op.opcode) {
      case ir::Opcode::Barrier: case ir::Opcode::DebugBarrier:
        pending.clear();
        return;
      case ir::Opcode::SharedAlloc: {
        const int64_t at = offsets_.at(&op);
        const Range r{at, at + op.result(0)->type.slots * op.result(0)->type.slotStride()};
        if (conflicts(pending, r)) pending.clear();  // a barrier comes before its first writes
        return;
      }
      case ir::Opcode::If: {
        std::vector<Range> other = pending;
        block(op.region(0), pending);
        block(op.region(1), other);
        pending.insert(pending.end(), other.begin(), other.end());
        return;
      }
      case ir::Opcode::For: case ir::Opcode::While: {
        std::vector<Range> through = pending;
        for (auto& r : op.regions) block(*r, through);
        pending.insert(pending.end(), through.begin(), through.end());
        return;
      }
      case ir::Opcode::WarpPartition: {
        const int outerWarps = warps_;
        const std::vector<Range> outer = concurrent_;
        std::vector<Range>* const outerPlaced = placed_;
        std::vector<std::vector<Range>> scratch(op.regions.size());
        const std::vector<int64_t>& warps = op.listAttr("warps");
        for (size_t i = 0; i < op.regions.size(); ++i) {
          concurrent_ = outer;
          for (size_t j = 0; j < op.regions.size(); ++j) {
            if (j == i) continue;
            const auto [first, last] = span_.at(op.regions[j].get());
            for (const BufferLiveRange& b : buffers_)
              if (b.first <= last && first <= b.last) concurrent_.push_back(bytesOf(b));
            concurrent_.insert(concurrent_.end(), scratch[j].begin(), scratch[j].end());
          }
          warps_ = int(warps.at(i));
          placed_ = &scratch[i];
          std::vector<Range> inside;  // (insert_barriers puts a CTA barrier first where anything is pending)
          block(*op.regions[i], inside);
        }
        warps_ = outerWarps;
        concurrent_ = outer;
        placed_ = outerPlaced;
        if (placed_)
          for (const std::vector<Range>& r : scratch) placed_->insert(placed_->end(), r.begin(), r.end());
        pending.clear();  // the CTA barrier after the partitions
        return;
      }
      default:
        break;
    }
    ScratchUse use = scratchUse(op, warps_, ctx_.target);
    if (use.bytes <= 0) return;
    const std::vector<Range> live = liveAt(pos_.at(&op));
    const int64_t low = base(live, use.bytes);
    if (op.opcode == ir::Opcode::ConvertLayout) use.bytes = conversionBytes(op, low, use.bytes, ceiling(live, low));
    auto at = [&](int64_t begin) { return Range{begin, begin + use.bytes}; };
    Range r = at(low);
    if (use.bytes <= kMovableScratch && conflicts(pending, r)) {
      // The lowest 16-byte aligned place past a pending read that overlaps none, nor a live buffer, within
      // a few times the size (a chain of reductions alternates between two places).
      for (const Range& p : pending) {
        const Range c = at((p.end + 15) / 16 * 16);
        if (!conflicts(pending, c) && !conflicts(live, c) && c.end <= low + 4 * kMovableScratch &&
            (conflicts(pending, r) || c.begin < r.begin))
          r = c;
      }
    }
    if (write_) op.setAttr("scratch", std::vector<int64_t>{r.begin, use.bytes});
    end_ = std::max(end_, r.end);
    if (placed_) placed_->push_back(r);
    pending.clear();  // the barrier between its writes and its reads
    if (use.leavesReads) pending.push_back(r);
  }
};

struct Buffer {
  BufferLiveRange range;
  int64_t offset = -1;
  bool liveWith(const Buffer& o) const { return o.range.first <= range.last && range.first <= o.range.last; }
};

}  // namespace

namespace {

// Places every buffer and returns them, with the bytes they need at once; `write`: sets their offsets.
std::vector<Buffer> placeBuffers(const ir::Function& fn, int64_t& total, bool write) {
  std::vector<Buffer> buffers;
  for (const BufferLiveRange& r : bufferLiveRanges(fn)) buffers.push_back(Buffer{r});
  std::vector<Buffer*> order;
  for (Buffer& b : buffers) order.push_back(&b);
  std::stable_sort(order.begin(), order.end(),
                   [](const Buffer* x, const Buffer* y) { return x->range.bytes > y->range.bytes; });
  total = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    Buffer& b = *order[i];
    // Candidate places: 0 and the (aligned) end of every placed buffer live at the same time.
    const int64_t align = std::max<int64_t>(128, b.range.alloc->intAttrOr("align", 128));
    std::vector<int64_t> candidates{0};
    for (size_t j = 0; j < i; ++j) {
      const Buffer& o = *order[j];
      if (b.liveWith(o)) candidates.push_back((o.offset + o.range.bytes + align - 1) / align * align);
    }
    std::sort(candidates.begin(), candidates.end());
    for (int64_t at : candidates) {
      bool free = true;
      for (size_t j = 0; j < i && free; ++j) {
        const Buffer& o = *order[j];
        free = !(b.liveWith(o) && o.offset < at + b.range.bytes && at < o.offset + o.range.bytes);
      }
      if (free) {
        b.offset = at;
        break;
      }
    }
    total = std::max(total, b.offset + b.range.bytes);
    if (write) const_cast<ir::Op*>(b.range.alloc)->setAttr("offset", b.offset);  // fn's ops are the caller's
  }
  return buffers;
}

}  // namespace

int64_t sharedBufferBytes(const ir::Function& fn) {
  int64_t total = 0;
  placeBuffers(fn, total, false);
  return total;
}

namespace {

// Places every op's scratch beside `buffers` (placed); returns the bytes the kernel needs.
int64_t placeScratch(const ir::Function& fn, const GpuContext& ctx, const std::vector<Buffer>& buffers, int64_t total,
                     bool write) {
  std::vector<BufferLiveRange> ranges;
  std::unordered_map<const ir::Op*, int64_t> offsets;
  for (const Buffer& b : buffers) {
    ranges.push_back(b.range);
    offsets[b.range.alloc] = b.offset;
  }
  std::vector<Range> pending;
  ScratchPlacer placer(fn, ctx, ranges, offsets, total, write);
  placer.block(fn.body, pending);
  return placer.end();
}

}  // namespace

int64_t sharedBytesOnceAllocated(const ir::Function& fn, const GpuContext& ctx) {
  int64_t total = 0;
  const std::vector<Buffer> buffers = placeBuffers(fn, total, false);
  return placeScratch(fn, ctx, buffers, total, false);
}

void allocateShared(ir::Function& fn, const GpuContext& ctx) {
  int64_t total = 0;
  std::vector<Buffer> buffers = placeBuffers(fn, total, true);
  const int64_t limit = maxSharedPerBlock(ctx.target);
  if (total > limit) {
    const Buffer* largest = &buffers.front();  // the first of the largest, named in the message
    for (const Buffer& b : buffers)
      if (b.range.bytes > largest->range.bytes) largest = &b;
    throw CompileError(largest->range.alloc->loc, "shared memory: the buffers need " + std::to_string(total) +
                                                      " bytes at once; " + ctx.target.name() + " allows " +
                                                      std::to_string(limit) + " per block");
  }
  placeScratch(fn, ctx, buffers, total, true);
}

}  // namespace kiln::schedule
