// The Tile IR interpreter: runs a kernel Function over a grid on host memory, whole tiles at a
// time, with exact dtype semantics. It defines what every op means; the GPU is judged against it.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "ir/ir.h"

namespace kiln::interp {

// One argument per parameter of the function (body.args), in order.
struct ArgValue {
  enum class Kind { Buffer, Int, Float };
  Kind kind = Kind::Int;
  void* data = nullptr;  // Buffer: host memory
  size_t bytes = 0;      // Buffer: its size; every access must fall inside [data, data+bytes)
  int64_t i = 0;         // Int: converted (wrapped) to the parameter's integer type
  double f = 0;          // Float: rounded to the parameter's float type
};

struct GridDims {
  uint32_t x = 1, y = 1, z = 1;
};

// Asked between programs whether the caller wants the run stopped (Ctrl-C from Python): the caller's
// own object, no global flag. run() asks at most once per kStopPollInterval of running, so asking may
// be slow (the Python binding takes the GIL to check for signals).
using StopRequest = std::function<bool()>;
inline constexpr std::chrono::milliseconds kStopPollInterval{20};

// The int32-overflow oracle (overflow_oracle.h, docs/semantics.md): Off; Address: a load or store whose
// address an i32/u32 wrap changed stops the run at the op that wrapped; All: any i32/u32 integer op
// whose result wraps stops the run there. Off costs nothing: the oracle is not created.
enum class OverflowCheck : uint8_t { Off, Address, All };

// Told once, kLongRunProbe into a run, when the programs' measured speed says the whole grid will take
// more than kLongRunWarnAfter: a message naming the kernel, the programs, their speed and the estimate.
// Returning true stops the run as StopRequest does (the Python binding raises the warning when warnings
// are errors).
using LongRunNotice = std::function<bool(const std::string& message)>;
inline constexpr std::chrono::milliseconds kLongRunProbe{250};
inline constexpr std::chrono::seconds kLongRunWarnAfter{60};

struct RunOptions {
  StopRequest stop;
  OverflowCheck overflow = OverflowCheck::Off;
  LongRunNotice longRun;
};

// Runs `fn` once per program id in the grid. Throws CompileError (with the op's SourceLoc and a
// message that names the kernel) on an out-of-bounds access, a failed assert, an argument that
// does not fit its parameter, or a wrap the overflow check reports. Returns false when `stop` (or
// `longRun`) asked it to stop before the grid was done (the programs run so far have written their
// results), true when every program ran.
bool run(const ir::Function& fn, GridDims grid, std::span<const ArgValue> args, const RunOptions& options);
inline bool run(const ir::Function& fn, GridDims grid, std::span<const ArgValue> args, const StopRequest& stop = {}) {
  return run(fn, grid, args, RunOptions{stop, OverflowCheck::Off, {}});
}

}  // namespace kiln::interp
