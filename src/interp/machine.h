// The interpreter's internal state: the function flattened into instructions whose operands are
// value numbers, one tile of storage per value (reused across programs), and the buffer arguments.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "interp/interp.h"
#include "ir/scalar_eval.h"

namespace kiln::interp {

using ir::Elem;

struct Inst;

// A block of the IR: its argument value numbers and its ops in order.
struct Region {
  std::vector<uint32_t> args;
  std::vector<Inst> insts;
};

// One op with operands and results as value numbers and its attributes decoded once.
struct Inst {
  const ir::Op* op = nullptr;
  std::vector<uint32_t> in, out;
  std::vector<Region> regions;
  std::vector<uint32_t> scratch;  // for/while: temporaries that carry yielded values between iterations
  ir::ElementwiseFn ew;           // element-wise ops
  Elem imm{};                     // constant: the value, normalized to the result type
  int64_t a = 0, b = 0;           // axis, arange start/end, cast rtz, reduce kind/axis, scan reverse/axis, sort descending/axis, dot tf32, atomic kind,
                                  // gather axis
  std::vector<int64_t> list;      // permute order
};

class OverflowOracle;

// The long-run notice (RunOptions::longRun) for `programs` programs run at `perSecond` (long_run.cpp).
std::string longRunMessage(const std::string& kernel, uint64_t programs, double perSecond);

enum ReduceKind : int64_t { kSum, kMax, kMin, kArgmax, kArgmin };
// atomic_rmw's kind attribute, in the order of kAtomicKinds.
enum AtomicKind : int64_t { kAtomicAdd, kAtomicAnd, kAtomicOr, kAtomicXor, kAtomicXchg, kAtomicMax, kAtomicMin };
inline constexpr const char* kAtomicKinds[] = {"add", "and", "or", "xor", "xchg", "max", "min"};

// A buffer argument: the byte range every memory access must fall inside.
struct Buffer {
  uint64_t begin = 0, end = 0;
  std::string param;
};

class Machine {
 public:
  Machine(const ir::Function& fn, GridDims grid, std::span<const ArgValue> args,
          OverflowCheck overflow = OverflowCheck::Off);
  ~Machine();
  void runProgram(uint32_t x, uint32_t y, uint32_t z);

  // ---- used by the op implementations (interp.cpp, memory.cpp, tile_ops.cpp)
  const ir::Type& type(uint32_t id) const { return *types_[id]; }
  const std::vector<Elem>& val(uint32_t id) const { return slots_[id]; }
  // The storage of a result, sized for its type (capacity is kept between executions).
  std::vector<Elem>& result(const Inst& in, unsigned k = 0) {
    std::vector<Elem>& s = slots_[in.out[k]];
    s.resize(size_t(types_[in.out[k]]->numel()));
    return s;
  }
  [[noreturn]] void fail(const Inst& in, const std::string& what) const;
  std::string programStr() const;                                    // "(3, 0, 0)"
  static std::string elementStr(const ir::Type& t, int64_t flat);    // ", element [17, 2]" or ""

  void elementwise(const Inst& in);
  void load(const Inst& in);
  void store(const Inst& in);
  void atomicRmw(const Inst& in);
  void atomicCas(const Inst& in);
  void ptrAdd(const Inst& in);
  void broadcast(const Inst& in);
  void permute(const Inst& in);
  void reduce(const Inst& in);
  void reduceCombine(const Inst& in);  // combine.cpp
  void scan(const Inst& in);           // combine.cpp
  void sort(const Inst& in);           // sort.cpp
  void dot(const Inst& in);
  void gatherAlong(const Inst& in);  // gather (exchange.cpp)
  void histogram(const Inst& in);    // exchange.cpp
  void print(const Inst& in);        // print.cpp: device_print's lines on stdout

 private:
  // The constructor's work, prepare to bindArgs (prepare.cpp): number values, decode ops, bind arguments.
  void prepare(const ir::Block& b, Region& r, int depth);
  uint32_t newSlot(const ir::Type& t);
  uint32_t newValue(const ir::Value* v);
  uint32_t idOf(const ir::Op& op, const ir::Value* v) const;
  void bindArgs(std::span<const ArgValue> args);
  void exec(const Inst& in);
  const Inst* execRegion(const Region& r);  // inline in interp.cpp
  const Inst* execRegionCalled(const Region& r);  // the same, callable from the other files
  const Inst* execRegionWatched(const Region& r);
  void execFor(const Inst& in);
  void execWhile(const Inst& in);
  void execIf(const Inst& in);
  // Runs the combine region of reduce_combine / scan on one (accumulated, new) pair of element tuples;
  // the combined tuple replaces `acc`.
  void combine(const Inst& in, std::vector<Elem>& acc, const std::vector<Elem>& x);
  void copyInto(uint32_t dst, uint32_t src);
  void swapSlots(uint32_t a, uint32_t b);
  void checkAccess(const Inst& in, const char* what, ir::Scalar t, uint64_t addr, uint64_t size,
                   int64_t flat);

  const ir::Function& fn_;
  uint32_t grid_[3];
  uint32_t pid_[3] = {0, 0, 0};
  std::unordered_map<const ir::Value*, uint32_t> ids_;  // value numbering (used while preparing only)
  std::vector<const ir::Type*> types_;
  std::vector<std::vector<Elem>> slots_;
  Region top_;
  std::vector<Buffer> buffers_;
  size_t lastBuffer_ = 0;
  // Reused scratch for dot and argmax (no allocation per execution in the steady state).
  std::vector<float> fa_, fb_;
  std::vector<Elem> ea_, eb_;
  std::unique_ptr<OverflowOracle> overflow_;  // null unless a run asks for the overflow check
};

}  // namespace kiln::interp
