// Helpers for the end-to-end kernel tests: seeded random inputs (seed from the clock or
// $KILN_TEST_SEED, shown on failure), output poisoning, fp16/bf16 conversions written here
// independently of kiln, tolerance comparison in double precision, and compile/launch wrappers.
// Only the public API (kiln/kiln.h) is used, so the tests judge kiln from the outside.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/kiln.h"

namespace kt {

// ---- fp16 / bf16 (round to nearest, ties to even; NaN stays NaN)

inline uint32_t bitsOf(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float floatOf(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline uint16_t floatToHalf(float f) {
  const uint32_t x = bitsOf(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00;   // NaN
  if (a >= 0x477ff000u) return sign | 0x7c00;  // >= 65520 rounds to infinity
  if (a < 0x38800000u) {                       // below 2^-14: subnormal half or zero
    // A half subnormal is an integer count of 2^-24; scaling by 2^24 is exact in float.
    const float scaled = std::fabs(f) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));  // default mode: ties to even
  }
  uint32_t h = (((a >> 23) - 127 + 15) << 10) | ((a & 0x7fffffu) >> 13);
  const uint32_t rest = a & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) ++h;  // a carry into the exponent is right
  return sign | static_cast<uint16_t>(h);
}

inline float halfToFloat(uint16_t h) {
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  if (e == 0) return sign * std::ldexp(static_cast<float>(m), -24);
  if (e == 31) return m ? std::numeric_limits<float>::quiet_NaN() : sign * INFINITY;
  return floatOf((static_cast<uint32_t>(h & 0x8000) << 16) | (static_cast<uint32_t>(e - 15 + 127) << 23) |
                 (static_cast<uint32_t>(m) << 13));
}

inline uint16_t floatToBf16(float f) {
  const uint32_t x = bitsOf(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}
inline float bf16ToFloat(uint16_t b) { return floatOf(static_cast<uint32_t>(b) << 16); }

// fp16 rounding of a reference value (double -> float -> half: the double rounding is far
// below every fp16 tolerance used here).
inline double roundToHalf(double v) { return halfToFloat(floatToHalf(static_cast<float>(v))); }

inline std::vector<double> halvesToDouble(const std::vector<uint16_t>& h) {
  std::vector<double> out(h.size());
  for (size_t i = 0; i < h.size(); ++i) out[i] = halfToFloat(h[i]);
  return out;
}

// ---- seeded randomness

// One seed per process: $KILN_TEST_SEED if set, else the clock. Each test mixes in its own
// name, so a test reruns identically with the printed seed whatever else runs.
inline uint64_t processSeed() {
  static const uint64_t seed = []() -> uint64_t {
    if (const char* env = std::getenv("KILN_TEST_SEED"); env && *env) return std::strtoull(env, nullptr, 0);
    return static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  }();
  return seed;
}

inline std::string seedNote() {
  std::ostringstream os;
  os << "random inputs from KILN_TEST_SEED=" << processSeed() << " (set it to reproduce)";
  return os.str();
}

class Rng {
 public:
  // Seeded from the process seed, the current test's name and how many Rngs that test has made
  // before (so helpers called in a loop draw different inputs, reproducibly).
  Rng() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
    if (info && info->value_param()) name += info->value_param();
    static std::string lastTest;  // test-only bookkeeping; gtest runs tests one at a time
    static uint64_t made = 0;
    if (name != lastTest) lastTest = name, made = 0;
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    gen_.seed(processSeed() ^ h ^ (0x9e3779b97f4a7c15ull * made++));
  }

  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen_); }
  int64_t integer(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen_); }

  std::vector<float> f32(size_t n, double lo = -1, double hi = 1) {
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(uniform(lo, hi));
    return v;
  }
  std::vector<uint16_t> f16(size_t n, double lo = -1, double hi = 1) {
    std::vector<uint16_t> v(n);
    for (auto& x : v) x = floatToHalf(static_cast<float>(uniform(lo, hi)));
    return v;
  }
  template <class T>
  std::vector<T> ints(size_t n, int64_t lo, int64_t hi) {
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(integer(lo, hi));
    return v;
  }

 private:
  std::mt19937_64 gen_;
};

// Every test that draws random inputs opens with this: the seed is printed with any failure.
#define KT_RNG(rng)                    \
  SCOPED_TRACE(::kt::seedNote());      \
  ::kt::Rng rng

// ---- poisoning: outputs start as 0xFF bytes (NaN for every float type), so an element the
// kernel fails to write cannot pass.
template <class T>
void poison(std::vector<T>& v) {
  std::memset(static_cast<void*>(v.data()), 0xff, v.size() * sizeof(T));
}

// ---- comparison

struct Tol {
  double rtol = 0, atol = 0;
};
inline constexpr Tol kF32{1e-5, 1e-6};
inline constexpr Tol kF16{1e-2, 1e-3};

// got[i] passes when |got - ref| <= atol + rtol * max(|ref|, scale[i]); NaN never passes.
// `scale` (optional) supplies the magnitude a sum is judged against (e.g. sum |terms|).
inline ::testing::AssertionResult allClose(const std::vector<double>& got, const std::vector<double>& ref,
                                           Tol tol, const std::vector<double>& scale = {}) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != reference size " << ref.size();
  size_t bad = 0;
  std::ostringstream os;
  for (size_t i = 0; i < got.size(); ++i) {
    const double mag = std::max(std::fabs(ref[i]), scale.empty() ? 0.0 : scale[i]);
    const double err = std::fabs(got[i] - ref[i]);
    if (!(err <= tol.atol + tol.rtol * mag)) {  // written so NaN fails
      if (bad < 10) os << "\n  [" << i << "] got " << got[i] << ", want " << ref[i] << " (error " << err << ")";
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements differ (rtol " << tol.rtol
                                       << ", atol " << tol.atol << "):" << os.str();
}

template <class T>
std::vector<double> toDouble(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

template <class T>
::testing::AssertionResult allEqual(const std::vector<T>& got, const std::vector<T>& ref) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != reference size " << ref.size();
  size_t bad = 0;
  std::ostringstream os;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != ref[i]) {
      if (bad < 10) os << "\n  [" << i << "] got " << +got[i] << ", want " << +ref[i];
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements differ:" << os.str();
}

inline double maxAbs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// ---- compiling and running

// The source tree: $KILN_SOURCE_DIR when set (test binaries run on another machine), else the build's.
inline std::string sourceDir() {
  const char* env = std::getenv("KILN_SOURCE_DIR");
  return env && *env ? env : KILN_SOURCE_DIR;
}
inline std::string examplePath(const std::string& file) { return sourceDir() + "/examples/" + file; }

// Compiles `kernel` from examples/`file`; on failure records the error and returns nullopt.
inline std::optional<kiln::Kernel> compileExample(const std::string& file, std::string_view kernel,
                                                  std::string_view signature, const kiln::CompileOptions& opt = {}) {
  auto src = kiln::Source::fromFile(examplePath(file));
  if (!src) {
    ADD_FAILURE() << "cannot read examples/" << file << ": " << src.error().text;
    return std::nullopt;
  }
  auto k = kiln::compile(src.value(), kernel, signature, opt);
  if (!k) {
    ADD_FAILURE() << "compiling " << kernel << " from examples/" << file << " for \"" << signature << "\":\n"
                  << k.error().text;
    return std::nullopt;
  }
  return k.value();
}

// The GPU the kernel tests also run on: the first CUDA device, unless $KILN_TEST_GPU is "0". Null
// where there is none (the tests then run on the interpreter alone).
inline kiln::Gpu* testGpu() {
  static std::optional<kiln::Gpu> gpu = []() -> std::optional<kiln::Gpu> {
    if (const char* env = std::getenv("KILN_TEST_GPU"); env && std::string(env) == "0") return std::nullopt;
    auto g = kiln::Gpu::open();
    if (!g) return std::nullopt;
    return g.value();
  }();
  return gpu ? &*gpu : nullptr;
}

// One element of a buffer of IR element type `elem` ("f32", "f16", "i32", ...) as a double.
inline double elementAt(const std::string& elem, const unsigned char* p, size_t i) {
  auto load = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, p + i * sizeof v, sizeof v);
    return v;
  };
  if (elem == "f32") return load(float{});
  if (elem == "f64") return load(double{});
  if (elem == "f16") return halfToFloat(load(uint16_t{}));
  if (elem == "bf16") return bf16ToFloat(load(uint16_t{}));
  if (elem == "i8") return load(int8_t{});
  if (elem == "u8" || elem == "i1") return load(uint8_t{});
  if (elem == "i16") return load(int16_t{});
  if (elem == "u16") return load(uint16_t{});
  if (elem == "i32") return load(int32_t{});
  if (elem == "u32") return load(uint32_t{});
  if (elem == "i64") return double(load(int64_t{}));
  return double(load(uint64_t{}));
}
inline size_t elementBytes(const std::string& elem) {
  if (elem == "f64" || elem == "i64" || elem == "u64") return 8;
  if (elem == "f32" || elem == "i32" || elem == "u32") return 4;
  if (elem == "f16" || elem == "bf16" || elem == "i16" || elem == "u16") return 2;
  return 1;
}

// Compares a buffer the GPU wrote with the one the interpreter wrote: integers exactly, floats within
// the tolerance of the type (the GPU's math functions, summation order and tensor-core accumulation
// differ from the interpreter's within a few ulp of the result's scale). NaN must meet NaN.
inline ::testing::AssertionResult sameAsInterpreter(const std::string& param, const std::string& elem,
                                                   const unsigned char* gpu, const unsigned char* interp, size_t bytes) {
  const size_t n = bytes / elementBytes(elem);
  const bool isFloat = elem[0] == 'f' || elem == "bf16";
  double scale = 0;
  for (size_t i = 0; isFloat && i < n; ++i) {
    double v = elementAt(elem, interp, i);
    if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
  }
  const double rtol = elem == "f32" || elem == "f64" ? 1e-4 : 2e-2;
  // An element that cancels to near zero keeps the rounding error of its terms, which is a few ulp of the
  // buffer's scale (an attention output is a sum of f16-rounded probabilities times values): 4 ulp.
  const double ulp = elem == "f16" ? 0x1p-10 : elem == "bf16" ? 0x1p-7 : elem == "f32" ? 0x1p-23 : 0x1p-52;
  const double atol = std::max(4 * ulp, rtol * 1e-3) * scale;
  for (size_t i = 0; i < n; ++i) {
    double g = elementAt(elem, gpu, i), r = elementAt(elem, interp, i);
    bool ok = isFloat ? (std::isnan(g) && std::isnan(r)) || g == r || std::fabs(g - r) <= rtol * std::fabs(r) + atol
                      : g == r;
    if (!ok)
      return ::testing::AssertionFailure() << "GPU and interpreter differ in '" << param << "' (" << elem << ") at element "
                                           << i << ": GPU " << g << ", interpreter " << r;
  }
  return ::testing::AssertionSuccess();
}

// Runs on the interpreter (its results land in the caller's buffers) and, when a GPU is present, also
// on the GPU from the same inputs, comparing every buffer the GPU returns with the interpreter's.
// Records the error text on failure.
inline bool run(const kiln::Kernel& k, kiln::Grid grid, const std::vector<kiln::Arg>& args) {
  std::vector<std::vector<unsigned char>> inputs(args.size());
  kiln::Gpu* gpu = testGpu();
  if (gpu)
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].kind == kiln::Arg::Kind::Buffer)
        inputs[i].assign(static_cast<unsigned char*>(args[i].data), static_cast<unsigned char*>(args[i].data) + args[i].bytes);
  kiln::Status s = kiln::interpret(k, grid, args);
  if (!s) {
    ADD_FAILURE() << "running " << k.name() << " on grid (" << grid.x << ", " << grid.y << ", " << grid.z
                  << "):\n" << s.error->text;
    return false;
  }
  if (!gpu) return true;
  std::vector<kiln::Arg> gpuArgs = args;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].kind == kiln::Arg::Kind::Buffer) gpuArgs[i].data = inputs[i].data();
  kiln::Status g = gpu->run(k, grid, gpuArgs);
  if (!g) {
    ADD_FAILURE() << "running " << k.name() << " on the GPU, grid (" << grid.x << ", " << grid.y << ", " << grid.z
                  << "):\n" << g.error->text;
    return false;
  }
  bool same = true;
  for (size_t i = 0; i < args.size() && i < k.params().size(); ++i) {
    if (args[i].kind != kiln::Arg::Kind::Buffer) continue;
    const std::string& type = k.params()[i].type;  // "ptr<f32>"
    std::string elem = type.substr(4, type.size() - 5);
    auto cmp = sameAsInterpreter(k.params()[i].name, elem, inputs[i].data(), static_cast<unsigned char*>(args[i].data),
                                 args[i].bytes);
    if (!cmp) {
      ADD_FAILURE() << k.name() << ": " << cmp.message();
      same = false;
    }
  }
  return same;
}

inline uint32_t cdiv(int64_t a, int64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

}  // namespace kt
