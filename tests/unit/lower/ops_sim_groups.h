// The CTA simulator's scheduler (ops_sim.h): groups of threads, each with its own pc, run one at a time.
// - The CTA starts as one group. A bra whose outcome is uniform in every warp but differs between warps
//   splits the group by outcome (a branch divergent inside a warp is an error); so a group is always a
//   union of whole warps, or the whole CTA.
// - The running group runs until it exits, splits or blocks: at bar.sync id[, n] until n threads (all of
//   the CTA's without n) have arrived at barrier id, and at an mbarrier wait (try_wait / test_wait
//   .parity, the loop kiln emits around it) whose phase is not complete for some of its threads.
// - bar.arrive id, n arrives at barrier id without waiting. Arrivals by bar.sync and bar.arrive count
//   together; at n the barrier completes, its bar.sync groups go on and it resets for the next phase.
//   Each thread reads its own id (the warpgroups of one group may name different barriers; the threads
//   of a warp must agree), and a bar.sync splits its group by barrier. More arrivals than n, different
//   counts for one barrier, and arrivals left at a barrier when every thread has exited are errors.
// - The next group to run is the first (by its first thread) that can: not at a barrier, and at an
//   mbarrier wait only once the phase is complete (retried each time). Runnable groups at one pc merge
//   first, so the groups a barrier releases together run as one again. When no group can run and some
//   have not exited, the kernel deadlocks: an error that says where each group waits.
// - setmaxnreg.{inc,dec}.sync.aligned.u32 N: checked (whole warpgroups, N a multiple of 8 in 24..256),
//   otherwise without effect here.
// - wgmma (.sync.aligned: every thread of the warpgroup executes the same instruction, not at the same
//   moment): a group holding part of a warpgroup waits at it until the rest of the warpgroup gets there
//   (the warps took different ways through a uniform branch, as around the copies thread 0 issues).
#pragma once

namespace kiln::lower::test {

inline std::string CtaSim::run(std::array<uint64_t, 3> ctaId, std::array<uint64_t, 3> gridSize) {
  ctaId_ = ctaId;
  gridSize_ = gridSize;
  regs_.assign(size_t(n_), std::vector<uint64_t>(regIndex_.size(), 0));
  defined_.assign(size_t(n_), std::vector<uint8_t>(regIndex_.size(), 0));
  openCopies_.assign(size_t(n_), {});
  copyGroups_.assign(size_t(n_), {});
  wgmmaOpen_.assign(size_t(n_ / 128), {});
  wgmmaGroups_.assign(size_t(n_ / 128), {});
  mbarriers_.clear();
  tensorCopies_.clear();
  openBulk_.assign(size_t(n_), {});
  bulkGroups_.assign(size_t(n_), {});
  sharedInfo_.assign(shared_.size(), ByteInfo{});  // a fresh CTA: nothing accessed yet
  clocks_.assign(size_t(n_), std::vector<uint32_t>(size_t(n_), 0));
  for (int t = 0; t < n_; ++t) clocks_[size_t(t)][size_t(t)] = 1;
  namedBarriers_.clear();
  groups_.assign(1, Group{});
  for (int t = 0; t < n_; ++t) groups_[0].threads.push_back(t);
  running_.assign(size_t(n_), 0);
  runSteps_ = 0;
  cur_ = nullptr;
  try {
    for (size_t g = 0; pickGroup(g);) runGroup(g);
    if (std::all_of(groups_.begin(), groups_.end(), [](const Group& g) { return g.done; })) return exitChecks();
    return deadlock();
  } catch (const std::exception& ex) {
    return std::string(ex.what()) + " at `" + (cur_ ? cur_->line : std::string("?")) + "`";
  }
}

inline void CtaSim::enter(const Group& g) {
  std::fill(running_.begin(), running_.end(), 0);
  for (int t : g.threads) running_[size_t(t)] = 1;
}

inline bool CtaSim::pickGroup(size_t& pick) {
  std::sort(groups_.begin(), groups_.end(), [](const Group& a, const Group& b) { return a.threads[0] < b.threads[0]; });
  auto waiting = [](const Group& g) { return g.done || g.wait == Group::Wait::Barrier; };
  auto merged = [](Group::Wait a, Group::Wait b) {  // (re-checked when picked)
    if (a == b) return a;
    return a == Group::Wait::Warpgroup || b == Group::Wait::Warpgroup ? Group::Wait::Warpgroup : Group::Wait::Mbarrier;
  };
  for (size_t i = 0; i < groups_.size(); ++i)
    for (size_t j = i + 1; j < groups_.size();) {
      Group &a = groups_[i], &b = groups_[j];
      if (waiting(a) || waiting(b) || a.pc != b.pc) {
        ++j;
        continue;
      }
      a.threads.insert(a.threads.end(), b.threads.begin(), b.threads.end());
      std::sort(a.threads.begin(), a.threads.end());
      a.wait = merged(a.wait, b.wait);
      groups_.erase(groups_.begin() + std::ptrdiff_t(j));
    }
  for (size_t i = 0; i < groups_.size(); ++i) {
    Group& g = groups_[i];
    if (waiting(g)) continue;
    if (g.wait == Group::Wait::Warpgroup) {
      if (partOfAWarpgroup(g)) continue;
      g.wait = Group::Wait::None;
    }
    if (g.wait == Group::Wait::Mbarrier) {
      enter(g);
      cur_ = &code_[g.pc];
      if (!mbarrierWaitBlocked(code_[g.pc]).empty()) continue;
      g.wait = Group::Wait::None;
    }
    pick = i;
    return true;
  }
  return false;
}

inline void CtaSim::runGroup(size_t g) {
  enter(groups_[g]);
  for (;;) {
    Group& group = groups_[g];
    if (group.pc >= code_.size()) fail("ran off the end");
    const Inst& in = code_[group.pc];
    cur_ = &in;
    ++steps_;
    if (++runSteps_ > stepLimit_) fail("step limit (" + std::to_string(stepLimit_) + " group instructions)");
    const std::string& op = in.parts[0];
    if (op == "ret") {
      if (!in.guard.empty()) fail("guarded ret");
      group.done = true;
      return;
    }
    if (op == "bra") {
      const size_t groups = groups_.size();
      branch(g, in);
      if (groups_.size() != groups) return;  // split: let the scheduler pick
      continue;
    }
    if (op == "bar" && in.parts.size() == 3 && in.parts[1] == "warp") {
      warpSync(group, in);
      ++group.pc;
      continue;
    }
    if (op == "bar" && in.parts.size() == 2 && in.parts[1] == "arrive") {  // arrives and goes on
      arriveAtBarrier(g, in);
      ++groups_[g].pc;
      continue;
    }
    if (op == "bar") return arriveAtBarrier(g, in);
    if (op == "mbarrier" && (in.parts.at(1) == "try_wait" || in.parts.at(1) == "test_wait") &&
        !mbarrierWaitBlocked(in).empty()) {
      group.wait = Group::Wait::Mbarrier;
      return;
    }
    if (op == "wgmma" && partOfAWarpgroup(group)) {
      group.wait = Group::Wait::Warpgroup;
      return;
    }
    if (op == "setmaxnreg") setMaxNReg(group, in);
    else exec(in);
    ++group.pc;
  }
}

// Whether the group holds some but not all threads of one of its warpgroups (those of a CTA that is
// not whole warpgroups count as one warpgroup of the rest).
inline bool CtaSim::partOfAWarpgroup(const Group& g) const {
  for (size_t i = 0, j = 0; i < g.threads.size(); i = j) {  // (the threads ascend: one run per warpgroup)
    const int first = g.threads[i] / 128 * 128, end = std::min(first + 128, n_);
    while (j < g.threads.size() && g.threads[j] < end) ++j;
    if (int(j - i) != end - first) return true;
  }
  return false;
}

inline void CtaSim::branch(size_t g, const Inst& in) {
  std::vector<int> taken, fallThrough;
  for (int t : groups_[g].threads) {
    const bool goes = active(t, in);
    (goes ? taken : fallThrough).push_back(t);
    const int firstOfWarp = t & ~31;
    if (t != firstOfWarp && running_[size_t(firstOfWarp)] && active(firstOfWarp, in) != goes)
      fail("divergent branch (inside warp " + std::to_string(t / 32) + ")");
  }
  const size_t target = labels_.at(in.ops.at(0));
  if (fallThrough.empty() || taken.empty()) {
    groups_[g].pc = taken.empty() ? groups_[g].pc + 1 : target;
    return;
  }
  Group rest;
  rest.threads = std::move(fallThrough);
  rest.pc = groups_[g].pc + 1;
  groups_[g].threads = std::move(taken);
  groups_[g].pc = target;
  groups_.push_back(std::move(rest));
}

// bar.warp.sync -1: the lanes of each warp of the group synchronise, which orders their earlier memory
// accesses before their later ones (a warp is never split across groups, so none waits).
inline void CtaSim::warpSync(const Group& g, const Inst& in) {
  if (!in.guard.empty() || in.parts[2] != "sync") fail("bar.warp form not modelled");
  const uint64_t mask = get(g.threads[0], in.ops.at(0)) & 0xffffffffu;
  if (mask != 0xffffffffu) fail("bar.warp.sync with a partial member mask is not modelled");
  for (size_t i = 0; i < g.threads.size(); i += 32) {
    const std::vector<int> warp(g.threads.begin() + long(i), g.threads.begin() + long(std::min(i + 32, g.threads.size())));
    if (warp.size() != 32 || warp.front() % 32 != 0) fail("bar.warp.sync by part of a warp");
    std::vector<uint32_t> released(size_t(n_), 0);
    for (int t : warp) release(t, released);
    barrierJoin(warp, released);
  }
}

// bar.sync id[, n] and bar.arrive id, n: each thread of the group arrives at the barrier its own id names.
// A bar.sync splits the group into one group per barrier, each waiting there; after a bar.arrive the
// group goes on (runGroup).
inline void CtaSim::arriveAtBarrier(size_t g, const Inst& in) {
  if (!in.guard.empty()) fail("guarded barrier");
  if (in.parts.size() != 2 || (in.parts[1] != "sync" && in.parts[1] != "arrive")) fail("barrier form not modelled");
  const bool sync = in.parts[1] == "sync";
  if (!sync && in.ops.size() != 2) fail("bar.arrive without a thread count");
  std::map<int64_t, std::pair<int64_t, std::vector<int>>> parts;  // id -> (count, its threads)
  for (int t : groups_[g].threads) {
    const int64_t id = int64_t(get(t, in.ops.at(0)));
    const int64_t expected = in.ops.size() > 1 ? int64_t(get(t, in.ops.at(1))) : n_;
    if (id < 0 || id > 15) fail("barrier id out of 0..15");
    if (expected <= 0 || expected % 32 || expected > n_)
      fail("bar." + in.parts[1] + " thread count not a multiple of 32 in the CTA");
    if (int64_t(get(t & ~31, in.ops[0])) != id) fail("barrier id differs inside a warp (warp " + std::to_string(t / 32) + ")");
    auto& [count, threads] = parts[id];
    if (!threads.empty() && count != expected)
      fail("threads arrive at barrier " + std::to_string(id) + " with different counts");
    count = expected;
    threads.push_back(t);
  }
  if (sync) {  // the first barrier's threads stay in group g, each other barrier's get a group of their own
    const size_t pc = groups_[g].pc;
    for (const auto& [id, p] : parts) {
      if (id != parts.begin()->first) {
        groups_.push_back(Group{});
        groups_.back().pc = pc;
      }
      Group& part = id == parts.begin()->first ? groups_[g] : groups_.back();
      part.threads = p.second;
      part.wait = Group::Wait::Barrier;
      part.barrier = id;
    }
  }
  for (const auto& [id, p] : parts) namedBarrierArrive(id, p.first, p.second);
}

// `threads` arrive at barrier id of count `expected`, releasing their clocks. When it fills, the groups
// waiting there (bar.sync) acquire the join of every arrival and go on, and the barrier resets.
inline void CtaSim::namedBarrierArrive(int64_t id, int64_t expected, const std::vector<int>& threads) {
  NamedBarrier& b = namedBarriers_[id];
  if (b.arrived.empty()) {
    b.expected = int(expected);
    b.released.assign(size_t(n_), 0);
  } else if (b.expected != expected) {
    fail("threads arrive at barrier " + std::to_string(id) + " with different counts");
  }
  b.arrived.insert(b.arrived.end(), threads.begin(), threads.end());
  if (int(b.arrived.size()) > b.expected) fail("more threads at barrier " + std::to_string(id) + " than its count");
  for (int t : threads) release(t, b.released);
  if (int(b.arrived.size()) < b.expected) return;
  std::vector<int> waiters;
  for (Group& other : groups_)
    if (!other.done && other.wait == Group::Wait::Barrier && other.barrier == id) {
      waiters.insert(waiters.end(), other.threads.begin(), other.threads.end());
      other.wait = Group::Wait::None;
      ++other.pc;
    }
  barrierJoin(waiters, b.released);
  namedBarriers_.erase(id);
}

// Why the running group cannot pass the mbarrier wait `in` yet, or "" when every running thread's phase is
// complete. A phase whose arrivals are all in lands its copies here (the latest the hardware may).
inline std::string CtaSim::mbarrierWaitBlocked(const Inst& in) {
  for (int t = 0; t < n_; ++t) {
    if (!active(t, in)) continue;
    const size_t bar = size_t(address(t, in.ops.at(1)));
    const uint64_t parity = get(t, in.ops.at(2)) & 1;
    Mbarrier& m = mbarrierAt(bar);
    if (uint64_t(m.completed & 1) != parity) continue;
    if (m.pending == 0) landTensorCopies(bar);
    if (uint64_t(m.completed & 1) != parity) continue;
    if (m.pending > 0)
      return "an mbarrier phase whose arrivals are not all in (" + std::to_string(m.pending) + " missing)";
    return "an mbarrier phase that expects " + std::to_string(m.tx) + " bytes no copy delivers";
  }
  return "";
}

inline void CtaSim::setMaxNReg(const Group& g, const Inst& in) {
  if (!in.guard.empty() || in.parts.size() != 5 || (in.parts[1] != "inc" && in.parts[1] != "dec") ||
      in.parts[2] != "sync" || in.parts[3] != "aligned" || in.parts[4] != "u32")
    fail("setmaxnreg form not modelled");
  const int64_t regs = int64_t(get(g.threads[0], in.ops.at(0)));
  if (regs < 24 || regs > 256 || regs % 8) fail("setmaxnreg takes a multiple of 8 from 24 to 256");
  for (int t : g.threads)
    if (t / 128 * 128 + 128 > n_ || !std::all_of(running_.begin() + t / 128 * 128, running_.begin() + t / 128 * 128 + 128,
                                                  [](uint8_t r) { return r != 0; }))
      fail("setmaxnreg executed by part of a warpgroup");
}

inline std::string CtaSim::exitChecks() {
  for (int t = 0; t < n_; ++t)
    if (!openCopies_[size_t(t)].empty() || !copyGroups_[size_t(t)].empty()) return "cp.async copies never waited for at `ret;`";
  for (size_t g = 0; g < wgmmaOpen_.size(); ++g)
    if (!wgmmaOpen_[g].empty() || !wgmmaGroups_[g].empty()) return "wgmma groups never waited for at `ret;`";
  if (!tensorCopies_.empty()) return "TMA copies never waited for at `ret;`";
  for (int t = 0; t < n_; ++t)
    if (!openBulk_[size_t(t)].empty() || !bulkGroups_[size_t(t)].empty())
      return "TMA stores never waited for (cp.async.bulk.wait_group.read) at `ret`";
  // Every thread has exited, so only bar.arrive arrivals can be left: their phase never completes.
  if (!namedBarriers_.empty()) {
    const auto& [id, b] = *namedBarriers_.begin();
    return "named barrier " + std::to_string(id) + " has arrivals left at the end (" + std::to_string(b.arrived.size()) +
           " of " + std::to_string(b.expected) + " threads)";
  }
  // A phase some arrivals (or transaction bytes) went into but that never completed: a count that does not
  // match the arrivals, e.g. one arrival more than mbarrier.init's count spills into the next phase.
  for (const auto& [at, m] : mbarriers_)
    if (m.pending != m.expected || m.tx != 0)
      return "mbarrier at " + std::to_string(at) + " has a phase left incomplete at the end (" +
             std::to_string(m.expected - m.pending) + " of " + std::to_string(m.expected) + " arrivals, " +
             std::to_string(m.tx) + " transaction bytes pending)";
  return "";
}

inline std::string CtaSim::deadlock() {
  std::string why = "deadlock: no group of threads can run;";
  for (const Group& g : groups_) {
    if (g.done) continue;
    why += " threads " + std::to_string(g.threads.front()) + ".." + std::to_string(g.threads.back()) + " wait at `" +
           code_[g.pc].line + "`";
    if (g.wait == Group::Wait::Warpgroup) {
      why += " (for the rest of its warpgroup)";
    } else if (g.wait == Group::Wait::Mbarrier) {
      enter(g);
      try {
        why += " on " + mbarrierWaitBlocked(code_[g.pc]);
      } catch (const std::exception& ex) {
        why += std::string(" (") + ex.what() + ")";
      }
    } else if (auto b = namedBarriers_.find(g.barrier); b != namedBarriers_.end()) {
      why += " (" + std::to_string(b->second.arrived.size()) + " of " + std::to_string(b->second.expected) +
             " threads arrived)";
    }
    why += ";";
  }
  return why;
}

}  // namespace kiln::lower::test
