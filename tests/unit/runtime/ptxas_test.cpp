// The ptxas backend (no GPU needed): child processes without a shell (capture, exit status, signals,
// timeouts), private temporary directories, the search for ptxas, and compileToCubin through the real
// ptxas (registers below nvJitLink's on a kiln layernorm, errors with ptxas' log, fallbacks, cache tags)
// and through fake ptxas scripts (exact arguments, timeouts, crashes, no output).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "runtime/cubin.h"
#include "support/ptxas.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"
#include "test_ptx.h"
#include "../support/process_test_util.h"
#include "expect_error.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;
using namespace kiln::support;  // runProcess, TempDirectory, findPtxas: the runner cubin.cpp uses
using namespace std::chrono_literals;
using kiln::testing::entriesIn;
using kiln::testing::readText;
using kiln::testing::ScopedEnv;
using kiln::testing::writeScript;
using testing::vectorAddPtx;
using testing::vectorAddPtxWithSyntaxError;

bool isElf(const Bytes& image) {
  return image.size() > 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' && image[3] == 'F';
}


using testing::thrown;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }




// A fake ptxas: answers --version with `version`, otherwise runs body.
void writeFakePtxas(const std::string& path, const std::string& body, const std::string& version = "ptxas fake") {
  writeScript(path, "if [ \"$1\" = --version ]; then echo '" + version + "'; exit 0; fi\n" + body);
}

// ---- runProcess

TEST(RunProcess, CapturesStdoutStderrAndExitStatus) {
  ProcessResult r = runProcess({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, 10s);
  EXPECT_EQ(r.status, ProcessResult::Status::Exited);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_TRUE(contains(r.output, "out\n")) << r.output;
  EXPECT_TRUE(contains(r.output, "err\n")) << r.output;
  EXPECT_EQ(describe(r, 10s), "exit status 3");
}

TEST(RunProcess, ArgumentsAreNeverInterpreted) {
  ProcessResult r = runProcess({"/bin/echo", "$HOME; `false` * | x", "'\"'"}, 10s);
  EXPECT_EQ(r.status, ProcessResult::Status::Exited);
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.output, "$HOME; `false` * | x '\"'\n");
}

TEST(RunProcess, StdinIsEmpty) {
  // cat would wait forever on an inherited terminal or pipe.
  ProcessResult r = runProcess({"/bin/cat"}, 10s);
  EXPECT_EQ(r.status, ProcessResult::Status::Exited);
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.output, "");
}

TEST(RunProcess, MissingExecutable) {
  ProcessResult r = runProcess({"/nonexistent/ptxas", "--version"}, 10s);
  EXPECT_EQ(r.status, ProcessResult::Status::NotStarted);
  EXPECT_TRUE(contains(r.whyNotStarted, "/nonexistent/ptxas")) << r.whyNotStarted;
  EXPECT_TRUE(contains(r.whyNotStarted, "No such file")) << r.whyNotStarted;
  EXPECT_EQ(runProcess({}, 1s).status, ProcessResult::Status::NotStarted);
}

TEST(RunProcess, KilledBySignal) {
  ProcessResult r = runProcess({"/bin/sh", "-c", "kill -SEGV $$"}, 10s);
  EXPECT_EQ(r.status, ProcessResult::Status::Signaled);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_TRUE(contains(describe(r, 10s), "killed by signal " + std::to_string(SIGSEGV))) << describe(r, 10s);
}

TEST(RunProcess, TimeoutKillsTheChild) {
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = runProcess({"/bin/sh", "-c", "echo started; exec sleep 30"}, 300ms);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, ProcessResult::Status::TimedOut);
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);
  EXPECT_EQ(describe(r, 300ms), "did not finish within 300 ms and was killed");
  EXPECT_EQ(describe(r, 120s), "did not finish within 120 s and was killed");
}

TEST(RunProcess, LargeOutputDoesNotBlock) {
  // Far more than a pipe holds: the parent must read while the child writes.
  ProcessResult r = runProcess({"/bin/sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo tail >&2"}, 30s);
  EXPECT_EQ(r.status, ProcessResult::Status::Exited);
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.output.size(), 3000000u + 1 + 5);
  EXPECT_TRUE(contains(r.output, "xxx\ntail\n"));
}

// ---- TempDirectory

TEST(TempDirectory, PrivateUnderTmpdirAndRemovedWithItsContents) {
  TempDirectory scratch("kiln-ptxas-test-");
  ScopedEnv tmp("TMPDIR", scratch.path());
  std::string path;
  {
    TempDirectory dir("kiln-x-");
    path = dir.path();
    EXPECT_EQ(path.rfind(scratch.path() + "/kiln-x-", 0), 0u) << path;
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    std::ofstream(dir.file("a.txt")) << "a";
    fs::create_directory(dir.file("sub"));
    std::ofstream(dir.file("sub/b.txt")) << "b";
    TempDirectory other("kiln-x-");
    EXPECT_NE(other.path(), path);
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(entriesIn(scratch.path()), 0u);
}

// ---- findPtxas

class RealPtxas : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!ptxasAvailable(&why)) GTEST_SKIP() << why;
    ptxas_ = findPtxas().path;
  }
  std::string ptxas_;
};

TEST_F(RealPtxas, KilnPtxasIsUsedAndIdentified) {
  ScopedEnv env("KILN_PTXAS", ptxas_);
  PtxasLocation loc = findPtxas();
  ASSERT_TRUE(loc.found()) << loc.whyNot();
  EXPECT_EQ(loc.path, ptxas_);
  EXPECT_TRUE(contains(loc.version, "Cuda compilation tools")) << loc.version;
  EXPECT_TRUE(loc.tried.empty());
}

TEST(FindPtxas, KilnPtxasIsTheOnlyCandidateWhenSet) {
  TempDirectory scratch("kiln-ptxas-test-");
  std::ofstream(scratch.file("plain")) << "not a program";
  writeScript(scratch.file("mute"), "exit 0\n");
  writeScript(scratch.file("failing"), "echo 'ptxas: broken'; exit 2\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/nonexistent/ptxas", "KILN_PTXAS=/nonexistent/ptxas: No such file or directory"},
      {scratch.path(), "KILN_PTXAS=" + scratch.path() + ": not a regular file"},
      {scratch.file("plain"), "KILN_PTXAS=" + scratch.file("plain") + ": not executable"},
      {scratch.file("mute"), "KILN_PTXAS=" + scratch.file("mute") + ": `--version` does not name ptxas"},
      {scratch.file("failing"), "KILN_PTXAS=" + scratch.file("failing") + ": `--version` exit status 2"},
  };
  for (const auto& [value, why] : cases) {
    ScopedEnv env("KILN_PTXAS", value);
    PtxasLocation loc = findPtxas();
    EXPECT_FALSE(loc.found()) << value;
    ASSERT_EQ(loc.tried.size(), 1u) << loc.whyNot();  // no silent fallback to another ptxas
    EXPECT_EQ(loc.tried[0], why);
    EXPECT_EQ(loc.whyNot(), "ptxas not found (tried " + why + ")");
  }
}

TEST(FindPtxas, CudaHomeThenCudaPathThenTheDefaultInstall) {
  TempDirectory scratch("kiln-ptxas-test-");
  fs::create_directories(scratch.file("home/bin"));
  fs::create_directories(scratch.file("path/bin"));
  writeFakePtxas(scratch.file("home/bin/ptxas"), "exit 1\n", "ptxas from CUDA_HOME");
  writeFakePtxas(scratch.file("path/bin/ptxas"), "exit 1\n", "ptxas from CUDA_PATH");
  ScopedEnv noOverride("KILN_PTXAS", std::nullopt);
  {
    ScopedEnv home("CUDA_HOME", scratch.file("home")), path("CUDA_PATH", scratch.file("path"));
    PtxasLocation loc = findPtxas();
    EXPECT_EQ(loc.path, scratch.file("home/bin/ptxas"));
    EXPECT_EQ(loc.version, "ptxas from CUDA_HOME\n");
  }
  {
    ScopedEnv home("CUDA_HOME", "/nonexistent"), path("CUDA_PATH", scratch.file("path"));
    PtxasLocation loc = findPtxas();
    EXPECT_EQ(loc.path, scratch.file("path/bin/ptxas"));
    ASSERT_EQ(loc.tried.size(), 1u);
    EXPECT_EQ(loc.tried[0], "$CUDA_HOME/bin/ptxas = /nonexistent/bin/ptxas: No such file or directory");
  }
  // The memo follows the environment: the same values give the same answer as a fresh search.
  ScopedEnv home("CUDA_HOME", "/nonexistent/a"), path("CUDA_PATH", "/nonexistent/b");
  PtxasLocation memo = findPtxas(), fresh = locatePtxasUncached();
  EXPECT_EQ(memo.path, fresh.path);
  EXPECT_EQ(memo.tried, fresh.tried);
  ASSERT_GE(memo.tried.size(), 2u);
  EXPECT_TRUE(contains(memo.tried[1], "/nonexistent/b/bin/ptxas"));
  if (fs::exists("/usr/local/cuda/bin/ptxas")) {
    EXPECT_EQ(memo.path, "/usr/local/cuda/bin/ptxas");
  }
}

TEST(FindPtxas, PathIsSearchedLastAndOnlyInAbsoluteDirectories) {
  TempDirectory scratch("kiln-ptxas-test-");
  fs::create_directories(scratch.file("bin"));
  fs::create_directories(scratch.file("empty"));
  writeFakePtxas(scratch.file("bin/ptxas"), "exit 1\n", "ptxas on PATH");
  writeScript(scratch.file("empty/ptxas"), "exit 1\n");  // not a ptxas: rejected, the search goes on
  ScopedEnv noOverride("KILN_PTXAS", std::nullopt), home("CUDA_HOME", std::nullopt), path("CUDA_PATH", std::nullopt);
  {
    ScopedEnv search("PATH", "relative/bin::" + scratch.file("empty") + ":" + scratch.file("bin"));
    PtxasLocation loc = locatePtxasUncached("/nonexistent/default/ptxas");
    EXPECT_EQ(loc.path, scratch.file("bin/ptxas"));
    EXPECT_EQ(loc.version, "ptxas on PATH\n");
    ASSERT_EQ(loc.tried.size(), 2u);
    EXPECT_EQ(loc.tried[0], "/nonexistent/default/ptxas: No such file or directory");
    EXPECT_EQ(loc.tried[1], "PATH: " + scratch.file("empty/ptxas") + ": `--version` exit status 1");
  }
  ScopedEnv search("PATH", "relative/bin:");
  PtxasLocation none = locatePtxasUncached("/nonexistent/default/ptxas");
  EXPECT_FALSE(none.found());
  EXPECT_EQ(none.whyNot(), "ptxas not found (tried /nonexistent/default/ptxas: No such file or directory; "
                           "no ptxas on PATH)");
}

// ---- compileToCubin through ptxas

CubinOptions ptxasOptions() {
  CubinOptions options;
  options.backend = CubinOptions::Backend::Ptxas;
  return options;
}

std::string layernormPtx() {
  // kiln's layernorm (bench/kernels/layernorm.py, 8 warps, BLOCK 4096, fp16, sm_90a), frozen here.
  std::string ptx = readText(std::string(KILN_SOURCE_DIR) + "/tests/unit/runtime/data/layernorm_w8_b4096.ptx");
  EXPECT_TRUE(contains(ptx, ".entry layer_norm_fwd_kernel(")) << "test input missing";
  return ptx;
}

TEST_F(RealPtxas, VectorAddForSm80AndSm90a) {
  for (const std::string arch : {"sm_80", "sm_90a"}) {
    Cubin cubin = compileToCubin(vectorAddPtx(arch), arch, ptxasOptions());
    EXPECT_TRUE(isElf(cubin.image)) << arch;
    EXPECT_GT(cubin.image.size(), 256u);
    EXPECT_EQ(cubin.backend, "ptxas");
    EXPECT_EQ(cubin.arch, arch);
    ASSERT_EQ(cubin.resources.size(), 1u) << cubin.infoLog;
    EXPECT_EQ(cubin.resources[0].kernel, "vector_add");
    EXPECT_GT(cubin.resources[0].registers, 4) << cubin.infoLog;
    EXPECT_LT(cubin.resources[0].registers, 64) << cubin.infoLog;
    EXPECT_EQ(cubin.resources[0].spillStoreBytes, 0);
    EXPECT_EQ(cubin.resources[0].barriers, 0);
  }
  Cubin shared = compileToCubin(testing::sharedReversePtx("sm_80"), "sm_90a", ptxasOptions());
  ASSERT_EQ(shared.resources.size(), 1u);
  EXPECT_EQ(shared.resources[0].barriers, 1);
}

TEST_F(RealPtxas, AutoChoosesPtxas) {
  Cubin cubin = compileToCubin(vectorAddPtx(), "sm_90a");
  EXPECT_EQ(cubin.backend, "ptxas");
  EXPECT_EQ(cubin.image, compileToCubin(vectorAddPtx(), "sm_90a", ptxasOptions()).image);
}

TEST_F(RealPtxas, ConcurrentCompiles) {
  // Several threads at once: each child gets its own pipe and directory, and one lookup is shared.
  std::vector<Bytes> images(4);
  std::vector<std::string> errors(images.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < images.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        images[i] = compileToCubin(vectorAddPtx(), "sm_90a", ptxasOptions()).image;
      } catch (const CudaError& e) {
        errors[i] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < images.size(); ++i) {
    EXPECT_EQ(errors[i], "");
    EXPECT_TRUE(isElf(images[i]));
    EXPECT_EQ(images[i], images[0]);
  }
}

TEST_F(RealPtxas, WholeProgramAssemblyUsesFewerRegistersThanRelocatable) {
  const std::string ptx = layernormPtx();
  Cubin whole = compileToCubin(ptx, "sm_90a", ptxasOptions());
  ASSERT_EQ(whole.resources.size(), 1u) << whole.infoLog;
  const int registers = whole.resources[0].registers;
  EXPECT_GT(registers, 0);
  // `ptxas -c` is what the linkers do to PTX: the same executable, relocatable output.
  CubinOptions relocatable = ptxasOptions();
  relocatable.extraPtxasOptions = {"-c"};
  Cubin linked = compileToCubin(ptx, "sm_90a", relocatable);
  ASSERT_EQ(linked.resources.size(), 1u) << linked.infoLog;
  EXPECT_LT(registers, linked.resources[0].registers) << whole.infoLog << linked.infoLog;
  std::string why;
  if (!nvJitLinkAvailable(&why)) GTEST_SKIP() << "no nvJitLink to compare with: " << why;
  CubinOptions jit;
  jit.backend = CubinOptions::Backend::NvJitLink;
  Cubin viaJitLink = compileToCubin(ptx, "sm_90a", jit);
  ASSERT_EQ(viaJitLink.resources.size(), 1u);
  EXPECT_LT(registers, viaJitLink.resources[0].registers) << whole.infoLog << viaJitLink.infoLog;
}

TEST_F(RealPtxas, RegisterCapAndXptxasOptionsReachPtxas) {
  // ptxas ignores -maxrregcount for a kernel with a launch bound, so this one goes without.
  std::string ptx = layernormPtx();
  const std::string bound = ".maxntid 256, 1, 1\n";
  ASSERT_NE(ptx.find(bound), std::string::npos);
  ptx.erase(ptx.find(bound), bound.size());
  CubinOptions capped = ptxasOptions();
  capped.maxRegisters = 32;
  capped.lineInfo = true;
  capped.optLevel = 2;
  Cubin a = compileToCubin(ptx, "sm_90a", capped);
  ASSERT_EQ(a.resources.size(), 1u);
  EXPECT_LE(a.resources[0].registers, 32) << a.infoLog;
  EXPECT_GT(a.resources[0].spillStoreBytes, 0) << a.infoLog;  // 40 registers do not fit in 32
  // nvJitLink's "-Xptxas=" options reach ptxas; its own options (-lto) are left out.
  CubinOptions viaX = ptxasOptions();
  viaX.extraNvJitLinkOptions = {"-Xptxas=-maxrregcount=24", "-lto"};
  Cubin b = compileToCubin(ptx, "sm_90a", viaX);
  ASSERT_EQ(b.resources.size(), 1u);
  EXPECT_LE(b.resources[0].registers, 24) << b.infoLog;
}

TEST_F(RealPtxas, BadPtxGivesPtxasLog) {
  TempDirectory scratch("kiln-ptxas-test-");
  ScopedEnv tmp("TMPDIR", scratch.path());
  const std::string ptx = vectorAddPtxWithSyntaxError("sm_90a");
  CubinOptions options = ptxasOptions();
  options.kernelName = "vector_add";
  CudaError e = thrown([&] { compileToCubin(ptx, "sm_90a", options); });
  EXPECT_EQ(e.kind(), CudaError::Kind::CompileFailed);
  EXPECT_EQ(e.call(), "ptxas");
  EXPECT_EQ(e.codeName(), "exit status 255");
  EXPECT_EQ(e.code(), 255);
  EXPECT_EQ(e.kernel(), "vector_add");
  EXPECT_TRUE(contains(e.log(), "kernel.ptx, line 36")) << e.log();  // ptxas' own words
  EXPECT_TRUE(contains(e.log(), "syntax error")) << e.log();
  EXPECT_FALSE(contains(e.log(), scratch.path())) << e.log();  // the deleted directory is not named
  const std::string what = e.what();
  EXPECT_EQ(what.rfind("kernel 'vector_add': PTX -> cubin for sm_90a failed: ptxas: exit status 255\n", 0), 0u)
      << what;
  EXPECT_EQ(entriesIn(scratch.path()), 0u);
}

TEST_F(RealPtxas, ArchUnknownToPtxas) {
  CudaError e = thrown([&] { compileToCubin(vectorAddPtx(), "sm_99", ptxasOptions()); });
  EXPECT_EQ(e.kind(), CudaError::Kind::CompileFailed);
  EXPECT_TRUE(contains(e.log(), "sm_99")) << e.log();
}

TEST_F(RealPtxas, TemporaryDirectoryIsRemovedOnEveryPath) {
  TempDirectory scratch("kiln-ptxas-test-");
  ScopedEnv tmp("TMPDIR", scratch.path());
  compileToCubin(vectorAddPtx(), "sm_90a", ptxasOptions());
  EXPECT_EQ(entriesIn(scratch.path()), 0u);
  thrown([&] { compileToCubin("not ptx", "sm_90a", ptxasOptions()); });
  EXPECT_EQ(entriesIn(scratch.path()), 0u);
  thrown([&] { compileToCubin(vectorAddPtx(), "sm_99", ptxasOptions()); });
  EXPECT_EQ(entriesIn(scratch.path()), 0u);
}

TEST(PtxasBackend, MissingPtxasFallsBackUnderAutoAndFailsClearlyWhenAsked) {
  ScopedEnv env("KILN_PTXAS", "/nonexistent/ptxas");
  CudaError e = thrown([&] { compileToCubin(vectorAddPtx(), "sm_90a", ptxasOptions()); });
  EXPECT_EQ(e.kind(), CudaError::Kind::NoDriver);
  EXPECT_EQ(std::string(e.what()),
            "PTX -> cubin through ptxas: ptxas not found (tried KILN_PTXAS=/nonexistent/ptxas: No such file or "
            "directory)");
  std::string why;
  if (nvJitLinkAvailable(&why)) {
    Cubin cubin = compileToCubin(vectorAddPtx(), "sm_90a");
    EXPECT_EQ(cubin.backend, "nvJitLink");
    EXPECT_TRUE(isElf(cubin.image));
  } else {
    CudaError none = thrown([&] { compileToCubin(vectorAddPtx(), "sm_90a"); });
    EXPECT_EQ(none.kind(), CudaError::Kind::NoDriver);
    EXPECT_TRUE(contains(none.what(), "KILN_PTXAS=/nonexistent/ptxas")) << none.what();
    EXPECT_TRUE(contains(none.what(), "libnvJitLink")) << none.what();
  }
}

// ---- fake ptxas scripts: what kiln passes, and how it handles a ptxas that misbehaves

class FakePtxas : public ::testing::Test {
 protected:
  TempDirectory scratch_{"kiln-ptxas-test-"};
  TempDirectory tmp_{"kiln-ptxas-tmp-"};
  ScopedEnv tmpdir_{"TMPDIR", tmp_.path()};
  std::optional<ScopedEnv> override_;

  // Installs a fake ptxas (its own path, so the memoised lookup sees a new environment).
  void install(const std::string& name, const std::string& body, const std::string& version = "ptxas fake") {
    writeFakePtxas(scratch_.file(name), body, version);
    override_.reset();
    override_.emplace("KILN_PTXAS", scratch_.file(name));
  }
};

TEST_F(FakePtxas, ExactArguments) {
  // Records its arguments, one per line, and writes a minimal ELF to the path after -o.
  install("recorder", "for a in \"$@\"; do echo \"$a\" >> '" + scratch_.file("args") +
                          "'; done\n"
                          "for a in \"$@\"; do last=\"$a\"; done\n"
                          "printf '\\177ELF-fake' > \"$last\"\n"
                          "echo \"ptxas info    : Compiling entry function 'vector_add' for 'sm_90a'\"\n"
                          "echo 'ptxas info    : Used 7 registers, used 0 barriers'\n");
  CubinOptions options = ptxasOptions();
  options.optLevel = 2;
  options.maxRegisters = 64;
  options.lineInfo = true;
  options.extraNvJitLinkOptions = {"-Xptxas=-warn-spills", "-lto"};
  options.extraPtxasOptions = {"-warn-lmem-usage"};
  Cubin cubin = compileToCubin(vectorAddPtx(), "sm_90a", options);
  EXPECT_EQ(cubin.backend, "ptxas");
  EXPECT_EQ(std::string(cubin.image.begin(), cubin.image.end()), "\x7f" "ELF-fake");
  ASSERT_EQ(cubin.resources.size(), 1u);
  EXPECT_EQ(cubin.resources[0].registers, 7);
  std::vector<std::string> args;
  std::istringstream lines(readText(scratch_.file("args")));
  for (std::string line; std::getline(lines, line);) args.push_back(line);
  ASSERT_EQ(args.size(), 10u) << readText(scratch_.file("args"));
  const std::vector<std::string> leading = {"-arch=sm_90a", "-O2", "-v", "-maxrregcount=64", "-lineinfo",
                                            "-warn-spills", "-warn-lmem-usage"};
  EXPECT_EQ(std::vector<std::string>(args.begin(), args.begin() + 7), leading);
  EXPECT_EQ(args[7].rfind(tmp_.path() + "/kiln-ptxas-", 0), 0u) << args[7];
  EXPECT_EQ(fs::path(args[7]).filename(), "kernel.ptx");
  EXPECT_EQ(args[8], "-o");
  EXPECT_EQ(args[9], (fs::path(args[7]).parent_path() / "kernel.cubin").string());
  EXPECT_EQ(entriesIn(tmp_.path()), 0u);
}

TEST_F(FakePtxas, TimeoutKillsPtxas) {
  install("sleeper", "exec sleep 30\n");
  CubinOptions options = ptxasOptions();
  options.ptxasTimeoutSeconds = 1;
  options.kernelName = "k";
  auto start = std::chrono::steady_clock::now();
  CudaError e = thrown([&] { compileToCubin(vectorAddPtx(), "sm_90a", options); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_EQ(e.kind(), CudaError::Kind::CompileFailed);
  EXPECT_EQ(std::string(e.what()), "kernel 'k': PTX -> cubin for sm_90a failed: ptxas: did not finish within 1 s "
                                   "and was killed");
  EXPECT_EQ(entriesIn(tmp_.path()), 0u);
}

TEST_F(FakePtxas, CrashAndMissingOutput) {
  install("crasher", "echo 'about to crash'\nkill -SEGV $$\n");
  CudaError crash = thrown([&] { compileToCubin(vectorAddPtx(), "sm_90a", ptxasOptions()); });
  EXPECT_EQ(crash.kind(), CudaError::Kind::CompileFailed);
  EXPECT_TRUE(contains(crash.what(), "ptxas: killed by signal " + std::to_string(SIGSEGV))) << crash.what();
  EXPECT_EQ(crash.log(), "about to crash\n");
  install("silent", "exit 0\n");
  CudaError none = thrown([&] { compileToCubin(vectorAddPtx(), "sm_90a", ptxasOptions()); });
  EXPECT_EQ(none.kind(), CudaError::Kind::CompileFailed);
  EXPECT_TRUE(contains(none.what(), "ptxas: exit status 0 but it wrote no cubin")) << none.what();
  EXPECT_EQ(entriesIn(tmp_.path()), 0u);
}

// ---- cache tags

TEST_F(RealPtxas, CacheTagNamesTheAssembler) {
  CubinOptions jit;
  jit.backend = CubinOptions::Backend::NvJitLink;
  const std::string ptxasTag = cubinCacheTag(ptxasOptions());
  EXPECT_TRUE(contains(ptxasTag, "ptxas\n")) << ptxasTag;
  EXPECT_TRUE(contains(ptxasTag, "Cuda compilation tools")) << ptxasTag;  // its version
  EXPECT_EQ(cubinCacheTag(), ptxasTag);                                  // Auto resolves to ptxas
  EXPECT_NE(cubinCacheTag(jit), ptxasTag);
  CubinOptions capped = ptxasOptions();
  capped.maxRegisters = 32;
  EXPECT_NE(cubinCacheTag(capped), ptxasTag);
  CubinOptions named = ptxasOptions();
  named.kernelName = "only in messages";
  EXPECT_EQ(cubinCacheTag(named), ptxasTag);
  {
    ScopedEnv missing("KILN_PTXAS", "/nonexistent/ptxas");
    if (nvJitLinkAvailable()) {
      EXPECT_EQ(cubinCacheTag(), cubinCacheTag(jit));  // Auto falls back
    }
  }
  TempDirectory scratch("kiln-ptxas-test-");
  writeFakePtxas(scratch.file("v1"), "exit 1\n", "ptxas V1");
  writeFakePtxas(scratch.file("v2"), "exit 1\n", "ptxas V2");
  std::string v1, v2;
  {
    ScopedEnv env("KILN_PTXAS", scratch.file("v1"));
    v1 = cubinCacheTag();
  }
  {
    ScopedEnv env("KILN_PTXAS", scratch.file("v2"));
    v2 = cubinCacheTag();
  }
  EXPECT_NE(v1, v2);  // another ptxas version, another cubin
}

}  // namespace
}  // namespace kiln::runtime
