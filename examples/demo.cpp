// The kiln demo: compiles the example kernels and runs each on the GPU when there is one (else on the
// CPU interpreter), checking the result against a plain double-precision reference and printing the
// compile and run times.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::mt19937 rng(20261130);
std::vector<float> randomFloats(size_t n, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// fp16 <-> float for the fp16 examples (round to nearest even; the inputs here are normal numbers).
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
  std::vector<uint16_t> v;
  for (float f : randomFloats(n, lo, hi)) v.push_back(toHalf(f));
  return v;
}

// Largest |got - ref| relative to max(1, |ref|); NaN counts as infinitely wrong.
struct Check {
  double worst = 0;
  void add(double got, double ref) {
    double e = std::isnan(got) ? INFINITY : std::fabs(got - ref) / std::max(1.0, std::fabs(ref));
    worst = std::max(worst, e);
  }
};

struct Outcome {
  std::string shape{};
  double error = 0, tolerance = 0, runMs = 0;
  std::string failure{};  // a kiln error, if the run failed
};

// The GPU the demo runs on, when there is one.
std::optional<kiln::Gpu> gpu;

// Runs the kernel on the GPU (or the interpreter) and times it, first use (compile + load) included.
bool launch(const kiln::Kernel& k, kiln::Grid grid, const std::vector<kiln::Arg>& args, Outcome& out) {
  auto t = Clock::now();
  kiln::Status s = gpu ? gpu->run(k, grid, args) : kiln::interpret(k, grid, args);
  out.runMs = msSince(t);
  if (!s) out.failure = s.error->text;
  return s.ok();
}

Outcome vectorAdd(const kiln::Kernel& k) {
  const int64_t n = 100003;
  auto x = randomFloats(n), y = randomFloats(n);
  std::vector<float> out(n, NAN);
  Outcome o{.shape = "n = 100003", .tolerance = 1e-6};
  if (!launch(k, {uint32_t((n + 1023) / 1024)},
              {kiln::Arg::buffer(x), kiln::Arg::buffer(y), kiln::Arg::buffer(out), kiln::Arg::integer(n)}, o))
    return o;
  Check c;
  for (int64_t i = 0; i < n; ++i) c.add(out[i], double(x[i]) + double(y[i]));
  o.error = c.worst;
  return o;
}

Outcome softmax(const kiln::Kernel& k) {
  const int64_t rows = 300, cols = 781;
  auto x = randomFloats(rows * cols, -5, 5);
  std::vector<float> y(rows * cols, NAN);
  Outcome o{.shape = "300 x 781", .tolerance = 1e-5};
  if (!launch(k, {64},
              {kiln::Arg::buffer(y), kiln::Arg::buffer(x), kiln::Arg::integer(cols), kiln::Arg::integer(cols),
               kiln::Arg::integer(rows), kiln::Arg::integer(cols)}, o))
    return o;
  Check c;
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < cols; ++j) mx = std::max(mx, double(x[r * cols + j]));
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(x[r * cols + j] - mx);
    for (int64_t j = 0; j < cols; ++j) c.add(y[r * cols + j], std::exp(x[r * cols + j] - mx) / sum);
  }
  o.error = c.worst;
  return o;
}

Outcome layerNorm(const kiln::Kernel& k) {
  const int64_t rows = 64, cols = 1000;
  auto x = randomHalves(rows * cols, -3, 3), w = randomHalves(cols), b = randomHalves(cols);
  std::vector<uint16_t> y(rows * cols, 0x7e00);
  std::vector<float> mean(rows), rstd(rows);
  Outcome o{.shape = "64 x 1000 fp16", .tolerance = 1e-2};
  if (!launch(k, {uint32_t(rows)},
              {kiln::Arg::buffer(x), kiln::Arg::buffer(y), kiln::Arg::buffer(w), kiln::Arg::buffer(b),
               kiln::Arg::buffer(mean), kiln::Arg::buffer(rstd), kiln::Arg::integer(cols), kiln::Arg::integer(cols),
               kiln::Arg::real(1e-5)}, o))
    return o;
  Check c;
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (int64_t j = 0; j < cols; ++j) m += fromHalf(x[r * cols + j]);
    m /= cols;
    for (int64_t j = 0; j < cols; ++j) v += std::pow(fromHalf(x[r * cols + j]) - m, 2);
    double rs = 1 / std::sqrt(v / cols + 1e-5);
    for (int64_t j = 0; j < cols; ++j)
      c.add(fromHalf(y[r * cols + j]), (fromHalf(x[r * cols + j]) - m) * rs * fromHalf(w[j]) + fromHalf(b[j]));
  }
  o.error = c.worst;
  return o;
}

Outcome matmul(const kiln::Kernel& k) {
  const int64_t M = 130, N = 100, K = 77;
  auto a = randomHalves(M * K), b = randomHalves(K * N);
  std::vector<uint16_t> out(M * N, 0x7e00);
  Outcome o{.shape = "130 x 100 x 77 fp16, leaky_relu", .tolerance = 1e-2};
  uint32_t blocks = uint32_t(((M + 31) / 32) * ((N + 31) / 32));
  if (!launch(k, {blocks},
              {kiln::Arg::buffer(a), kiln::Arg::buffer(b), kiln::Arg::buffer(out), kiln::Arg::integer(M),
               kiln::Arg::integer(N), kiln::Arg::integer(K), kiln::Arg::integer(K), kiln::Arg::integer(1),
               kiln::Arg::integer(N), kiln::Arg::integer(1), kiln::Arg::integer(N), kiln::Arg::integer(1)}, o))
    return o;
  Check c;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < K; ++p) acc += double(fromHalf(a[i * K + p])) * fromHalf(b[p * N + j]);
      c.add(fromHalf(out[i * N + j]), acc >= 0 ? acc : 0.01 * acc);
    }
  o.error = c.worst;
  return o;
}

Outcome attention(const kiln::Kernel& k) {
  const int64_t Z = 1, H = 2, N = 100, D = 32;
  const int64_t total = Z * H * N * D;
  auto q = randomHalves(total, -2, 2), kk = randomHalves(total, -2, 2), v = randomHalves(total);
  std::vector<uint16_t> out(total, 0x7e00);
  std::vector<float> m(Z * H * N);
  const double scale = 1 / std::sqrt(double(D));
  Outcome o{.shape = "Z1 H2 N100 D32, causal", .tolerance = 1e-2};
  std::vector<kiln::Arg> args = {kiln::Arg::buffer(q), kiln::Arg::buffer(kk), kiln::Arg::buffer(v),
                                 kiln::Arg::real(scale), kiln::Arg::buffer(m), kiln::Arg::buffer(out)};
  for (int t = 0; t < 4; ++t)
    for (int64_t s : {H * N * D, N * D, D, int64_t(1)}) args.push_back(kiln::Arg::integer(s));
  args.push_back(kiln::Arg::integer(H));
  args.push_back(kiln::Arg::integer(N));
  if (!launch(k, {uint32_t((N + 31) / 32), uint32_t(Z * H)}, args, o)) return o;
  Check c;
  std::vector<double> s(N);
  for (int64_t zh = 0; zh < Z * H; ++zh)
    for (int64_t i = 0; i < N; ++i) {
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j <= i; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < D; ++d) dot += double(fromHalf(q[(zh * N + i) * D + d])) * fromHalf(kk[(zh * N + j) * D + d]);
        s[j] = dot * float(scale);
        mx = std::max(mx, s[j]);
      }
      for (int64_t j = 0; j <= i; ++j) sum += std::exp(s[j] - mx);
      for (int64_t d = 0; d < D; ++d) {
        double acc = 0;
        for (int64_t j = 0; j <= i; ++j) acc += std::exp(s[j] - mx) / sum * fromHalf(v[(zh * N + j) * D + d]);
        c.add(fromHalf(out[(zh * N + i) * D + d]), acc);
      }
    }
  o.error = c.worst;
  return o;
}

struct DemoKernel {
  const char* file;
  const char* kernel;
  const char* signature;
  Outcome (*run)(const kiln::Kernel&);
};

const DemoKernel kDemo[] = {
    {"vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", vectorAdd},
    {"softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 4", softmax},
    {"layernorm.py", "layer_norm_fwd_kernel", "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 256",
     layerNorm},
    {"matmul.py", "matmul_kernel",
     "*fp16, *fp16, *fp16, i32, i32, i32, i32, 1, i32, 1, i32, 1, 32, 32, 32, 4, \"leaky_relu\"", matmul},
    {"flash_attention.py", "attn_fwd",
     "*fp16, *fp16, *fp16, fp32, *fp32, *fp16, i32, i32, i32, 1, i32, i32, i32, 1, i32, i32, i32, 1, i32, i32, "
     "i32, 1, i32, i32, 32, 32, 16, True",
     attention},
};

}  // namespace

int main() {
  kiln::Result<kiln::Gpu> device = kiln::Gpu::open();
  if (device.ok()) {
    gpu = device.value();
    std::printf("kiln demo: example kernels compiled by kiln and run on %s (%s, %d SMs)\n\n", gpu->name().c_str(),
                gpu->arch().c_str(), gpu->smCount());
  } else {
    std::printf("kiln demo: no GPU (%s); running the example kernels on the CPU interpreter\n\n",
                device.error().message.c_str());
  }
  std::printf("%-24s %-34s %10s %10s  %s\n", "kernel", "problem", "compile", "run", "check against float64 reference");
  int failures = 0;
  for (const DemoKernel& d : kDemo) {
    const char* dir = std::getenv("KILN_EXAMPLES_DIR");  // set when the binary runs away from its build
    std::string path = std::string(dir && *dir ? dir : KILN_EXAMPLES_DIR) + "/" + d.file;
    kiln::Result<kiln::Source> src = kiln::Source::fromFile(path);
    if (!src) {
      std::printf("%-24s %s\n", d.kernel, src.error().message.c_str());
      ++failures;
      continue;
    }
    auto t = Clock::now();
    kiln::Result<kiln::Kernel> k = kiln::compile(src.value(), d.kernel, d.signature);
    double compileMs = msSince(t);
    if (!k) {
      std::printf("%-24s compile error:\n%s\n", d.kernel, k.error().text.c_str());
      ++failures;
      continue;
    }
    Outcome o = d.run(k.value());
    if (!o.failure.empty()) {
      std::printf("%-24s %-34s %8.1f ms  run error:\n%s\n", d.kernel, o.shape.c_str(), compileMs, o.failure.c_str());
      ++failures;
      continue;
    }
    bool ok = o.error <= o.tolerance;
    failures += !ok;
    std::printf("%-24s %-34s %7.1f ms %7.0f ms  %s: max rel. error %.2e (tolerance %.0e)\n", d.kernel, o.shape.c_str(),
                compileMs, o.runMs, ok ? "ok" : "MISMATCH", o.error, o.tolerance);
  }
  std::printf("\n%s\n", failures ? "some kernels failed" : "all kernels match their references");
  return failures ? 1 : 0;
}
