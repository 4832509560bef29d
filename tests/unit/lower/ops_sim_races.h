// The CTA simulator's race checks (ops_sim.h, "Races"): vector clocks per thread, and per shared byte
// the accesses no later access is known to follow. A thread's own accesses never race with each other;
// several threads may write one byte unordered if they write the same value (a broadcast element stored
// by each of its copies), and one of them may then read it back.
#pragma once

namespace kiln::lower::test {

inline bool CtaSim::seenBy(const ByteInfo& bi, const std::vector<uint32_t>& clock) const {
  for (const Access& a : bi.writes)
    if (!happenedBefore(a, clock)) return false;
  for (const Access& a : bi.reads)
    if (!happenedBefore(a, clock)) return false;
  return true;
}

inline void CtaSim::release(int t, std::vector<uint32_t>& into) {
  std::vector<uint32_t>& c = clocks_[size_t(t)];
  for (size_t i = 0; i < c.size(); ++i) into[i] = std::max(into[i], c[i]);
  ++c[size_t(t)];
}

// Each participant released its clock at arrival (and ticked); the waiters now see all of it. A thread
// that only arrived (bar.arrive) is not among them: what the waiters did does not happen before its next
// accesses.
inline void CtaSim::barrierJoin(const std::vector<int>& waiters, const std::vector<uint32_t>& released) {
  for (int t : waiters) acquire(t, released);
}

inline void CtaSim::sharedWrite(int t, size_t i, uint8_t byte) {
  if (i >= shared_.size()) fail("shared access past the scratch size (" + std::to_string(i) + ")");
  ByteInfo& bi = sharedInfo_[i];
  const std::vector<uint32_t>& now = clocks_[size_t(t)];
  for (const Access& r : bi.reads)
    if (r.thread != t && !happenedBefore(r, now))
      fail("shared write of a byte another thread read since the last barrier (thread " + std::to_string(t) + ")");
  for (const Access& w : bi.writes)
    if (w.thread != t && !happenedBefore(w, now) && bi.value != byte)
      fail("conflicting shared writes without a barrier (thread " + std::to_string(t) + ")");
  // Every read happened before this write (or is t's own, earlier in its order): the write covers them.
  bi.reads.clear();
  std::erase_if(bi.writes, [&](const Access& w) { return w.thread == t || happenedBefore(w, now); });
  bi.writes.push_back({t, now[size_t(t)]});
  bi.value = byte;
  shared_[i] = byte;
}

inline uint8_t CtaSim::sharedRead(int t, size_t i) {
  if (i >= shared_.size()) fail("shared access past the scratch size (" + std::to_string(i) + ")");
  ByteInfo& bi = sharedInfo_[i];
  const std::vector<uint32_t>& now = clocks_[size_t(t)];
  const bool wroteIt = std::any_of(bi.writes.begin(), bi.writes.end(), [&](const Access& w) { return w.thread == t; });
  for (const Access& w : bi.writes)
    if (w.thread != t && !happenedBefore(w, now) && !wroteIt)
      fail("shared read of a byte another thread wrote since the last barrier (thread " + std::to_string(t) + ")");
  // A read t has seen is covered by this one: what follows t's read follows it too.
  std::erase_if(bi.reads, [&](const Access& r) { return happenedBefore(r, now); });
  bi.reads.push_back({t, now[size_t(t)]});
  return shared_[i];
}

}  // namespace kiln::lower::test
