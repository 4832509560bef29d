// Launch overhead from C++: the host time of one cached launch of a tiny four-argument kernel through
// kiln::JitFunction::launch (key, cache lookup, argument packing, the driver call), through kiln's
// runtime layer, and the driver's own floors: cuLaunchKernel and cuLaunchKernelEx called directly on
// the same CUfunction, on the legacy default stream and on a created stream. Target: <= 2 us per launch.
// Usage: kiln-bench-launch [launches per batch (64)] [batches (200)]. Without a GPU it says so, exits 0.
//
// What is timed is the CPU side only: the loop of launches of one batch. The batch is small, so the
// GPU's queue never fills and blocks the launching thread (each tiny kernel takes ~2 us on the GPU,
// about a launch's cost), and the synchronisation after each batch is outside the timed region. The
// last row launches batches of 1000 to show whether a long queue throttles the launching thread.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "kiln/launcher.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/launch.h"

namespace {

namespace rt = kiln::runtime;

const char* const kTinyKernel = R"(
import triton
import triton.language as tl

@triton.jit
def tiny(x_ptr, y_ptr, out_ptr, n):
    offs = tl.program_id(0) * 128 + tl.arange(0, 128)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
)";

double threadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Timing {
  double wallUs = 0;  // median over batches of the wall time of the batch's launches, per launch
  double cpuUs = 0;   // the same in this thread's CPU time (equal to wall unless the thread waited)
};

// Times batches of `launch` calls; the GPU drains (synchronize, untimed) between batches.
Timing measure(const std::function<void()>& launch, rt::CudaDriver& driver, int perBatch, int batches) {
  for (int i = 0; i < 50; ++i) launch();
  driver.synchronize(0);
  std::vector<double> wall, cpu;
  for (int b = 0; b < batches; ++b) {
    const double c0 = threadSeconds();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < perBatch; ++i) launch();
    auto t1 = std::chrono::steady_clock::now();
    const double c1 = threadSeconds();
    driver.synchronize(0);
    wall.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / perBatch);
    cpu.push_back((c1 - c0) * 1e6 / perBatch);
  }
  return {median(wall), median(cpu)};
}

}  // namespace

int main(int argc, char** argv) {
  const int perBatch = argc > 1 ? std::max(1, std::atoi(argv[1])) : 64;
  const int batches = argc > 2 ? std::max(1, std::atoi(argv[2])) : 200;
  kiln::Runtime runtime;
  std::string why;
  if (!runtime.hasGpu(&why)) {
    std::printf("kiln-bench-launch: no GPU, nothing measured (%s)\n", why.c_str());
    return 0;
  }
  auto driver = rt::CudaDriver::open();
  auto fn = kiln::JitFunction::create(runtime, kiln::Source::fromString(kTinyKernel, "tiny.py"), "tiny");
  if (!fn) {
    std::fprintf(stderr, "%s\n", fn.error().text.c_str());
    return 1;
  }
  const int n = 4096;
  const unsigned blocks = unsigned(n / 128);
  rt::DeviceBuffer x(driver, 0, n * 4), y(driver, 0, n * 4), out(driver, 0, n * 4);
  x.fill(0);
  y.fill(0);
  std::vector<kiln::LaunchArg> args = {kiln::LaunchArg::devicePointer(x.ptr(), "fp32", 0),
                                       kiln::LaunchArg::devicePointer(y.ptr(), "fp32", 0),
                                       kiln::LaunchArg::devicePointer(out.ptr(), "fp32", 0),
                                       kiln::LaunchArg::integer(n)};
  rt::Stream stream(driver, 0);
  kiln::LaunchOptions onDefault, onStream;
  onStream.stream = stream.handle();
  const kiln::Grid grid{blocks, 1, 1};
  std::shared_ptr<const kiln::CompiledKernel> compiled;
  if (kiln::LaunchStatus first = fn->launch(grid, args, onDefault, &compiled); !first) {  // compiles and loads
    std::fprintf(stderr, "%s\n", first.error->text.c_str());
    return 1;
  }
  const unsigned threads = unsigned(compiled->numWarps * 32);
  kiln::Result<int64_t> sharedBytes = compiled->dynamicSharedBytes(compiled->arch);
  if (!sharedBytes) {
    std::fprintf(stderr, "%s\n", sharedBytes.error().text.c_str());
    return 1;
  }
  const size_t shared = size_t(sharedBytes.value());

  // The same cubin loaded again for the lower layers and the raw driver calls.
  auto loaded = rt::LoadedKernel::fromImage(driver, 0, compiled->cubin, "tiny", 4);
  rt::cu::DevicePtr px = x.ptr(), py = y.ptr(), po = out.ptr();
  int vn = n;  // the kernel's n is i32
  std::vector<void*> raw = {&px, &py, &po, &vn};
  rt::PreparedLaunch prepared(*loaded, threads, shared, raw.size());
  const rt::cu::DriverApi& api = driver->api();
  rt::cu::Function f = loaded->function();
  int failures = 0;
  auto classic = [&](rt::cu::Stream s) {
    return [&, s] {
      failures += api.launchKernel(f, blocks, 1, 1, threads, 1, 1, unsigned(shared), s, raw.data(), nullptr) != 0;
    };
  };
  auto extended = [&](rt::cu::Stream s) {
    return [&, s] {
      rt::cu::LaunchConfig config{};
      config.gridDimX = blocks, config.gridDimY = 1, config.gridDimZ = 1;
      config.blockDimX = threads, config.blockDimY = 1, config.blockDimZ = 1;
      config.sharedMemBytes = unsigned(shared);
      config.hStream = s;
      failures += api.launchKernelEx(&config, f, raw.data(), nullptr) != 0;
    };
  };
  auto viaJit = [&](const kiln::LaunchOptions& o) {
    return [&, o] { failures += !fn->launch(grid, args, o); };
  };

  struct Row {
    std::string name;
    Timing t;
  };
  std::vector<Row> rows;
  auto row = [&](const char* name, const std::function<void()>& launch, int per = 0, int count = 0) {
    driver->makeCurrent(0);
    rows.push_back({name, measure(launch, *driver, per ? per : perBatch, count ? count : batches)});
  };
  row("kiln::JitFunction::launch, legacy default stream", viaJit(onDefault));
  row("kiln::JitFunction::launch, created stream", viaJit(onStream));
  const kiln::Grid noGrid{0, 1, 1};  // an empty grid launches nothing: kiln's own work, no driver call
  row("kiln::JitFunction::launch, empty grid (no driver call)", [&] { failures += !fn->launch(noGrid, args, onDefault); });
  row("runtime::PreparedLaunch::launch (grid check + cuLaunchKernel)", [&] {
    prepared.launch({blocks, 1, 1}, nullptr, raw.data());
  });
  row("runtime::launch (every check + cuLaunchKernel)", [&] {
    rt::launch(*loaded, {blocks, 1, 1}, threads, shared, nullptr, raw);
  });
  const size_t floorRow = rows.size();
  row("cuLaunchKernel, legacy default stream (driver floor)", classic(nullptr));
  row("cuLaunchKernelEx, legacy default stream (driver floor)", extended(nullptr));
  row("cuLaunchKernel, created stream (driver floor)", classic(stream.handle()));
  row("cuLaunchKernelEx, created stream (driver floor)", extended(stream.handle()));
  row("kiln::JitFunction::launch, batches of 1000 (queue-pressure check)", viaJit(onDefault), 1000,
      std::max(5, batches / 20));
  if (failures) {
    std::fprintf(stderr, "kiln-bench-launch: %d launches failed\n", failures);
    return 1;
  }
  std::printf("launch overhead from C++ (tiny kernel, 4 arguments, %s, median of %d batches of %d; CPU side only)\n\n",
              compiled->arch.c_str(), batches, perBatch);
  std::printf("| path | wall us per launch | thread CPU us per launch |\n|---|---|---|\n");
  for (const Row& r : rows) std::printf("| %s | %.2f | %.2f |\n", r.name.c_str(), r.t.wallUs, r.t.cpuUs);
  const double kilnUs = rows[0].t.wallUs, floorUs = rows[floorRow].t.wallUs;
  std::printf("\nkiln's own share over cuLaunchKernel: %.2f us\n", kilnUs - floorUs);
  std::printf("target: <= 2 us per launch from C++: %s (%.2f us)\n", kilnUs <= 2.0 ? "met" : "NOT met", kilnUs);
  return 0;
}
