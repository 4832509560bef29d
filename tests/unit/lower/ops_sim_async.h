// cp.async in the CTA simulator (ops_sim.h): cp.async.{ca,cg}.shared.global reads global memory when
// issued and lands in shared memory when cp.async.wait_group retires its group, the latest the hardware
// may deliver it. A shared byte another thread read or wrote since the last barrier may not be the
// target of a copy (checked at issue, as if the copy landed at once, and again when it lands).
// cp.async.mbarrier.arrive.noinc.shared{::cta}.b64 [bar]: every copy the thread issued so far lands (as
// its writes, as at a wait_group), then it arrives once on the mbarrier, counted against mbarrier.init's
// count, releasing its clock as mbarrier.arrive does; so a thread that waits on the phase sees the copies.
// (The hardware may deliver them as late as the phase's completion: landing them at the arrival misses
// only a stale read by the issuing thread itself before it waits.) Without .noinc it is not modelled.
#pragma once

namespace kiln::lower::test {

inline uint8_t* CtaSim::globalBytes(uint64_t at, int bytes) {
  auto it = buffers_.upper_bound(at);
  if (it == buffers_.begin()) fail("global address outside every buffer");
  --it;
  if (at + uint64_t(bytes) > it->first + it->second.size()) fail("global access past a buffer's end");
  return it->second.data() + (at - it->first);
}

inline void CtaSim::execCpAsync(const Inst& in) {
  if (in.parts.size() < 2 || in.parts[1] != "async") fail("unknown instruction");
  const std::string& what = in.parts.at(2);
  auto land = [&](int t, const std::vector<AsyncCopy>& copies) {
    for (const AsyncCopy& c : copies)
      for (size_t b = 0; b < c.data.size(); ++b) sharedWrite(t, c.dst + b, c.data[b]);
  };
  if (what == "mbarrier") {
    if (in.parts.size() < 4 || in.parts[3] != "arrive") fail("cp.async.mbarrier form not modelled");
    if (in.parts.size() < 5 || in.parts[4] != "noinc") fail("cp.async.mbarrier.arrive without .noinc is not modelled");
    if (in.parts.size() != 7 || (in.parts[5] != "shared::cta" && in.parts[5] != "shared") || in.parts[6] != "b64")
      fail("cp.async.mbarrier.arrive form not modelled");
    for (int t = 0; t < n_; ++t) {
      if (!active(t, in)) continue;
      for (const std::vector<AsyncCopy>& group : copyGroups_[size_t(t)]) land(t, group);
      land(t, openCopies_[size_t(t)]);
      copyGroups_[size_t(t)].clear();
      openCopies_[size_t(t)].clear();
      const size_t bar = size_t(address(t, in.ops.at(0)));
      for (size_t b = 0; b < 8; ++b) sharedRead(t, bar + b);
      release(t, mbarrierAt(bar).arrivedClock);
      mbarrierArrive(bar, 1, 0);
    }
    return;
  }
  if (what == "commit_group" || what == "wait_group" || what == "wait_all") {
    if (!in.guard.empty()) fail("guarded " + what);
    const size_t keep = what == "wait_group" ? size_t(get(0, in.ops.at(0))) : 0;
    for (int t = 0; t < n_; ++t) {
      if (!running_[size_t(t)]) continue;
      auto& open = openCopies_[size_t(t)];
      auto& groups = copyGroups_[size_t(t)];
      if (what != "wait_group") {  // commit_group; wait_all also commits
        groups.push_back(std::move(open));
        open.clear();
      }
      if (what == "commit_group") continue;
      while (groups.size() > keep) {
        land(t, groups.front());
        groups.erase(groups.begin());
      }
    }
    return;
  }
  // cp.async.{ca,cg}.shared.global [dst], [src], bytes{, srcBytes}
  if (what != "ca" && what != "cg") fail("unknown cp.async form");
  const int bytes = int(get(0, in.ops.at(2)));
  if (bytes != 4 && bytes != 8 && bytes != 16) fail("cp.async of " + std::to_string(bytes) + " bytes");
  if (what == "cg" && bytes != 16) fail("cp.async.cg copies 16 bytes");
  for (int t = 0; t < n_; ++t) {
    if (!active(t, in)) continue;
    const uint64_t dst = address(t, in.ops.at(0)), src = address(t, in.ops.at(1));
    if (dst % uint64_t(bytes) || src % uint64_t(bytes)) fail("misaligned cp.async");
    const int64_t srcBytes = in.ops.size() > 3 ? int64_t(get(t, in.ops.at(3))) : bytes;
    if (srcBytes < 0 || srcBytes > bytes) fail("cp.async source size out of range");
    AsyncCopy c{size_t(dst), std::vector<uint8_t>(size_t(bytes), 0)};
    if (srcBytes > 0) std::memcpy(c.data.data(), globalBytes(src, int(srcBytes)), size_t(srcBytes));
    for (size_t b = 0; b < size_t(bytes); ++b) {
      const size_t i = c.dst + b;
      if (i >= shared_.size()) fail("cp.async past the shared memory size");
      if (!seenBy(sharedInfo_[i], clocks_[size_t(t)]))
        fail("cp.async into a byte another thread used since the last barrier (thread " + std::to_string(t) + ")");
    }
    openCopies_[size_t(t)].push_back(std::move(c));
  }
}

}  // namespace kiln::lower::test
