// Ahead-of-time compilation for C and C++ hosts: one specialization of a kernel becomes a C header and
// a C source file (cubin and PTX embedded, a typed launch function) that need only the CUDA driver, and
// several of them link into one dispatcher that picks the variant the JIT would (docs/aot.md).
#pragma once
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace kiln::aot {

struct Options {
  std::string kernel;     // the @jit function to compile
  std::string signature;  // one entry per parameter, as for kiln::compile: "*fp32:16, *fp32:16, i32:16, 1024"
  // The launch grid as up to three integer expressions over the kernel's integer arguments and integer
  // constexprs: "cdiv(n, BLOCK)", "(M + 127) / 128, N / 64, 1". Empty: the launch function takes the grid.
  std::string grid;
  std::string name;  // prefix of the generated C names and files; empty: the kernel's name
  std::string arch = "sm_90a";
  int num_warps = 4;
  int num_stages = 3;
  int maxnreg = 0;  // registers per thread, 24 to 255 (PTX .maxnreg); 0: no limit
};

// A generated file: its name (no directory) and its text.
struct File {
  std::string name;
  std::string text;
};

// Compiles one specialization and returns NAME.h and NAME.c. Errors (in the kernel, the signature, the
// grid, or assembling the cubin) come back as values with their location.
Result<std::vector<File>> compileVariant(const Source& source, const Options& options);

// Combines variants of one kernel (the headers compileVariant wrote, as File{name, text}) into NAME.h and
// NAME.c: NAME_launch tries the variants from the most specialised down and calls the first whose
// conditions the arguments meet; CUDA_ERROR_NOT_FOUND when none does.
Result<std::vector<File>> linkVariants(const std::vector<File>& headers, const std::string& name);

}  // namespace kiln::aot
