// A simulator of one CTA running emitted PTX, for the conversion, reduction, dot and end-to-end tests.
// Threads run in groups (ops_sim_groups.h): a group executes each instruction for all its threads before
// any executes the next, so warp shuffles, mma.sync (from the fragment formulas of PTX-NOTES §8,
// independently of kiln's layouts) and shared memory behave as on the GPU; atomics act thread after
// thread. The CTA starts as one group; a branch that is uniform in every warp but differs between warps
// splits it (one divergent inside a warp is an error), groups block on bar.sync and on mbarrier waits
// and run one at a time, and the groups a barrier releases at one pc merge again.
// Races: happens-before by vector clocks. Each thread has a clock per thread; its own entry ticks after
// each release. Arrivals at a named barrier (bar.sync, bar.arrive) release the arriving threads' clocks;
// when it completes, its bar.sync threads acquire their join (bar.arrive threads acquire nothing). An
// mbarrier arrival releases into the phase, a TMA copy its issuer's clock at issue, and a wait that sees
// the phase complete acquires their join.
// An access is (thread, its own clock then); it happens before thread t's current point when t's entry for
// that thread is at least that clock. Each shared byte keeps the writes and reads no later access is known
// to follow (FastTrack's sets). A read of a byte another thread wrote, or a write of a byte another thread
// read or wrote with a different value, that does not happen before the access is an error ("since the
// last barrier" in the messages: the barrier that would order them). Conflicting global stores are
// errors. Unknown instructions are errors too, so a test never passes by skipping work.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/scalar_eval.h"

namespace kiln::lower::test {

class CtaSim {
 public:
  CtaSim(const std::string& ptx, int numThreads, int64_t sharedBytes)
      : n_(numThreads), shared_(size_t(std::max<int64_t>(sharedBytes, 0))), sharedInfo_(shared_.size()) {
    parse(ptx);
  }

  // A global buffer (its base address is returned; pass it as a pointer parameter).
  uint64_t addBuffer(std::vector<uint8_t> bytes) {
    uint64_t base = 0x100000000ull * (buffers_.size() + 1);
    buffers_[base] = std::move(bytes);
    return base;
  }
  std::vector<uint8_t>& buffer(uint64_t base) { return buffers_.at(base); }
  void setParam(const std::string& symbol, uint64_t v) { params_[symbol] = v; }
  // A TMA tensor map as cuTensorMapEncodeTiled takes it, dims innermost first (ops_sim_tma.h).
  struct TensorMap {
    uint64_t address = 0;             // a global buffer's address (plus an offset)
    int elemBytes = 2;
    std::vector<uint64_t> dims;       // elements
    std::vector<uint64_t> strides;    // bytes, of dims 1..rank-1
    std::vector<uint32_t> box;        // elements
    int swizzle = 0;                  // 0, 32, 64 or 128 bytes
  };
  void setTensorMap(const std::string& symbol, TensorMap m);
  int64_t steps() const { return steps_; }

  // Runs the entry as CTA `ctaId` of a grid of `gridSize` CTAs (x, y, z); "" on success, else what went
  // wrong (with the instruction). Memory and buffers persist from run to run (the CTAs of one grid run
  // one after another); registers, barriers, clocks and the race record do not. ops_sim_groups.h.
  std::string run(std::array<uint64_t, 3> ctaId = {0, 0, 0}, std::array<uint64_t, 3> gridSize = {1, 1, 1});
  void setStepLimit(int64_t steps) { stepLimit_ = steps; }

 private:
  struct Inst {
    std::string line, guard;
    std::vector<std::string> parts;  // opcode split at '.'
    std::vector<std::string> ops;
  };
  // A shared-memory access for the race checks: by `thread` when its own clock stood at `clock`.
  struct Access {
    int thread;
    uint32_t clock;
  };
  struct ByteInfo {
    std::vector<Access> writes, reads;  // those no later access to the byte is known to follow
    uint8_t value = 0;                  // the last value written (several unordered writers must agree)
  };

  [[noreturn]] static void fail(const std::string& why) { throw std::runtime_error(why); }

  static std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
  }
  static std::vector<std::string> split(const std::string& s, char sep, bool nested) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : s) {
      if (nested && (c == '{' || c == '[')) ++depth;
      if (nested && (c == '}' || c == ']')) --depth;
      if (c == sep && depth == 0) {
        out.push_back(trim(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
    return out;
  }

  void parse(const std::string& ptx) {
    std::istringstream in(ptx.substr(ptx.find("{\n") + 2));
    for (std::string raw; std::getline(in, raw);) {
      std::string l = trim(raw.substr(0, raw.find("//")));
      if (l.empty() || l == "}") continue;
      if (l[0] == '.') continue;  // .reg .b32 %r<56>;
      if (l.back() == ':') {
        labels_[l.substr(0, l.size() - 1)] = code_.size();
        continue;
      }
      Inst i;
      i.line = l;
      if (l.back() == ';') l.pop_back();
      if (l[0] == '@') {
        size_t sp = l.find(' ');
        i.guard = l.substr(1, sp - 1);
        l = trim(l.substr(sp));
      }
      size_t sp = l.find(' ');
      i.parts = split(l.substr(0, sp), '.', false);
      if (sp != std::string::npos) i.ops = split(l.substr(sp + 1), ',', true);
      for (const std::string& o : i.ops) noteRegs(o);
      if (!i.guard.empty()) noteRegs(i.guard[0] == '!' ? i.guard.substr(1) : i.guard);
      code_.push_back(std::move(i));
    }
  }
  void noteRegs(const std::string& o) {
    std::string cur;
    auto flush = [&] {
      if (cur.size() > 1 && cur[0] == '%' && cur.find('.') == std::string::npos && !regIndex_.count(cur))
        regIndex_.emplace(cur, regIndex_.size());
      cur.clear();
    };
    for (char c : o) {
      if (c == '%' || std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') cur += c;
      else flush();
    }
    flush();
  }

  // ---- values
  bool isReg(const std::string& s) const { return regIndex_.count(s) != 0; }
  uint64_t& regRef(int t, const std::string& s) { return regs_[size_t(t)][regIndex_.at(s)]; }
  uint64_t get(int t, const std::string& s) {
    if (isReg(s)) {
      size_t i = regIndex_.at(s);
      if (!defined_[size_t(t)][i]) fail("register " + s + " read before it is written (thread " + std::to_string(t) + ")");
      return regs_[size_t(t)][i];
    }
    if (s == "%tid.x") return uint64_t(t);
    if (s == "%ntid.x") return uint64_t(n_);
    if (s == "%laneid") return uint64_t(t & 31);
    if (s == "%ctaid.x" || s == "%ctaid.y" || s == "%ctaid.z") return ctaId_[size_t(s.back() - 'x')];
    if (s == "%nctaid.x" || s == "%nctaid.y" || s == "%nctaid.z") return gridSize_[size_t(s.back() - 'x')];
    if (s == "smem") return 0;
    if (auto m = tensorMaps_.find(s); m != tensorMaps_.end()) return m->second.first;  // its param-space address
    if (s.rfind("0f", 0) == 0 || s.rfind("0d", 0) == 0 || s.rfind("0x", 0) == 0) return std::stoull(s.substr(2), nullptr, 16);
    if (s.rfind("-0x", 0) == 0) return uint64_t(-int64_t(std::stoull(s.substr(3), nullptr, 16)));
    try {
      size_t used = 0;
      int64_t v = std::stoll(s, &used);
      if (used == s.size()) return uint64_t(v);
    } catch (...) {
    }
    fail("unknown operand " + s);
  }
  void set(int t, const std::string& s, uint64_t v) {
    if (!isReg(s)) fail("destination " + s + " is not a register");
    size_t i = regIndex_.at(s);
    regs_[size_t(t)][i] = v;
    defined_[size_t(t)][i] = 1;
  }
  // Thread t executes `in`: it is in the running group and its guard (if any) holds.
  bool active(int t, const Inst& in) {
    if (!running_[size_t(t)]) return false;
    if (in.guard.empty()) return true;
    bool neg = in.guard[0] == '!';
    return (get(t, neg ? in.guard.substr(1) : in.guard) & 1) != neg;
  }
  static std::vector<std::string> vecOps(const std::string& s) {
    if (s.empty() || s[0] != '{') return {s};
    return split(s.substr(1, s.size() - 2), ',', false);
  }
  uint64_t address(int t, const std::string& s) {
    std::string a = s.substr(1, s.size() - 2);
    size_t plus = a.find('+');
    uint64_t base = get(t, trim(a.substr(0, plus)));
    if (plus != std::string::npos) base += uint64_t(std::stoll(trim(a.substr(plus + 1))));
    return base;
  }

  // ---- types
  static int bitsOf(const std::string& ty) {
    if (ty == "pred") return 1;
    if (ty == "tf32") return 32;
    return std::stoi(ty.substr(ty[0] == 'b' && ty[1] == 'f' ? 2 : 1));
  }
  static bool isFloatTy(const std::string& ty) {
    return ty[0] == 'f' || ty.rfind("bf16", 0) == 0 || ty == "tf32" || ty.rfind("e4m3", 0) == 0 || ty.rfind("e5m2", 0) == 0;
  }
  static ir::Scalar floatScalar(const std::string& ty) {
    if (ty == "f16") return ir::Scalar::F16;
    if (ty == "bf16") return ir::Scalar::BF16;
    if (ty == "f32" || ty == "tf32") return ir::Scalar::F32;
    if (ty == "f64") return ir::Scalar::F64;
    if (ty == "e4m3") return ir::Scalar::F8E4M3;
    if (ty == "e5m2") return ir::Scalar::F8E5M2;
    fail("not a float type: " + ty);
  }
  static double toD(const std::string& ty, uint64_t bits) {
    ir::Scalar s = floatScalar(ty);
    return ir::fromBits(s, bits & mask(ir::bitWidth(s))).f;
  }
  static uint64_t fromD(const std::string& ty, double v) {
    ir::Scalar s = floatScalar(ty);
    return ir::toBits(s, ir::floatElem(ir::roundTo(s, v)));
  }
  static uint64_t mask(int bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }
  static int64_t sext(uint64_t v, int bits) {
    if (bits >= 64) return int64_t(v);
    uint64_t m = uint64_t(1) << (bits - 1);
    v &= mask(bits);
    return int64_t((v ^ m) - m);
  }
  // An integer operand of type ty as a 64-bit value (sign- or zero-extended).
  static int64_t ival(const std::string& ty, uint64_t v) {
    int b = bitsOf(ty);
    return ty[0] == 's' ? sext(v, b) : int64_t(v & mask(b));
  }

  void exec(const Inst& in);
  void execShfl(const Inst& in);
  void execMma(const Inst& in);
  void execMemory(const Inst& in);
  void execLdmatrix(const Inst& in);
  void execStmatrix(const Inst& in);
  std::vector<uint64_t> matrixRows(int w0, int num, const Inst& in, const std::string& operand, const char* what);
  // Race checks and clocks (ops_sim_races.h).
  uint8_t sharedRead(int t, size_t byte);
  void sharedWrite(int t, size_t byte, uint8_t value);
  static bool happenedBefore(const Access& a, const std::vector<uint32_t>& clock) { return a.clock <= clock[size_t(a.thread)]; }
  bool seenBy(const ByteInfo& bi, const std::vector<uint32_t>& clock) const;  // every access happened before
  void release(int t, std::vector<uint32_t>& into);  // joins t's clock into `into`, then t's entry ticks
  void acquire(int t, const std::vector<uint32_t>& from) {
    for (size_t i = 0; i < from.size(); ++i) clocks_[size_t(t)][i] = std::max(clocks_[size_t(t)][i], from[i]);
  }
  // A barrier completes: each of `waiters` acquires `released`, the join its participants released.
  void barrierJoin(const std::vector<int>& waiters, const std::vector<uint32_t>& released);
  // The scheduler (ops_sim_groups.h): groups of threads with their own pc, each a union of whole warps
  // (or the whole CTA), run one at a time until they block, split or exit.
  struct Group {
    std::vector<int> threads;  // ascending
    size_t pc = 0;
    // Mbarrier: retried when picked; Warpgroup: at a warpgroup-wide instruction, until the other warps
    // of its warpgroups reach it too (groups at one pc merge)
    enum class Wait { None, Barrier, Mbarrier, Warpgroup } wait = Wait::None;
    int64_t barrier = -1;                                            // the id it waits at
    bool done = false;
  };
  struct NamedBarrier {
    int expected = 0;
    std::vector<int> arrived;        // this phase's arrivals, by bar.sync and bar.arrive
    std::vector<uint32_t> released;  // their clocks at arrival: what the bar.sync threads acquire
  };
  void runGroup(size_t g);
  bool partOfAWarpgroup(const Group& g) const;
  bool pickGroup(size_t& g);  // a group that can run (merging runnable groups at one pc); false: none
  void branch(size_t g, const Inst& in);
  void arriveAtBarrier(size_t g, const Inst& in);  // bar.sync, bar.arrive
  void namedBarrierArrive(int64_t id, int64_t expected, const std::vector<int>& threads);
  void warpSync(const Group& g, const Inst& in);
  std::string mbarrierWaitBlocked(const Inst& in);  // "" if every running thread's wait phase is complete
  void setMaxNReg(const Group& g, const Inst& in);
  std::string exitChecks();
  std::string deadlock();
  void enter(const Group& g);  // marks g's threads as the running ones
  void execCpAsync(const Inst& in);  // ops_sim_async.h
  void execAtomic(const Inst& in);   // ops_sim_atomic.h
  // mbarriers and TMA copies (ops_sim_tma.h)
  struct Mbarrier {
    int64_t completed = 0;  // phases completed: the current phase's parity is completed & 1
    int64_t pending = 0, expected = 0, tx = 0;
    std::vector<uint32_t> arrivedClock, completedClock;  // the current phase's releases; the last completed one's
  };
  struct TensorCopy {
    size_t bar;
    int issuer;
    std::vector<std::pair<size_t, uint8_t>> bytes;  // shared byte -> value, swizzle applied
    std::vector<uint32_t> clock;                    // the issuer's at issue: what the landing follows
  };
  void execMbarrier(const Inst& in);
  void execTensorCopy(const Inst& in);
  void mbarrierArrive(size_t bar, int64_t arrivals, int64_t tx);
  void completePhaseIfDone(Mbarrier& m);
  Mbarrier& mbarrierAt(size_t bar);
  void landTensorCopies(size_t bar);
  const TensorMap& tensorMapAt(uint64_t address) const;
  // What a bulk tensor copy of either direction reads off its instruction: the rank, after checking
  // the form `cp.async.bulk.tensor.<r>d.<form...>`; then for thread t the map of operand
  // `tensorOperand` ([map, {c..}]) and, in the box's order (innermost dim first), each element's
  // global address where it lies inside the tensor. `shared` is the copy's shared-memory end.
  struct BoxElement {
    bool inside;
    uint64_t global;
  };
  size_t bulkTensorRank(const Inst& in, const std::vector<std::string>& form, const char* what);
  const TensorMap& tensorBox(int t, const Inst& in, size_t tensorOperand, size_t rank, uint64_t shared,
                             std::vector<BoxElement>& elements);
  // Shared byte b of box element e of a copy at `base`, swizzled on absolute address bits.
  static uint64_t boxSharedByte(const TensorMap& map, uint64_t base, size_t e, int b) {
    uint64_t p = base + e * uint64_t(map.elemBytes) + uint64_t(b);
    if (map.swizzle) p ^= ((p >> 7) & uint64_t(map.swizzle / 16 - 1)) << 4;
    return p;
  }
  // TMA stores and bulk groups (ops_sim_tma_store.h): each copy's source bytes, read at issue.
  struct TensorStore {
    struct Byte {
      size_t shared;
      uint8_t value;
      bool inside;      // the element lies in the tensor: written at `global`
      uint64_t global;
    };
    int issuer;
    std::vector<Byte> bytes;
  };
  void execBulk(const Inst& in);
  void execTensorStore(const Inst& in);
  void retireTensorStore(const TensorStore& s);
  // wgmma (ops_sim_wgmma.h): each instruction's operands per warpgroup, run when its group retires.
  struct PendingWgmma {
    struct Group {
      int t0 = 0;  // the warpgroup's first thread
      uint64_t descA = 0, descB = 0;
      bool transA = false, transB = false, scaleD = true;
      std::vector<uint32_t> a;  // A from registers: four per thread of the warpgroup
    };
    int n = 0, k = 16;
    std::string dtype, atype, btype;  // f32 / s32; f16 bf16 tf32 e4m3 e5m2 s8 u8
    std::vector<std::string> d;
    std::vector<Group> groups;
  };
  void execWgmma(const Inst& in);
  void runWgmma(const PendingWgmma& w);
  size_t wgmmaAddress(uint64_t desc, bool mnMajor, int mn, int k, int elemBytes);
  static int wgmmaElemBytes(const std::string& type);
  double wgmmaElem(const std::string& type, uint64_t bits);
  uint8_t* globalBytes(uint64_t at, int bytes);
  double floatMinMax(bool isMax, bool nanProp, double a, double b);

  int n_;
  std::vector<Inst> code_;
  std::map<std::string, size_t> labels_;
  std::unordered_map<std::string, size_t> regIndex_;
  std::vector<std::vector<uint64_t>> regs_;
  std::vector<std::vector<uint8_t>> defined_;
  std::map<std::string, uint64_t> params_;
  std::map<uint64_t, std::vector<uint8_t>> buffers_;
  std::map<uint64_t, std::pair<uint8_t, int>> globalWrites_;  // byte address -> (value, thread)
  std::vector<uint8_t> shared_;
  std::vector<ByteInfo> sharedInfo_;
  std::vector<std::vector<uint32_t>> clocks_;  // per thread: its vector clock
  // cp.async: per thread, the copies issued since the last commit and the committed groups not yet
  // waited for. A copy lands in shared memory only when a wait_group retires its group: the latest the
  // hardware may deliver it, so a read that does not wait sees stale data.
  struct AsyncCopy {
    size_t dst;
    std::vector<uint8_t> data;
  };
  std::vector<std::vector<AsyncCopy>> openCopies_;
  std::vector<std::vector<std::vector<AsyncCopy>>> copyGroups_;
  std::vector<std::vector<PendingWgmma>> wgmmaOpen_;                 // per warpgroup
  std::vector<std::vector<std::vector<PendingWgmma>>> wgmmaGroups_;  // per warpgroup: committed, not retired
  std::map<std::string, std::pair<uint64_t, TensorMap>> tensorMaps_;  // symbol -> (address, map)
  std::map<size_t, Mbarrier> mbarriers_;
  std::vector<TensorCopy> tensorCopies_;  // issued, not landed
  std::vector<std::vector<TensorStore>> openBulk_;                 // per thread: since its last commit_group
  std::vector<std::vector<std::vector<TensorStore>>> bulkGroups_;  // per thread: committed, not retired
  int64_t steps_ = 0, stepLimit_ = 2000000, runSteps_ = 0;
  const Inst* cur_ = nullptr;
  std::array<uint64_t, 3> ctaId_{0, 0, 0}, gridSize_{1, 1, 1};
  std::vector<Group> groups_;
  std::vector<uint8_t> running_;  // per thread: in the group being executed
  std::map<int64_t, NamedBarrier> namedBarriers_;
};

}  // namespace kiln::lower::test

#include "ops_sim_exec.h"
#include "ops_sim_warp_ops.h"
#include "ops_sim_races.h"
#include "ops_sim_groups.h"
#include "ops_sim_async.h"
#include "ops_sim_atomic.h"
#include "ops_sim_wgmma.h"
#include "ops_sim_tma.h"
#include "ops_sim_tma_store.h"
