// Hostile input to the whole pipeline: thousands of deterministic random mutations of every kernel
// in examples/ and tests/corpus/ go through kiln::compile with the kernel's signature. Each must
// come back as a Result (compiled, or a located user error); an internal error, an exception
// escaping the API or a crash is a bug. A crash kills the binary: the input being compiled is
// then in <TempDir>/kiln_robustness_last_input.py.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace {

struct KernelCase {
  const char* file;  // relative to the source tree
  const char* kernel;
  const char* signature;
};

// Every kernel of examples/ and tests/corpus/, with a signature it compiles for.
const KernelCase kKernels[] = {
    {"examples/vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 1024"},
    {"examples/control_flow.py", "collatz_steps_kernel", "*i32, *i32, i32"},
    {"examples/control_flow.py", "searchsorted_kernel", "*fp32, i32, *fp32, *i32"},
    {"examples/control_flow.py", "polyval_kernel", "*fp32, *fp32, *fp32, i32, 5, 64"},
    {"examples/flash_attention.py", "attn_fwd",
     "*fp16, *fp16, *fp16, fp32, *fp32, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, "
     "i32, i32, i32, i32, i32, i32, 64, 64, 32, True"},
    {"examples/grid2d.py", "add2d_kernel", "*fp32, *fp32, *fp32, i32, i32, i32, i32, i32, 16, 32"},
    {"examples/grid2d.py", "transpose_kernel", "*fp32, *fp32, i32, i32, i32, i32, i32, i32, 32, 16"},
    {"examples/integer_ops.py", "hash_kernel", "*u32, *u32, *u32, i32, 3, 256"},
    {"examples/integer_ops.py", "int_arith_kernel", "*i32, *i32, *i32, *i32, *i32, *i32, i32, 512"},
    {"examples/layernorm.py", "layer_norm_fwd_kernel",
     "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 128"},
    {"examples/matmul.py", "matmul_kernel",
     "*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 64, 64, 32, 8, \"leaky_relu\""},
    {"examples/matmul_lowp.py", "matmul_lowp_kernel",
     "*fp8e4nv, *fp8e4nv, *fp32, i32, i32, i32, i32, 1, 1, i32, i32, 1, 64, 64, 64, False"},
    {"examples/reductions.py", "argmax_kernel", "*fp32, *i32, *fp32, i32, i32, 128"},
    {"examples/reductions.py", "row_stats_kernel", "*fp32, *fp32, *fp32, i32, i32, 256"},
    {"examples/reductions.py", "segment_sum_kernel", "*fp32, *i32, *fp32, 64"},
    {"examples/softmax.py", "softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, 1024, 3"},
    {"tests/corpus/gelu.py", "gelu_kernel", "*fp32, *fp32, i32, 1024"},
    {"tests/corpus/gelu.py", "gelu_tanh_kernel", "*fp16, *fp16, i32, 512"},
    {"tests/corpus/swiglu.py", "_swiglu_fwd_kernel", "*bf16, *bf16, *bf16, i32, i32, i32, i32, 1024"},
    {"tests/corpus/swiglu.py", "_silu_kernel", "*fp32, *fp32, i32, 256"},
    {"tests/corpus/rmsnorm.py", "rms_norm_fwd_kernel",
     "*fp16, *fp16, *fp16, *fp32, i32, i32, i32, fp32, 1024, True"},
    {"tests/corpus/rotary.py", "rotary_kernel",
     "*fp16, *fp16, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 4, 64, False"},
    {"tests/corpus/cross_entropy.py", "cross_entropy_fwd_kernel",
     "*fp32, *fp32, *bf16, *i64, fp32, i32, i32, i32, 4096, False"},
    {"tests/corpus/add_layernorm.py", "_layer_norm_fwd_fused",
     "*fp16, *fp16, *fp16, *fp16, *fp16, *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, fp32, 1024, True, "
     "True, True"},
    {"tests/corpus/matmul_persistent.py", "matmul_kernel_persistent",
     "*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 64, 64, 32, 8, 132"},
    {"tests/corpus/l2norm.py", "l2norm_fwd_kernel", "*fp32, *fp32, i32, i32, i32, i32, fp32, 4, 1024"},
    {"tests/corpus/l2norm.py", "absmax_scale_kernel", "*fp16, *i8, *fp32, i32, i32, i32, i32, 8, 256"},
};

// x 26 kernels: about 4000 compiles, a few seconds in all. KILN_ROBUSTNESS_MUTANTS=N runs N per
// kernel (a longer hunt, e.g. under sanitizers); KILN_ROBUSTNESS_SEED=S varies the sequence;
// KILN_ROBUSTNESS_ARCH=sm_90a also takes every mutant that compiles through layouts and PTX.
constexpr int kMutantsPerKernel = 160;
constexpr double kSlowCompileSeconds = 10.0;  // far above the few milliseconds one compile takes

// SplitMix64: the same sequence on every platform (std:: distributions are not portable).
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n == 0 ? 0 : size_t(next() % n); }
};

bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Deletes the token-sized span at a random position: an identifier or number, a run of blanks,
// or one or two punctuation characters.
void deleteToken(std::string& s, Rng& rng) {
  size_t at = rng.below(s.size());
  size_t end = at + 1;
  if (isWordChar(s[at])) {
    while (at > 0 && isWordChar(s[at - 1])) --at;
    while (end < s.size() && isWordChar(s[end])) ++end;
  } else if (s[at] == ' ') {
    while (end < s.size() && s[end] == ' ') ++end;
  } else if (end < s.size() && !isWordChar(s[end]) && rng.below(2)) {
    ++end;
  }
  s.erase(at, end - at);
}

void duplicateLine(std::string& s, Rng& rng) {
  size_t at = rng.below(s.size());
  size_t begin = s.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  size_t end = s.find('\n', at);
  end = end == std::string::npos ? s.size() : end + 1;
  std::string line = s.substr(begin, end - begin);
  if (line.empty() || line.back() != '\n') line += '\n';
  s.insert(begin, line);
}

// The [begin, end) of the identifier or number at a random position, if there is one there.
bool wordAt(const std::string& s, Rng& rng, size_t& begin, size_t& end) {
  begin = rng.below(s.size());
  if (!isWordChar(s[begin])) return false;
  end = begin + 1;
  while (begin > 0 && isWordChar(s[begin - 1])) --begin;
  while (end < s.size() && isWordChar(s[end])) ++end;
  return true;
}

// Replaces a word by another word of the file (a name by another name: type and shape errors
// deep in sema), or a number by an awkward one.
void replaceWord(std::string& s, Rng& rng) {
  static const char* const kNumbers[] = {"0",
                                         "1",
                                         "3",
                                         "17",
                                         "100",
                                         "1024",
                                         "65536",
                                         "2147483648",
                                         "9223372036854775807",
                                         "99999999999999999999",
                                         "1e309",
                                         "0.5",
                                         "None"};
  size_t begin, end, b2, e2;
  if (!wordAt(s, rng, begin, end)) return;
  std::string with;
  if (s[begin] >= '0' && s[begin] <= '9') {
    with = kNumbers[rng.below(std::size(kNumbers))];
  } else {
    for (int tries = 0; tries < 8 && with.empty(); ++tries)
      if (wordAt(s, rng, b2, e2)) with = s.substr(b2, e2 - b2);
  }
  if (!with.empty()) s.replace(begin, end - begin, with);
}

// Applies one to three random mutations; returns a description of them.
std::string mutate(std::string& s, Rng& rng) {
  static constexpr char kInsertable[] = "()[]:,.=+-*/'\"\n\t#@";
  std::string what;
  int edits = 1 + int(rng.below(3));
  for (int e = 0; e < edits && !s.empty(); ++e) {
    switch (rng.below(6)) {
      case 0:
        deleteToken(s, rng);
        what += "delete-token ";
        break;
      case 1:
        duplicateLine(s, rng);
        what += "duplicate-line ";
        break;
      case 2: {
        size_t a = rng.below(s.size()), b = rng.below(s.size());
        std::swap(s[a], s[b]);
        what += "swap ";
        break;
      }
      case 3:
        s.insert(rng.below(s.size() + 1), 1, kInsertable[rng.below(sizeof(kInsertable) - 1)]);
        what += "insert ";
        break;
      case 4:
        if (rng.below(4) == 0) {  // truncation ends the file: keep it rarer than the others
          s.resize(rng.below(s.size() + 1));
          what += "truncate ";
          break;
        }
        [[fallthrough]];
      case 5:
        replaceWord(s, rng);
        what += "replace-word ";
        break;
    }
  }
  return what;
}

std::string readSource(const std::string& rel) {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int envInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

class Robustness : public ::testing::TestWithParam<KernelCase> {};

TEST_P(Robustness, MutatedSourceNeverCrashes) {
  const KernelCase& c = GetParam();
  const std::string original = readSource(c.file);
  ASSERT_FALSE(original.empty()) << "cannot read " << c.file;
  // The unmutated kernel compiles: the table is right and the mutations start from valid code.
  kiln::CompileOptions options;
  if (const char* arch = std::getenv("KILN_ROBUSTNESS_ARCH")) options.arch = arch;
  kiln::Result<kiln::Kernel> base =
      kiln::compile(kiln::Source::fromString(original, c.file), c.kernel, c.signature, options);
  ASSERT_TRUE(base.ok()) << base.error().text;

  const std::string lastInput = ::testing::TempDir() + "kiln_robustness_last_input.py";
  const int mutants = envInt("KILN_ROBUSTNESS_MUTANTS", kMutantsPerKernel);
  uint64_t seed = uint64_t(envInt("KILN_ROBUSTNESS_SEED", 0));
  for (const char* p = c.kernel; *p; ++p) seed = seed * 131 + uint8_t(*p);  // per kernel, fixed
  Rng rng{seed};
  int compiled = 0, userErrors = 0;
  for (int i = 0; i < mutants; ++i) {
    std::string src = original;
    const std::string what = mutate(src, rng);
    {
      std::ofstream out(lastInput, std::ios::binary | std::ios::trunc);
      out << src;
    }
    auto start = std::chrono::steady_clock::now();
    kiln::Result<kiln::Kernel> r =
        kiln::compile(kiln::Source::fromString(src, c.file), c.kernel, c.signature, options);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, kSlowCompileSeconds)
        << "mutant " << i << " (" << what << ") took " << seconds << " s:\n"
        << src;
    if (r.ok()) {
      ++compiled;
      continue;
    }
    const kiln::Error& e = r.error();
    if (e.internal) {
      ADD_FAILURE() << "internal error on mutant " << i << " (" << what << ") of " << c.file << ":\n"
                    << e.text << "\n----- mutated source -----\n"
                    << src;
      continue;
    }
    ++userErrors;
    EXPECT_FALSE(e.message.empty()) << "mutant " << i << ": empty error message\n" << src;
    // A user error carries file:line:col and shows the line with a caret (the one file-level
    // error, an unknown kernel name, has no line).
    if (e.message.rfind("no @jit function named", 0) == 0) continue;
    EXPECT_GT(e.line, 0) << "mutant " << i << " (" << what << "): error without a location: " << e.text
                         << "\n"
                         << src;
    EXPECT_EQ(e.file, c.file) << e.text;
    const std::string prefix =
        std::string(c.file) + ":" + std::to_string(e.line) + ":" + std::to_string(e.col) + ": error: ";
    EXPECT_EQ(e.text.rfind(prefix, 0), 0u) << e.text;
    EXPECT_NE(e.text.find("^\n"), std::string::npos)
        << "mutant " << i << " (" << what << "): no caret line:\n"
        << e.text << "\n"
        << src;
  }
  // Most mutations break the kernel; a few (in comments, host code, whitespace) do not.
  EXPECT_GT(userErrors, mutants / 4) << compiled << " mutants compiled";
  std::remove(lastInput.c_str());
}

std::string caseName(const ::testing::TestParamInfo<KernelCase>& info) {
  std::string name = info.param.kernel;
  for (char& ch : name)
    if (!isWordChar(ch)) ch = '_';
  return std::to_string(info.index) + "_" + name;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, Robustness, ::testing::ValuesIn(kKernels), caseName);

}  // namespace
