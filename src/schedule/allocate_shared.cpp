// allocate_shared: an offset for every shared buffer, from the buffers' live ranges (buffer_liveness.h).
// Buffers are placed largest first, each at the lowest 128-byte boundary (or its own `align`, wgmma's
// swizzled tiles) where it overlaps no placed buffer that is live at the same time.
#include <algorithm>

#include "schedule/buffer_liveness.h"
#include "schedule/schedule.h"
#include "support/diagnostic.h"

namespace kiln::schedule {

namespace {

struct Buffer {
  BufferLiveRange range;
  int64_t offset = -1;
  bool liveWith(const Buffer& o) const { return o.range.first <= range.last && range.first <= o.range.last; }
};

}  // namespace

void allocateShared(ir::Function& fn, const GpuContext& ctx) {
  std::vector<Buffer> buffers;
  for (const BufferLiveRange& r : bufferLiveRanges(fn)) buffers.push_back(Buffer{r});
  std::vector<Buffer*> order;
  for (Buffer& b : buffers) order.push_back(&b);
  std::stable_sort(order.begin(), order.end(),
                   [](const Buffer* x, const Buffer* y) { return x->range.bytes > y->range.bytes; });
  int64_t total = 0;
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
    const_cast<ir::Op*>(b.range.alloc)->setAttr("offset", b.offset);  // fn is ours to change
  }
  const int64_t limit = maxSharedPerBlock(ctx.target);
  if (total > limit)
    throw CompileError(order.front()->range.alloc->loc, "shared memory: the buffers need " +
                                                            std::to_string(total) + " bytes at once; " +
                                                            ctx.target.name() + " allows " + std::to_string(limit) +
                                                            " per block");
}

}  // namespace kiln::schedule
