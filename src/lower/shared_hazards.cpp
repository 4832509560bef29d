// Pending shared-memory reads and the writes that must wait for a barrier (lower/shared_hazards.h).
#include "lower/shared_hazards.h"

#include <algorithm>

namespace kiln::lower {

bool SharedHazards::conflicts(const Range& write) const {
  return std::any_of(pending_.begin(), pending_.end(), [&](const Range& r) { return r.overlaps(write); });
}

void SharedHazards::wrote(const Range& r) {
  // A write after a barrier of the innermost region is ordered after everything the regions around
  // it read before; one before it is a first write of every region that has not passed a barrier.
  for (auto it = regions_.rbegin(); it != regions_.rend() && !it->sawBarrier; ++it) it->firstWrites.push_back(r);
}

void SharedHazards::read(const Range& r) { pending_.push_back(r); }

void SharedHazards::barrier() {
  pending_.clear();
  if (!regions_.empty()) regions_.back().sawBarrier = true;
}

void SharedHazards::merge(const Pending& other) {
  for (const Range& r : other)  // a range both paths left pending is kept once
    if (std::none_of(pending_.begin(), pending_.end(), [&](const Range& p) { return p.begin == r.begin && p.end == r.end; }))
      pending_.push_back(r);
}

void SharedHazards::openRegion() { regions_.emplace_back(); }

bool SharedHazards::backEdgeNeedsBarrier() const {
  if (regions_.empty()) return false;
  for (const Range& w : regions_.back().firstWrites)
    if (conflicts(w)) return true;
  return false;
}

void SharedHazards::closeRegion() {
  if (!regions_.empty()) regions_.pop_back();
}

}  // namespace kiln::lower
