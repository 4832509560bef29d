// The interpreter's run: runs one program, dispatches each op (one switch over ops.def) and control
// flow, and runs the grid. prepare.cpp builds the machine it runs.
#include <algorithm>

#include "interp/machine.h"
#include "interp/overflow_oracle.h"
#include "support/diagnostic.h"

namespace kiln::interp {

using ir::Opcode;
using ir::Scalar;

void Machine::copyInto(uint32_t dst, uint32_t src) {
  slots_[dst] = slots_[src];
  if (overflow_) overflow_->copied(dst, src);
}

void Machine::swapSlots(uint32_t a, uint32_t b) {
  std::swap(slots_[a], slots_[b]);
  if (overflow_) overflow_->swapped(a, b);
}

void Machine::runProgram(uint32_t x, uint32_t y, uint32_t z) {
  pid_[0] = x;
  pid_[1] = y;
  pid_[2] = z;
  if (overflow_) overflow_->beginProgram();
  execRegion(top_);
}

std::string Machine::programStr() const {
  return "(" + std::to_string(pid_[0]) + ", " + std::to_string(pid_[1]) + ", " + std::to_string(pid_[2]) +
         ")";
}

std::string Machine::elementStr(const ir::Type& t, int64_t flat) {
  if (!t.isTensor()) return "";
  std::vector<int64_t> idx(t.shape.size());
  for (size_t d = t.shape.size(); d-- > 0;) {
    idx[d] = flat % t.shape[d];
    flat /= t.shape[d];
  }
  std::string s = ", element [";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

void Machine::fail(const Inst& in, const std::string& what) const {
  throw CompileError(in.op->loc, "kernel '" + fn_.name + "': " + what);
}

// Runs the ops of a region up to its terminator (yield, condition or return), which it returns.
// Inlined into its callers (the grid loop, loops, branches), as it was before the oracle added a branch.
[[gnu::always_inline]] inline const Inst* Machine::execRegion(const Region& r) {
  if (overflow_) [[unlikely]] return execRegionWatched(r);
  for (const Inst& in : r.insts) {
    Opcode oc = in.op->opcode;
    if (oc == Opcode::Yield || oc == Opcode::Condition || oc == Opcode::Return) return &in;
    exec(in);
  }
  return nullptr;
}

const Inst* Machine::execRegionCalled(const Region& r) { return execRegion(r); }

// execRegion with the overflow oracle around every op: a loop of its own, so that the unchecked loop
// above is what it was (one test per region, not per op).
[[gnu::noinline]] const Inst* Machine::execRegionWatched(const Region& r) {
  for (const Inst& in : r.insts) {
    Opcode oc = in.op->opcode;
    if (oc == Opcode::Yield || oc == Opcode::Condition || oc == Opcode::Return) return &in;
    overflow_->before(in);
    exec(in);
    overflow_->after(in);
  }
  return nullptr;
}

void Machine::exec(const Inst& in) {
  switch (in.op->opcode) {
    case Opcode::Constant: result(in).assign(result(in).size(), in.imm); return;
    case Opcode::ProgramId:
      result(in)[0] = ir::normalize(type(in.out[0]).elem, ir::intElem(pid_[in.a]));
      return;
    case Opcode::NumPrograms:
      result(in)[0] = ir::normalize(type(in.out[0]).elem, ir::intElem(grid_[in.a]));
      return;
    case Opcode::Arange: {
      std::vector<Elem>& r = result(in);
      for (size_t i = 0; i < r.size(); ++i) r[i] = ir::normalize(Scalar::I32, ir::intElem(in.a + int64_t(i)));
      return;
    }
    case Opcode::Splat: {
      std::vector<Elem>& r = result(in);
      r.assign(r.size(), val(in.in[0]).at(0));
      return;
    }
    case Opcode::Broadcast: broadcast(in); return;
    case Opcode::Permute: permute(in); return;
    case Opcode::ExpandDims: case Opcode::Reshape: case Opcode::MultipleOf: case Opcode::MaxContiguous:
    case Opcode::ConvertLayout: {
      const std::vector<Elem>& src = val(in.in[0]);
      std::vector<Elem>& r = result(in);
      if (src.size() != r.size())
        throw InternalError(in.op->loc, std::string(in.op->name()) + " changes the element count");
      std::copy(src.begin(), src.end(), r.begin());
      return;
    }
    case Opcode::Cast: case Opcode::Bitcast: {
      const std::vector<Elem>& src = val(in.in[0]);
      std::vector<Elem>& r = result(in);
      Scalar from = type(in.in[0]).elem, to = type(in.out[0]).elem;
      if (src.size() != r.size()) throw InternalError(in.op->loc, "cast changes the element count");
      bool isCast = in.op->opcode == Opcode::Cast;
      for (size_t i = 0; i < r.size(); ++i)
        r[i] = isCast ? ir::convert(from, to, src[i], ir::RoundMode(in.a)) : ir::bitcast(from, to, src[i]);
      return;
    }
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Div: case Opcode::Rem:
    case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Shl: case Opcode::Shr:
    case Opcode::Min: case Opcode::Max: case Opcode::UMulHi: case Opcode::Neg: case Opcode::Not:
    case Opcode::Abs: case Opcode::Cmp: case Opcode::Clz: case Opcode::Popc: case Opcode::Brev:
    case Opcode::MulHi: case Opcode::BytePerm:
    KILN_MATH_OPCODE_CASES:
    case Opcode::Select:
      elementwise(in);
      return;
    case Opcode::PtrAdd: ptrAdd(in); return;
    case Opcode::Load: load(in); return;
    case Opcode::Store: store(in); return;
    case Opcode::AtomicRmw: atomicRmw(in); return;
    case Opcode::AtomicCas: atomicCas(in); return;
    case Opcode::DebugBarrier: return;  // programs run one at a time, each as one thread
    case Opcode::Reduce: reduce(in); return;
    case Opcode::ReduceCombine: reduceCombine(in); return;
    case Opcode::Scan: scan(in); return;
    case Opcode::Sort: sort(in); return;
    case Opcode::Dot: dot(in); return;
    case Opcode::Gather: gatherAlong(in); return;
    case Opcode::Histogram: histogram(in); return;
    case Opcode::For: execFor(in); return;
    case Opcode::If: execIf(in); return;
    case Opcode::While: execWhile(in); return;
    case Opcode::Yield: case Opcode::Condition: case Opcode::Return:
      return;  // terminators are consumed by execRegion
    case Opcode::Print: print(in); return;
    case Opcode::InlineAsm: break;  // rejected by prepare()
    case Opcode::Assert: {
      for (const Elem& e : val(in.in[0]))
        if (!(e.u & 1))
          fail(in, "device assertion failed at program " + programStr() + ": " +
                       in.op->strAttrOr("message", ""));
      return;
    }
    case Opcode::SharedAlloc: case Opcode::SharedSlot: case Opcode::SharedPermute: case Opcode::LocalStore: case Opcode::LocalLoad: case Opcode::ExtractSlice:
    case Opcode::AsyncCopy: case Opcode::AsyncCommit: case Opcode::AsyncWait: case Opcode::Barrier: case Opcode::FenceAsyncShared:
    case Opcode::MbarrierInit: case Opcode::MbarrierArrive: case Opcode::MbarrierExpectTx: case Opcode::AsyncCopyArrive: case Opcode::WarpgroupTurn:
    case Opcode::MbarrierWait: case Opcode::Mma: case Opcode::MmaWait: case Opcode::WarpPartition:
    case Opcode::TensorMap: case Opcode::TmaLoad: case Opcode::TmaStore: case Opcode::TmaStoreWait:
      break;  // rejected by prepare()
  }
  throw InternalError(in.op->loc, "unknown opcode");
}

namespace {
const Inst& terminator(const Inst* t, const Inst& parent, Opcode want, size_t numValues) {
  if (!t || t->op->opcode != want || t->in.size() < numValues)
    throw InternalError(parent.op->loc, std::string("region of '") + parent.op->name() + "' lacks its '" +
                                            ir::info(want).spelling + "' terminator");
  return *t;
}
}  // namespace

void Machine::execFor(const Inst& in) {
  const Region& body = in.regions.at(0);
  size_t n = in.out.size();
  if (body.args.size() != n + 1 || in.in.size() != n + 3) throw InternalError(in.op->loc, "malformed for");
  int64_t iv = val(in.in[0]).at(0).i, ub = val(in.in[1]).at(0).i, step = val(in.in[2]).at(0).i;
  if (step <= 0)
    fail(in, "for loop at program " + programStr() + " has a non-positive step (" + std::to_string(step) + ")");
  for (size_t k = 0; k < n; ++k) copyInto(body.args[k + 1], in.in[k + 3]);
  while (iv < ub) {
    slots_[body.args[0]].assign(1, ir::intElem(iv));
    if (overflow_) overflow_->assigned(body.args[0]);
    const Inst& y = terminator(execRegion(body), in, Opcode::Yield, n);
    // Through scratch: a yield may pass the iteration values back in another order.
    for (size_t k = 0; k < n; ++k) copyInto(in.scratch[k], y.in[k]);
    for (size_t k = 0; k < n; ++k) swapSlots(body.args[k + 1], in.scratch[k]);
    if (__builtin_add_overflow(iv, step, &iv)) break;
  }
  for (size_t k = 0; k < n; ++k) copyInto(in.out[k], body.args[k + 1]);
}

void Machine::execWhile(const Inst& in) {
  const Region& before = in.regions.at(0);
  const Region& after = in.regions.at(1);
  size_t n = in.in.size(), m = in.out.size();
  if (before.args.size() != n || after.args.size() != m) throw InternalError(in.op->loc, "malformed while");
  for (size_t k = 0; k < n; ++k) copyInto(before.args[k], in.in[k]);
  for (;;) {
    const Inst& c = terminator(execRegion(before), in, Opcode::Condition, m + 1);
    if (!(val(c.in[0]).at(0).u & 1)) {
      for (size_t k = 0; k < m; ++k) copyInto(in.out[k], c.in[k + 1]);
      return;
    }
    for (size_t k = 0; k < m; ++k) copyInto(after.args[k], c.in[k + 1]);
    const Inst& y = terminator(execRegion(after), in, Opcode::Yield, n);
    for (size_t k = 0; k < n; ++k) copyInto(in.scratch[k], y.in[k]);
    for (size_t k = 0; k < n; ++k) swapSlots(before.args[k], in.scratch[k]);
  }
}

void Machine::execIf(const Inst& in) {
  bool cond = val(in.in.at(0)).at(0).u & 1;
  const Region& r = in.regions.at(cond ? 0 : 1);
  const Inst* t = execRegion(r);
  if (in.out.empty()) return;
  const Inst& y = terminator(t, in, Opcode::Yield, in.out.size());
  for (size_t k = 0; k < in.out.size(); ++k) copyInto(in.out[k], y.in[k]);
}

bool run(const ir::Function& fn, GridDims grid, std::span<const ArgValue> args, const RunOptions& options) {
  Machine m(fn, grid, args, options.overflow);
  // A clock read per program (tens of nanoseconds, against a program's microseconds) rather than a
  // count: programs range from sub-microsecond to seconds, and the answer must come within ~100 ms.
  using Clock = std::chrono::steady_clock;
  const bool poll = options.stop || options.longRun;
  const Clock::time_point start = Clock::now();
  Clock::time_point nextPoll = start + kStopPollInterval;
  bool probed = !options.longRun;
  const uint64_t programs = uint64_t(grid.x) * grid.y * grid.z;
  for (uint32_t z = 0; z < grid.z; ++z)
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x) {
        m.runProgram(x, y, z);
        if (!poll) continue;
        const Clock::time_point now = Clock::now();
        if (now < nextPoll) continue;
        if (!probed && now - start >= kLongRunProbe) {
          probed = true;
          const uint64_t done = (uint64_t(z) * grid.y + y) * grid.x + x + 1;
          const double perSecond = double(done) / std::chrono::duration<double>(now - start).count();
          if (double(programs) > perSecond * double(kLongRunWarnAfter.count()) &&
              options.longRun(longRunMessage(fn.name, programs, perSecond)))
            return false;
        }
        if (options.stop && options.stop()) return false;
        nextPoll = Clock::now() + kStopPollInterval;
      }
  return true;
}

}  // namespace kiln::interp
