// kiln-bench-gpu: runs the example kernels compiled by kiln on GPU 0 with fresh random inputs, checks each
// output against a host reference on a sample, times the launches and prints a markdown table.
// `kiln-bench-gpu --ptx-only [arch]` only compiles every case to PTX (no GPU needed) to validate the configs.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "kiln/kiln.h"
#include "runtime/cubin.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/launch.h"

namespace {

using namespace kiln;
using runtime::DeviceBuffer;
using Clock = std::chrono::steady_clock;

// ---- host data

// splitmix64: fast enough to fill a GiB of inputs in well under a second.
struct Rng {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) * (1.0f / 16777216.0f); }
};
Rng rng;

std::vector<float> randomFloats(size_t n, float lo = -1, float hi = 1) {
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform(lo, hi);
  return v;
}

uint16_t toHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, a = x & 0x7fffffff;
  if (a >= 0x477ff000) return uint16_t(sign | 0x7c00);
  if (a < 0x38800000) return uint16_t(sign | uint32_t(std::nearbyint(std::fabs(f) * 16777216.0f)));
  uint32_t h = (((a >> 23) - 112) << 10) | ((a & 0x7fffff) >> 13), rest = a & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return uint16_t(sign | h);
}
float fromHalf(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float s = (h & 0x8000) ? -1.f : 1.f;
  if (e == 0) return s * std::ldexp(float(m), -24);
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * std::ldexp(float(m | 0x400), e - 25);
}
std::vector<uint16_t> randomHalves(size_t n, float lo = -1, float hi = 1) {
  std::vector<uint16_t> v(n);
  for (uint16_t& x : v) x = toHalf(rng.uniform(lo, hi));
  return v;
}

// Largest |got - ref| / max(1, |ref|); NaN is infinitely wrong.
struct Check {
  double worst = 0, tolerance;
  explicit Check(double tol) : tolerance(tol) {}
  void add(double got, double ref) {
    double e = std::isnan(got) ? INFINITY : std::fabs(got - ref) / std::max(1.0, std::fabs(ref));
    worst = std::max(worst, e);
  }
  std::string verdict() const {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s (err %.1e)", worst <= tolerance ? "ok" : "MISMATCH", worst);
    return buf;
  }
};

// ---- compile, load, launch

struct Spec {
  const char* file;
  const char* kernel;
  std::string signature;
  int numWarps;
  int numStages = 3;
};

std::string examplesDir() {
  if (const char* d = std::getenv("KILN_EXAMPLES_DIR")) return d;
  return KILN_EXAMPLES_DIR;
}

Kernel compileSpec(const Spec& s) {
  Result<Source> src = Source::fromFile(examplesDir() + "/" + s.file);
  if (!src) throw std::runtime_error(src.error().text);
  CompileOptions options;
  options.num_warps = s.numWarps;
  options.num_stages = s.numStages;
  Result<Kernel> k = compile(src.value(), s.kernel, s.signature, options);
  if (!k) throw std::runtime_error(k.error().text);
  return k.value();
}

// A scalar or buffer argument; slots are sized from the kernel's parameter types like Gpu::run does.
struct KArg {
  DeviceBuffer* buffer = nullptr;
  int64_t i = 0;
  double f = 0;
  bool isFloat = false;
};
KArg buf(DeviceBuffer& b) { return KArg{&b, 0, 0, false}; }
KArg i32(int64_t v) { return KArg{nullptr, v, 0, false}; }
KArg f32(double v) { return KArg{nullptr, 0, v, true}; }

struct Launcher {
  Kernel kernel;
  lower::EntryInfo entry;
  std::unique_ptr<runtime::LoadedKernel> loaded;
  std::string resources;  // "regs N, spill N"
  runtime::Dim3 grid;
  std::vector<std::array<unsigned char, 8>> slots;
  std::vector<void*> args;

  void bind(runtime::Dim3 g, const std::vector<KArg>& values) {
    grid = g;
    const std::vector<Param>& params = kernel.params();
    if (values.size() != params.size())
      throw std::runtime_error("kernel '" + kernel.name() + "' takes " + std::to_string(params.size()) +
                               " runtime arguments, the bench passes " + std::to_string(values.size()));
    slots.assign(values.size(), {});
    args.clear();
    for (size_t i = 0; i < values.size(); ++i) {
      const KArg& a = values[i];
      if (params[i].pointer != (a.buffer != nullptr))
        throw std::runtime_error("argument " + params[i].name + ": pointer/scalar mismatch");
      if (a.buffer) {
        args.push_back(a.buffer->argument());
        continue;
      }
      if (params[i].type == "f32") {
        float f = float(a.isFloat ? a.f : double(a.i));
        std::memcpy(slots[i].data(), &f, 4);
      } else if (params[i].type == "f64") {
        double f = a.isFloat ? a.f : double(a.i);
        std::memcpy(slots[i].data(), &f, 8);
      } else {
        std::memcpy(slots[i].data(), &a.i, 8);  // little-endian: the low bytes are the narrow value
      }
      args.push_back(slots[i].data());
    }
  }
  void run() {
    runtime::launch(*loaded, grid, unsigned(entry.numWarps * 32), size_t(entry.sharedBytes), nullptr, args);
  }
};

struct Bench {
  std::shared_ptr<runtime::CudaDriver> driver;
  std::string arch;
  int smCount = 132;

  std::unique_ptr<Launcher> load(const Spec& s) {
    auto l = std::make_unique<Launcher>(Launcher{compileSpec(s), {}, nullptr, {}, {}, {}, {}});
    std::shared_ptr<const GpuCode> code = l->kernel.impl().gpuCode(arch);
    l->entry = code->entry;
    runtime::CubinOptions options;
    options.kernelName = l->kernel.name();
    runtime::Cubin cubin = runtime::compileToCubin(code->ptx, arch, options, driver.get(), 0);
    for (const runtime::KernelResources& r : cubin.resources)
      l->resources = "regs " + std::to_string(r.registers) + ", spill " + std::to_string(r.spillStoreBytes);
    l->loaded = runtime::LoadedKernel::fromImage(driver, 0, cubin.image, code->entry.name,
                                                 int(l->kernel.params().size()));
    return l;
  }

  // 10 warm-up launches, then 15 batches of N launches (N sized for ~30 ms a batch); median ms per launch.
  double time(Launcher& l) {
    for (int i = 0; i < 10; ++i) l.run();
    driver->synchronize(0);
    auto t0 = Clock::now();
    for (int i = 0; i < 5; ++i) l.run();
    driver->synchronize(0);
    double per = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / 5;
    int n = int(std::clamp(30.0 / std::max(per, 1e-4), 1.0, 3000.0));
    std::vector<double> ms;
    for (int b = 0; b < 15; ++b) {
      auto t = Clock::now();
      for (int i = 0; i < n; ++i) l.run();
      driver->synchronize(0);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count() / n);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
};

struct Row {
  std::string name, ms = "-", rate = "-", check = "-", notes;
};

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
void setTiming(Row& r, double ms, double bytes, double flops) {
  r.ms = fmt("%.4f", ms);
  r.rate = bytes > 0 ? fmt("%.0f GB/s", bytes / (ms * 1e-3) / 1e9) : fmt("%.1f TFLOP/s", flops / (ms * 1e-3) / 1e12);
}

// Sample indices: the ends and evenly spread ones in between.
std::vector<int64_t> sample(int64_t n, int count) {
  std::vector<int64_t> v;
  for (int i = 0; i < count; ++i) v.push_back(count == 1 ? 0 : int64_t(double(i) * double(n - 1) / (count - 1)));
  return v;
}

// ---- cases

Spec vectorAddSpec() { return {"vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", 4}; }
void vectorAdd(Bench& b, Row& row) {
  const int64_t n = int64_t(1) << 28;
  auto l = b.load(vectorAddSpec());
  row.notes = l->resources;
  auto x = randomFloats(n), y = randomFloats(n);
  DeviceBuffer dx(b.driver, 0, n * 4), dy(b.driver, 0, n * 4), dout(b.driver, 0, n * 4);
  dx.upload(x);
  dy.upload(y);
  dout.fill(0xff);
  l->bind({unsigned(n / 1024)}, {buf(dx), buf(dy), buf(dout), i32(n)});
  l->run();
  b.driver->synchronize(0);
  auto out = dout.download<float>(n);
  Check c(1e-6);
  for (int64_t i = 0; i < n; ++i) c.add(out[i], double(x[i]) + double(y[i]));
  row.check = c.verdict();
  setTiming(row, b.time(*l), 3.0 * n * 4, 0);
}

int nextPow2(int64_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}
Spec softmaxSpec(int64_t cols) {
  int block = nextPow2(cols);
  return {"softmax.py", "softmax_kernel",
          "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, " + std::to_string(block) + ", 4",
          block >= 2048 ? 8 : 4};
}
void softmax(Bench& b, Row& row, int64_t rows, int64_t cols) {
  auto l = b.load(softmaxSpec(cols));
  row.notes = l->resources;
  auto x = randomFloats(rows * cols, -5, 5);
  DeviceBuffer dx(b.driver, 0, rows * cols * 4), dy(b.driver, 0, rows * cols * 4);
  dx.upload(x);
  dy.fill(0xff);
  unsigned programs = unsigned(std::min<int64_t>(rows, int64_t(b.smCount) * 4));
  l->bind({programs}, {buf(dy), buf(dx), i32(cols), i32(cols), i32(rows), i32(cols)});
  l->run();
  b.driver->synchronize(0);
  auto y = dy.download<float>(rows * cols);
  Check c(1e-5);
  for (int64_t r : sample(rows, 64)) {
    const float* xr = &x[r * cols];
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, double(xr[j]));
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(xr[j] - mx);
    for (int64_t j = 0; j < cols; ++j) c.add(y[r * cols + j], std::exp(xr[j] - mx) / sum);
  }
  row.check = c.verdict();
  setTiming(row, b.time(*l), 2.0 * rows * cols * 4, 0);
}

Spec layerNormSpec() {
  return {"layernorm.py", "layer_norm_fwd_kernel",
          "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 1024", 8};
}
void layerNorm(Bench& b, Row& row) {
  const int64_t rows = 4096, cols = 4096;
  const double eps = 1e-5;
  auto l = b.load(layerNormSpec());
  row.notes = l->resources;
  auto x = randomHalves(rows * cols, -3, 3), w = randomHalves(cols), bias = randomHalves(cols);
  DeviceBuffer dx(b.driver, 0, rows * cols * 2), dy(b.driver, 0, rows * cols * 2), dw(b.driver, 0, cols * 2),
      db(b.driver, 0, cols * 2), dmean(b.driver, 0, rows * 4), drstd(b.driver, 0, rows * 4);
  dx.upload(x);
  dw.upload(w);
  db.upload(bias);
  dy.fill(0xff);
  l->bind({unsigned(rows)}, {buf(dx), buf(dy), buf(dw), buf(db), buf(dmean), buf(drstd), i32(cols), i32(cols), f32(eps)});
  l->run();
  b.driver->synchronize(0);
  auto y = dy.download<uint16_t>(rows * cols);
  Check c(1e-2);
  for (int64_t r : sample(rows, 64)) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mean += fromHalf(x[r * cols + j]);
    mean /= cols;
    for (int64_t j = 0; j < cols; ++j) var += std::pow(fromHalf(x[r * cols + j]) - mean, 2);
    double rstd = 1 / std::sqrt(var / cols + eps);
    for (int64_t j = 0; j < cols; ++j)
      c.add(fromHalf(y[r * cols + j]), (fromHalf(x[r * cols + j]) - mean) * rstd * fromHalf(w[j]) + fromHalf(bias[j]));
  }
  row.check = c.verdict();
  setTiming(row, b.time(*l), 2.0 * rows * cols * 2 + 2.0 * cols * 2 + 2.0 * rows * 4, 0);
}

// Strides and sizes get the :16 hint only where they are multiples of 16 (as Triton would specialize).
std::string intHint(int64_t v) { return v % 16 == 0 ? "i32:16" : "i32"; }
Spec matmulSpec(int64_t n) {
  std::string h = intHint(n);
  return {"matmul.py", "matmul_kernel",
          "*fp16:16, *fp16:16, *fp16:16, " + h + ", " + h + ", " + h + ", " + h + ", 1, " + h + ", 1, " + h +
              ", 1, 128, 128, 32, 8, \"\"",
          8};
}
void matmul(Bench& b, Row& row, int64_t n) {
  const int64_t M = n, N = n, K = n;
  auto l = b.load(matmulSpec(n));
  row.notes = l->resources;
  auto a = randomHalves(M * K), bm = randomHalves(K * N);
  DeviceBuffer da(b.driver, 0, M * K * 2), dbm(b.driver, 0, K * N * 2), dc(b.driver, 0, M * N * 2);
  da.upload(a);
  dbm.upload(bm);
  dc.fill(0xff);
  unsigned grid = unsigned(((M + 127) / 128) * ((N + 127) / 128));
  l->bind({grid}, {buf(da), buf(dbm), buf(dc), i32(M), i32(N), i32(K), i32(K), i32(1), i32(N), i32(1), i32(N), i32(1)});
  l->run();
  b.driver->synchronize(0);
  auto cm = dc.download<uint16_t>(M * N);
  Check c(1e-2);
  for (int64_t i : sample(M, 24))
    for (int64_t j : sample(N, 24)) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k) ref += double(fromHalf(a[i * K + k])) * fromHalf(bm[k * N + j]);
      c.add(fromHalf(cm[i * N + j]), ref);
    }
  row.check = c.verdict();
  setTiming(row, b.time(*l), 0, 2.0 * M * N * K);
}

constexpr int kAttnBlockM = 64, kAttnBlockN = 32, kAttnWarps = 4;
Spec attentionSpec() {
  std::string s = "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, ";
  for (int t = 0; t < 4; ++t) s += "i32:16, i32:16, i32:16, 1, ";
  s += "i32:16, i32:16, 64, " + std::to_string(kAttnBlockM) + ", " + std::to_string(kAttnBlockN) + ", False";
  return {"flash_attention.py", "attn_fwd", s, kAttnWarps};
}
void attention(Bench& b, Row& row) {
  const int64_t Z = 4, H = 32, N = 4096, D = 64, total = Z * H * N * D;
  const double scale = 1.0 / std::sqrt(double(D));
  auto l = b.load(attentionSpec());
  row.notes = l->resources;
  auto q = randomHalves(total), k = randomHalves(total), v = randomHalves(total);
  DeviceBuffer dq(b.driver, 0, total * 2), dk(b.driver, 0, total * 2), dv(b.driver, 0, total * 2),
      dm(b.driver, 0, Z * H * N * 4), dout(b.driver, 0, total * 2);
  dq.upload(q);
  dk.upload(k);
  dv.upload(v);
  dout.fill(0xff);
  std::vector<KArg> args = {buf(dq), buf(dk), buf(dv), f32(scale), buf(dm), buf(dout)};
  for (int t = 0; t < 4; ++t) {
    for (int64_t s : {H * N * D, N * D, D, int64_t(1)}) args.push_back(i32(s));
  }
  args.push_back(i32(H));
  args.push_back(i32(N));
  l->bind({unsigned((N + kAttnBlockM - 1) / kAttnBlockM), unsigned(Z * H), 1}, args);
  l->run();
  b.driver->synchronize(0);
  auto out = dout.download<uint16_t>(total);
  Check c(1e-2);
  std::vector<double> p(N);
  for (int64_t zh : sample(Z * H, 4))
    for (int64_t m : sample(N, 6)) {
      const int64_t base = zh * N * D;
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t d = 0; d < D; ++d) s += double(fromHalf(q[base + m * D + d])) * fromHalf(k[base + j * D + d]);
        p[j] = s * scale;
        mx = std::max(mx, p[j]);
      }
      for (int64_t j = 0; j < N; ++j) sum += (p[j] = std::exp(p[j] - mx));
      for (int64_t d = 0; d < D; ++d) {
        double o = 0;
        for (int64_t j = 0; j < N; ++j) o += p[j] * fromHalf(v[base + j * D + d]);
        c.add(fromHalf(out[base + m * D + d]), o / sum);
      }
    }
  row.check = c.verdict();
  setTiming(row, b.time(*l), 0, 4.0 * Z * H * N * N * D);
}

struct Case {
  std::string name;
  Spec spec;
  std::function<void(Bench&, Row&)> run;
};

std::vector<Case> cases() {
  return {
      {"vector add fp32 2^28", vectorAddSpec(), vectorAdd},
      {"softmax fp32 4096x1024", softmaxSpec(1024), [](Bench& b, Row& r) { softmax(b, r, 4096, 1024); }},
      {"softmax fp32 4096x4096", softmaxSpec(4096), [](Bench& b, Row& r) { softmax(b, r, 4096, 4096); }},
      {"layernorm fp16 4096x4096", layerNormSpec(), layerNorm},
      {"matmul fp16 4096^3", matmulSpec(4096), [](Bench& b, Row& r) { matmul(b, r, 4096); }},
      {"matmul fp16 3000^3", matmulSpec(3000), [](Bench& b, Row& r) { matmul(b, r, 3000); }},
      {"attention fp16 B4 H32 N4096 D64", attentionSpec(), attention},
  };
}

std::string oneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '|', '/');
  return s.size() > 300 ? s.substr(0, 300) + "..." : s;
}

// Compiles every case to PTX for arch: checks the signatures and configurations without a GPU.
int ptxOnly(const std::string& arch) {
  int failures = 0;
  for (const Case& c : cases()) {
    try {
      Kernel k = compileSpec(c.spec);
      std::shared_ptr<const GpuCode> code = k.impl().gpuCode(arch);
      std::printf("%-34s ok: %zu params, %zu bytes of PTX, %d warps, %lld bytes dynamic shared\n",
                  c.name.c_str(), k.params().size(), code->ptx.size(), code->entry.numWarps, (long long)code->entry.sharedBytes);
    } catch (const std::exception& e) {
      ++failures;
      std::printf("%-34s FAILED: %s\n", c.name.c_str(), oneLine(e.what()).c_str());
    }
  }
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--ptx-only") return ptxOnly(argc > 2 ? argv[2] : "sm_90a");
  Bench b;
  try {
    b.driver = runtime::CudaDriver::open();
    const runtime::DeviceInfo& info = b.driver->device(0);
    b.arch = info.arch();
    b.smCount = info.smCount;
    std::printf("# kiln on %s (%s, %d SMs, driver %d)\n\n", info.name.c_str(), b.arch.c_str(), info.smCount,
                b.driver->driverVersion());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln-bench-gpu: %s\n", e.what());
    return 2;
  }
  std::vector<Row> rows;
  int failures = 0;
  for (const Case& c : cases()) {
    Row r;
    r.name = c.name;
    auto t0 = Clock::now();
    try {
      c.run(b, r);
    } catch (const std::exception& e) {
      r.check = "ERROR: " + oneLine(e.what());
    }
    if (r.check.rfind("ok", 0) != 0) ++failures;
    std::fprintf(stderr, "%s: %s ms, %s, %s (%.1f s)\n", r.name.c_str(), r.ms.c_str(), r.rate.c_str(), r.check.c_str(),
                 std::chrono::duration<double>(Clock::now() - t0).count());
    rows.push_back(r);
  }
  std::printf("| case | kiln median ms | kiln GB/s or TFLOP/s | check | ptxas |\n|---|---|---|---|---|\n");
  for (const Row& r : rows)
    std::printf("| %s | %s | %s | %s | %s |\n", r.name.c_str(), r.ms.c_str(), r.rate.c_str(), r.check.c_str(),
                r.notes.c_str());
  std::printf("\nDevice copy bandwidth: not measured here (the runtime exposes no cuMemcpyDtoD); see triton.md.\n");
  return failures ? 1 : 0;
}
