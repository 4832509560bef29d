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

// Runs `fn` once per program id in the grid. Throws CompileError (with the op's SourceLoc and a
// message that names the kernel) on an out-of-bounds access, a failed assert, an argument that
// does not fit its parameter, or an operation with undefined behaviour the interpreter detects
// (integer division by zero). Returns false when `stop` asked it to stop before the grid was done
// (the programs run so far have written their results), true when every program ran.
bool run(const ir::Function& fn, GridDims grid, std::span<const ArgValue> args, const StopRequest& stop = {});

}  // namespace kiln::interp
