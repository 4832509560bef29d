// Which bytes of shared memory threads may still be reading, so that a write waits for a bar.sync only
// when it would overwrite them (what Triton's membar analysis does for its buffers). A reduction or a
// layout conversion writes its scratch, passes a barrier, reads it back, and leaves without a second
// barrier: its read stays pending until the next barrier, and only a later write to an overlapping
// range needs one first. A small scratch moves past the pending ranges instead (Codegen::scratch),
// so two reductions in a row (softmax's max and sum, layernorm's mean and variance) need one barrier
// each, not two.
//
// Control flow keeps this sound: an `if` leaves the union of what its branches leave pending; a loop
// body records the writes it makes before its own first barrier, and when the reads still pending at
// the back edge overlap them, the body ends with a barrier (the next iteration's first writes race the
// last iteration's reads otherwise); a `while` starts and ends its body with nothing pending.
#pragma once
#include <cstdint>
#include <vector>

namespace kiln::lower {

class SharedHazards {
 public:
  struct Range {
    int64_t begin = 0, end = 0;  // bytes of the dynamic shared memory, [begin, end)
    bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
  };
  using Pending = std::vector<Range>;

  bool conflicts(const Range& write) const;  // a pending read overlaps it: a barrier must come first
  void wrote(const Range& r);                // a write was emitted (after conflicts() was handled)
  void read(const Range& r);                 // a read was emitted: pending until the next barrier
  void barrier();                            // a bar.sync was emitted (at the current nesting)
  const Pending& pending() const { return pending_; }

  // The state across control flow: what is pending now, set it, or add another path's.
  Pending save() const { return pending_; }
  void restore(Pending p) { pending_ = std::move(p); }
  void merge(const Pending& other);

  // A region of code that may run again or not at all (a loop body, a branch): barriers inside it do
  // not protect the code around it. backEdgeNeedsBarrier: what is pending at the end of a loop body
  // overlaps a write the body made before its first barrier.
  void openRegion();
  bool backEdgeNeedsBarrier() const;
  void closeRegion();

 private:
  struct Region {
    bool sawBarrier = false;
    std::vector<Range> firstWrites;  // writes made before the region's first barrier
  };
  Pending pending_;
  std::vector<Region> regions_;
};

}  // namespace kiln::lower
