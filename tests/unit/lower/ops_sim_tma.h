// TMA and mbarriers in the CTA simulator (ops_sim.h), as PTX-NOTES §10-11 describe them:
// - A tensor-map parameter holds what the test gives setTensorMap, in cuTensorMapEncodeTiled's terms
//   (innermost dim first, strides in bytes for dims 1..); `mov.u64` of its symbol and `cvta.param.u64` give
//   its address, `prefetch.param.tensormap` only checks that it is one.
// - cp.async.bulk.tensor reads one box at issue (elements outside the tensor read as zero) and lands it in
//   shared memory, swizzled on absolute address bits, when a thread waits on the current phase of its
//   mbarrier and every arrival is in: the latest the hardware may deliver it. Its bytes (the whole box)
//   then complete on the mbarrier. The landing counts as a write by the issuer at issue (its clock then
//   joins the phase), so the threads that wait on the mbarrier see it; a byte some thread used that
//   does not happen before the issue may not be the target of a copy (checked at issue and at landing).
// - mbarrier: init, arrive, arrive.expect_tx, expect_tx, try_wait/test_wait.parity with the phase rules
//   of the ISA; arrivals release the arriving thread's clock into the phase, a wait that passes acquires
//   the completed phase's. A wait on a phase not yet complete blocks its group (ops_sim_groups.h), and is
//   an error only when no group can run. A phase that some arrivals went into but that never completes
//   (a count the arrivals do not match) is an error at the end.
#pragma once

namespace kiln::lower::test {

inline void CtaSim::setTensorMap(const std::string& symbol, TensorMap m) {
  if (m.dims.empty() || m.dims.size() > 5 || m.box.size() != m.dims.size() || m.strides.size() + 1 != m.dims.size())
    fail("malformed tensor map " + symbol);
  tensorMaps_[symbol] = {0x7F0000000000ull + 128 * tensorMaps_.size(), std::move(m)};
}

inline const CtaSim::TensorMap& CtaSim::tensorMapAt(uint64_t address) const {
  for (const auto& [symbol, entry] : tensorMaps_)
    if (entry.first == address) return entry.second;
  fail("the map operand is no tensor map's generic address");
}

inline void CtaSim::mbarrierArrive(size_t bar, int64_t arrivals, int64_t tx) {
  Mbarrier& m = mbarrierAt(bar);
  m.tx += tx;
  m.pending -= arrivals;
  if (m.pending < 0) fail("more arrivals on an mbarrier than it expects");
  completePhaseIfDone(m);
}

inline void CtaSim::completePhaseIfDone(Mbarrier& m) {
  if (m.pending != 0 || m.tx != 0) return;
  m.completed++, m.pending = m.expected;
  m.completedClock = m.arrivedClock;
  std::fill(m.arrivedClock.begin(), m.arrivedClock.end(), 0);
}

inline CtaSim::Mbarrier& CtaSim::mbarrierAt(size_t bar) {
  auto it = mbarriers_.find(bar);
  if (it == mbarriers_.end()) fail("an mbarrier used before mbarrier.init");
  return it->second;
}

inline void CtaSim::execMbarrier(const Inst& in) {
  const std::string& what = in.parts.at(1);
  auto has = [&](const char* m) { return std::find(in.parts.begin(), in.parts.end(), m) != in.parts.end(); };
  if (!has("shared::cta") || in.parts.back() != "b64") fail("mbarrier form not modelled");
  if (what == "init") {
    for (int t = 0; t < n_; ++t) {
      if (!active(t, in)) continue;
      const size_t bar = size_t(address(t, in.ops.at(0)));
      if (bar % 8) fail("misaligned mbarrier");
      for (size_t b = 0; b < 8; ++b) sharedWrite(t, bar + b, 0);
      const int64_t count = int64_t(get(t, in.ops.at(1)));
      mbarriers_[bar] = Mbarrier{0, count, count, 0, std::vector<uint32_t>(size_t(n_), 0), std::vector<uint32_t>(size_t(n_), 0)};
    }
    return;
  }
  const bool wait = what == "try_wait" || what == "test_wait";
  const std::string& barOp = in.ops.at(wait || what == "arrive" ? 1 : 0);
  std::vector<uint8_t> done(size_t(n_), 0);
  for (int t = 0; t < n_; ++t) {
    if (!active(t, in)) continue;
    const size_t bar = size_t(address(t, barOp));
    for (size_t b = 0; b < 8; ++b) sharedRead(t, bar + b);
    if (what == "arrive") {
      if (in.ops.at(0) != "_") fail("mbarrier.arrive with a state result is not modelled");
      release(t, mbarrierAt(bar).arrivedClock);
      mbarrierArrive(bar, 1, has("expect_tx") ? int64_t(get(t, in.ops.at(2))) : 0);
    } else if (what == "expect_tx") {
      mbarrierAt(bar).tx += int64_t(get(t, in.ops.at(1)));
    } else if (wait) {
      if (!has("parity")) fail("mbarrier wait without .parity is not modelled");
      const uint64_t parity = get(t, in.ops.at(2)) & 1;
      Mbarrier& m = mbarrierAt(bar);
      // The scheduler runs a wait only once its phase is complete (mbarrierWaitBlocked).
      if (uint64_t(m.completed & 1) == parity) fail("a wait on an mbarrier phase that is not complete");
      acquire(t, m.completedClock);
      done[size_t(t)] = 1;
    } else {
      fail("mbarrier form not modelled");
    }
  }
  if (wait)
    for (int t = 0; t < n_; ++t)
      if (active(t, in)) set(t, in.ops.at(0), done[size_t(t)]);
}

inline void CtaSim::landTensorCopies(size_t bar) {
  for (size_t i = 0; i < tensorCopies_.size();) {
    TensorCopy& c = tensorCopies_[i];
    if (c.bar != bar) {
      ++i;
      continue;
    }
    for (const auto& [at, byte] : c.bytes) {
      ByteInfo& bi = sharedInfo_[at];
      if (!seenBy(bi, c.clock)) fail("a TMA copy lands on a byte a thread used since the last barrier");
      bi.reads.clear();  // a write by the issuer at issue, seen by every thread that waits on the mbarrier
      bi.writes.assign(1, Access{c.issuer, c.clock[size_t(c.issuer)]});
      bi.value = byte;
      shared_[at] = byte;
    }
    const int64_t bytes = int64_t(c.bytes.size());
    Mbarrier& m = mbarrierAt(bar);
    for (size_t k = 0; k < m.arrivedClock.size(); ++k) m.arrivedClock[k] = std::max(m.arrivedClock[k], c.clock[k]);
    tensorCopies_.erase(tensorCopies_.begin() + std::ptrdiff_t(i));
    m.tx -= bytes;
    if (m.tx < 0) fail("a TMA copy completes more bytes than its mbarrier expects");
    completePhaseIfDone(m);
  }
}

inline size_t CtaSim::bulkTensorRank(const Inst& in, const std::vector<std::string>& form, const char* what) {
  std::vector<std::string> want{"cp", "async", "bulk", "tensor", ""};
  want.insert(want.end(), form.begin(), form.end());
  if (in.parts.size() != want.size()) fail(std::string(what) + " form not modelled");
  for (size_t i = 0; i < want.size(); ++i)
    if (i != 4 && in.parts[i] != want[i]) fail(std::string(what) + " form not modelled");
  return size_t(std::stoi(in.parts[4]));
}

inline const CtaSim::TensorMap& CtaSim::tensorBox(int t, const Inst& in, size_t tensorOperand, size_t rank,
                                                  uint64_t shared, std::vector<BoxElement>& elements) {
  const std::string& op = in.ops.at(tensorOperand);
  const std::vector<std::string> mapAndCoords = split(op.substr(1, op.size() - 2), ',', true);
  if (mapAndCoords.size() != 2) fail("malformed tensor operand");
  const TensorMap& map = tensorMapAt(get(t, mapAndCoords[0]));
  const std::vector<std::string> coordRegs = vecOps(mapAndCoords[1]);
  if (coordRegs.size() != rank || map.dims.size() != rank) fail("the copy's rank is not the map's");
  if (shared % 128) fail("TMA shared-memory end not 128-byte aligned");
  const uint64_t innerBytes = uint64_t(map.box[0]) * uint64_t(map.elemBytes);
  if (innerBytes % 16 || (map.swizzle && innerBytes > uint64_t(map.swizzle))) fail("box not encodable");
  std::vector<int64_t> c(rank);
  for (size_t d = 0; d < rank; ++d) c[d] = sext(get(t, coordRegs[d]), 32);
  size_t total = 1;
  for (uint32_t b : map.box) total *= b;
  elements.clear();
  for (size_t e = 0; e < total; ++e) {
    bool inside = true;
    uint64_t at = map.address;
    for (size_t d = 0, rest = e; d < rank; ++d) {
      const int64_t g = c[d] + int64_t(rest % map.box[d]);
      rest /= map.box[d];
      inside = inside && g >= 0 && uint64_t(g) < map.dims[d];
      if (inside) at += uint64_t(g) * (d == 0 ? uint64_t(map.elemBytes) : map.strides[d - 1]);
    }
    elements.push_back({inside, at});
  }
  return map;
}

// cp.async.bulk.tensor.<r>d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [map, {c..}], [bar]
inline void CtaSim::execTensorCopy(const Inst& in) {
  const size_t rank = bulkTensorRank(in, {"shared::cluster", "global", "tile", "mbarrier::complete_tx::bytes"}, "cp.async.bulk");
  std::vector<BoxElement> elements;
  for (int t = 0; t < n_; ++t) {
    if (!active(t, in)) continue;
    const uint64_t dst = address(t, in.ops.at(0));
    const size_t bar = size_t(address(t, in.ops.at(2)));
    mbarrierAt(bar);
    const TensorMap& map = tensorBox(t, in, 1, rank, dst, elements);
    TensorCopy copy{bar, t, {}, std::vector<uint32_t>(size_t(n_), 0)};
    for (size_t e = 0; e < elements.size(); ++e) {
      const uint8_t* from = elements[e].inside ? globalBytes(elements[e].global, map.elemBytes) : nullptr;
      for (int b = 0; b < map.elemBytes; ++b) {
        const uint64_t p = boxSharedByte(map, dst, e, b);
        if (p >= shared_.size()) fail("TMA copy past the shared memory size");
        if (!seenBy(sharedInfo_[size_t(p)], clocks_[size_t(t)]))
          fail("a TMA copy into a byte another thread used since the last barrier (thread " + std::to_string(t) + ")");
        copy.bytes.emplace_back(size_t(p), from ? from[b] : uint8_t(0));
      }
    }
    release(t, copy.clock);  // the landing follows what t did so far, not what it does next
    tensorCopies_.push_back(std::move(copy));
  }
}

}  // namespace kiln::lower::test
