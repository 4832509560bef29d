// Compiles examples/vector_add.py's add_kernel with kiln's C++ API and runs it on the CPU interpreter
// (and on the GPU too when there is one), checking the result. Usage: vector_add_host [vector_add.py]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace {

bool check(const std::vector<float>& out, const std::vector<float>& x, const std::vector<float>& y,
           const char* where) {
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] != x[i] + y[i]) {
      std::fprintf(stderr, "%s: out[%zu] = %g, expected %g\n", where, i, out[i], x[i] + y[i]);
      return false;
    }
  std::printf("%s: %zu elements correct\n", where, out.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : "vector_add.py";
  kiln::Result<kiln::Source> source = kiln::Source::fromFile(path);
  if (!source) {
    std::fprintf(stderr, "%s\n", source.error().text.c_str());
    return 1;
  }
  kiln::Result<kiln::Kernel> kernel =
      kiln::compile(source.value(), "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
  if (!kernel) {
    std::fprintf(stderr, "%s\n", kernel.error().text.c_str());
    return 1;
  }

  const int n = 3000;  // not a multiple of the block: the mask matters
  std::vector<float> x(n), y(n), out(n, std::nanf(""));
  for (int i = 0; i < n; ++i) x[i] = 0.5f * float(i), y[i] = float(n - i);
  std::vector<kiln::Arg> args = {kiln::Arg::buffer(x), kiln::Arg::buffer(y), kiln::Arg::buffer(out),
                                 kiln::Arg::integer(n)};
  kiln::Grid grid{uint32_t((n + 1023) / 1024)};
  kiln::Status s = kiln::interpret(kernel.value(), grid, args);
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error->text.c_str());
    return 1;
  }
  if (!check(out, x, y, "interpreter")) return 1;

  kiln::Result<kiln::Gpu> gpu = kiln::Gpu::open();
  if (!gpu) {
    std::printf("GPU: not run (%s)\n", gpu.error().message.c_str());
    return 0;
  }
  std::fill(out.begin(), out.end(), std::nanf(""));
  s = gpu.value().run(kernel.value(), grid, args);
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error->text.c_str());
    return 1;
  }
  return check(out, x, y, gpu.value().name().c_str()) ? 0 : 1;
}
