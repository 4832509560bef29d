// Launch overhead from C++: the host time of one cached launch of a tiny four-argument kernel through
// kiln::JitFunction::launch (specialization key, cache lookup, argument packing, cuLaunchKernelEx), next
// to the driver's own floor (runtime::launch of the same loaded kernel). Target: at most 2 us per launch.
// Usage: kiln-bench-launch [launches per batch (500)] [batches (40)]. Without a GPU it says so and exits 0.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kiln/launcher.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/launch.h"

namespace {

const char* const kTinyKernel = R"(
import triton
import triton.language as tl

@triton.jit
def tiny(x_ptr, y_ptr, out_ptr, n):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
)";

// Median over batches of the host time per call of `launch`, in microseconds. Each batch ends with a
// synchronization (not timed), so the launch queue never fills and blocks.
template <class F>
double microsPerLaunch(F&& launch, kiln::runtime::CudaDriver& driver, int perBatch, int batches) {
  std::vector<double> samples;
  for (int b = 0; b < batches; ++b) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < perBatch; ++i) launch();
    auto t1 = std::chrono::steady_clock::now();
    driver.synchronize(0);
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / perBatch);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int perBatch = argc > 1 ? std::atoi(argv[1]) : 500;
  const int batches = argc > 2 ? std::atoi(argv[2]) : 40;
  kiln::Runtime rt;
  std::string why;
  if (!rt.hasGpu(&why)) {
    std::printf("kiln-bench-launch: no GPU, nothing measured (%s)\n", why.c_str());
    return 0;
  }
  auto driver = kiln::runtime::CudaDriver::open();
  auto fn = kiln::JitFunction::create(rt, kiln::Source::fromString(kTinyKernel, "tiny.py"), "tiny");
  if (!fn) {
    std::fprintf(stderr, "%s\n", fn.error().text.c_str());
    return 1;
  }
  const int n = 4096;
  kiln::runtime::DeviceBuffer x(driver, 0, n * 4), y(driver, 0, n * 4), out(driver, 0, n * 4);
  x.fill(0);
  y.fill(0);
  std::vector<kiln::LaunchArg> args = {kiln::LaunchArg::devicePointer(x.ptr(), "fp32", 0),
                                       kiln::LaunchArg::devicePointer(y.ptr(), "fp32", 0),
                                       kiln::LaunchArg::devicePointer(out.ptr(), "fp32", 0),
                                       kiln::LaunchArg::integer(n)};
  kiln::LaunchOptions options;
  const kiln::Grid grid{uint32_t(n / 128), 1, 1};
  std::shared_ptr<const kiln::CompiledKernel> compiled;
  kiln::LaunchStatus first = fn->launch(grid, args, options, &compiled);  // compiles and loads
  if (!first) {
    std::fprintf(stderr, "%s\n", first.error->text.c_str());
    return 1;
  }
  bool failed = false;
  double kilnUs = microsPerLaunch(
      [&] {
        if (!fn->launch(grid, args, options)) failed = true;
      },
      *driver, perBatch, batches);

  // The floor: the same cubin launched straight through runtime::launch (checks + cuLaunchKernelEx).
  auto loaded = kiln::runtime::LoadedKernel::fromImage(driver, 0, compiled->cubin, "tiny", 4);
  kiln::runtime::cu::DevicePtr px = x.ptr(), py = y.ptr(), po = out.ptr();
  uint64_t vn = n;
  std::vector<void*> raw = {&px, &py, &po, &vn};
  double floorUs = microsPerLaunch(
      [&] { kiln::runtime::launch(*loaded, {uint32_t(n / 128), 1, 1}, 128, 0, nullptr, raw); }, *driver, perBatch,
      batches);
  if (failed) {
    std::fprintf(stderr, "kiln-bench-launch: a launch failed\n");
    return 1;
  }
  std::printf("launch overhead from C++ (tiny kernel, 4 arguments, %s, median of %d batches of %d)\n",
              compiled->arch.c_str(), batches, perBatch);
  std::printf("| path | us per launch |\n|---|---|\n");
  std::printf("| kiln::JitFunction::launch (key + cache + pack + launch) | %.2f |\n", kilnUs);
  std::printf("| runtime::launch (cuLaunchKernelEx floor) | %.2f |\n", floorUs);
  std::printf("| kiln's own share | %.2f |\n", kilnUs - floorUs);
  std::printf("target: <= 2 us per launch from C++: %s\n", kilnUs <= 2.0 ? "met" : "NOT met");
  return 0;
}
