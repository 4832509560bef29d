// Compile-time benchmark: for each example kernel, the median wall time of a cold compile from source
// to Tile IR, to PTX (sm_90a) and to a loadable cubin (PTX + the assembler runtime::compileToCubin picks:
// ptxas, else nvJitLink), over kRepeats fresh compiles.
// Usage: kiln-bench-compile [repeats]   (KILN_EXAMPLES_DIR overrides where the examples are read from)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kDefaultRepeats = 20;
constexpr const char* kArch = "sm_90a";

struct BenchKernel {
  const char* label;
  const char* file;
  const char* kernel;
  const char* signature;
  int numWarps;
};

// The five demo kernels at examples/demo.cpp's signatures, then the other examples at signatures from
// tests/unit/lower/ptxas_inputs/generate.sh (matmul 128x128x32 is examples/matmul.py's own configuration).
const BenchKernel kKernels[] = {
    {"vector add 1024", "vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", 4},
    {"softmax 1024", "softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 4", 4},
    {"layernorm 256 fp16", "layernorm.py", "layer_norm_fwd_kernel",
     "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 256", 4},
    {"matmul 32x32x32 fp16", "matmul.py", "matmul_kernel",
     "*fp16, *fp16, *fp16, i32, i32, i32, i32, 1, i32, 1, i32, 1, 32, 32, 32, 4, \"leaky_relu\"", 4},
    {"flash attn 32x16 d32", "flash_attention.py", "attn_fwd",
     "*fp16, *fp16, *fp16, fp32, *fp32, *fp16, i32, i32, i32, 1, i32, i32, i32, 1, i32, i32, i32, 1, i32, i32, "
     "i32, 1, i32, i32, 32, 32, 16, True",
     4},
    {"matmul 128x128x32 fp16", "matmul.py", "matmul_kernel",
     "*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 128, 128, 32, 8, \"\"", 8},
    {"collatz", "control_flow.py", "collatz_steps_kernel", "*i32, *i32, i32", 4},
    {"searchsorted", "control_flow.py", "searchsorted_kernel", "*fp32, i32, *fp32, *i32", 4},
    {"polyval deg 3, 256", "control_flow.py", "polyval_kernel", "*fp32, *fp32, *fp32, i32, 3, 256", 4},
    {"hash 3 rounds, 128", "integer_ops.py", "hash_kernel", "*u32, *u32, *u32, i32, 3, 128", 4},
    {"int arith 512", "integer_ops.py", "int_arith_kernel", "*i32, *i32, *i32, *i32, *i32, *i32, i32, 512", 4},
    {"add2d 16x32", "grid2d.py", "add2d_kernel", "*fp32, *fp32, *fp32, i32, i32, i32, i32, i32, 16, 32", 4},
    {"transpose 32x16", "grid2d.py", "transpose_kernel", "*fp32, *fp32, i32, i32, i32, i32, i32, i32, 32, 16", 4},
    {"argmax 128", "reductions.py", "argmax_kernel", "*fp32, *i32, *fp32, i32, i32, 128", 4},
    {"row stats 256", "reductions.py", "row_stats_kernel", "*fp32, *fp32, *fp32, i32, i32, 256", 4},
    {"segment sum 64", "reductions.py", "segment_sum_kernel", "*fp32, *i32, *fp32, 64", 4},
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

int main(int argc, char** argv) {
  int repeats = argc > 1 ? std::atoi(argv[1]) : kDefaultRepeats;
  if (repeats < 1) {
    std::fprintf(stderr, "usage: %s [repeats >= 1]\n", argv[0]);
    return 2;
  }
  const char* dir = std::getenv("KILN_EXAMPLES_DIR");
  std::string examples = dir && *dir ? dir : KILN_EXAMPLES_DIR;
  std::printf("kiln compile time, median of %d cold compiles each (ms); PTX and cubin for %s\n\n", repeats, kArch);
  std::printf("| %-24s | %9s | %9s | %9s |\n", "kernel", "to IR", "to PTX", "to cubin");
  std::printf("|%s|%s|%s|%s|\n", std::string(26, '-').c_str(), std::string(11, '-').c_str(),
              std::string(11, '-').c_str(), std::string(11, '-').c_str());
  int failures = 0;
  for (const BenchKernel& k : kKernels) {
    // The source is read once: the figures are compile time, not file I/O.
    kiln::Result<kiln::Source> src = kiln::Source::fromFile(examples + "/" + k.file);
    if (!src) {
      std::printf("| %-24s | %s\n", k.label, src.error().message.c_str());
      ++failures;
      continue;
    }
    kiln::CompileOptions irOnly, gpu;
    irOnly.num_warps = gpu.num_warps = k.numWarps;
    gpu.arch = kArch;
    std::vector<double> toIr, toPtx, toCubin;
    std::string error;
    for (int r = 0; r < repeats && error.empty(); ++r) {
      auto t = Clock::now();
      kiln::Result<kiln::Kernel> ir = kiln::compile(src.value(), k.kernel, k.signature, irOnly);
      toIr.push_back(msSince(t));
      if (!ir) error = ir.error().text;
      // PTX: a fresh compile with the arch set; stage("ptx") is part of what a user waits for.
      t = Clock::now();
      kiln::Result<kiln::Kernel> ptx = kiln::compile(src.value(), k.kernel, k.signature, gpu);
      size_t ptxBytes = ptx ? ptx.value().stage("ptx").size() : 0;
      toPtx.push_back(msSince(t));
      if (!ptx) error = ptx.error().text;
      else if (ptxBytes == 0) error = "no PTX stage";
      // Cubin: another fresh compile, then the assembler, so each repetition is cold end to end.
      t = Clock::now();
      kiln::Result<kiln::Kernel> full = kiln::compile(src.value(), k.kernel, k.signature, gpu);
      if (!full) {
        error = full.error().text;
        break;
      }
      kiln::Result<std::vector<uint8_t>> cubin = kiln::assembleCubin(full.value(), kArch);
      toCubin.push_back(msSince(t));
      if (!cubin) error = cubin.error().text;
    }
    if (!error.empty()) {
      std::printf("| %-24s | error: %s\n", k.label, error.c_str());
      ++failures;
      continue;
    }
    std::printf("| %-24s | %9.2f | %9.2f | %9.2f |\n", k.label, median(toIr), median(toPtx), median(toCubin));
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}
