// The support layer's ptxas runner without a real ptxas: TempDirectory's failure as OsError, and
// runPtxas on fake ptxas scripts (arguments, log without the temporary path, cubin only on success,
// the directory gone on every path). The runtime's ptxas_test covers the rest through compileToCubin.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "support/ptxas.h"
#include "process_test_util.h"
#include "support/temp_dir.h"

namespace kiln::support {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using kiln::testing::entriesIn;
using kiln::testing::readText;
using kiln::testing::writeScript;





class Runner : public ::testing::Test {
 protected:
  TempDirectory scratch_{"kiln-runner-test-"};
  TempDirectory tmp_{"kiln-runner-tmp-"};
  testing::ScopedEnv tmpdir_{"TMPDIR", tmp_.path()};
};

TEST_F(Runner, TempDirectoryFailureIsAnOsError) {
  try {
    TempDirectory dir("missing/sub-");  // mkdtemp does not create parents
    FAIL() << "created " << dir.path();
  } catch (const OsError& e) {
    EXPECT_EQ(e.call(), "mkdtemp");
    EXPECT_NE(std::string(e.what()).find(tmp_.path() + "/missing/sub-XXXXXX: No such file"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(entriesIn(tmp_.path()), 0u);
}

TEST_F(Runner, PassesArgumentsThenFilesAndReadsTheCubin) {
  // Records its arguments and the input, prints the input's path, writes the output after -o.
  const std::string args = scratch_.file("args"), input = scratch_.file("input");
  writeScript(scratch_.file("ptxas"), "for a in \"$@\"; do echo \"$a\" >> '" + args +
                                          "'; last=\"$a\"; done\n"
                                          "in=$(sed -n 3p '" + args + "')\n"  // after the 2 options
                                          "cp \"$in\" '" + input + "'\n"
                                          "echo \"ptxas info: $in, line 1\"\n"
                                          "printf 'CUBIN' > \"$last\"\n");
  PtxasRun run = runPtxas(scratch_.file("ptxas"), ".version 8.0\n", {"-arch=sm_90a", "-v"}, 10s);
  ASSERT_EQ(run.process.status, ProcessResult::Status::Exited) << describe(run.process, 10s);
  EXPECT_EQ(run.process.exitCode, 0);
  EXPECT_EQ(std::string(run.cubin.begin(), run.cubin.end()), "CUBIN");
  EXPECT_EQ(readText(input), ".version 8.0\n");
  EXPECT_EQ(run.log, "ptxas info: kernel.ptx, line 1\n");  // the deleted directory is not named
  std::istringstream lines(readText(args));
  std::vector<std::string> argv;
  for (std::string line; std::getline(lines, line);) argv.push_back(line);
  ASSERT_EQ(argv.size(), 5u);
  EXPECT_EQ(argv[0], "-arch=sm_90a");
  EXPECT_EQ(argv[1], "-v");
  EXPECT_EQ(argv[2].rfind(tmp_.path() + "/kiln-ptxas-", 0), 0u) << argv[2];
  EXPECT_EQ(fs::path(argv[2]).filename(), "kernel.ptx");
  EXPECT_EQ(argv[3], "-o");
  EXPECT_EQ(argv[4], (fs::path(argv[2]).parent_path() / "kernel.cubin").string());
  EXPECT_EQ(entriesIn(tmp_.path()), 0u);
}

TEST_F(Runner, NoCubinWhenPtxasFails) {
  writeScript(scratch_.file("ptxas"), "for a in \"$@\"; do last=\"$a\"; done\nprintf 'PARTIAL' > \"$last\"\n"
                                      "echo 'ptxas fatal: bad input'\nexit 255\n");
  PtxasRun run = runPtxas(scratch_.file("ptxas"), "not ptx", {}, 10s);
  EXPECT_EQ(run.process.status, ProcessResult::Status::Exited);
  EXPECT_EQ(run.process.exitCode, 255);
  EXPECT_TRUE(run.cubin.empty());
  EXPECT_EQ(run.log, "ptxas fatal: bad input\n");
  EXPECT_EQ(run.process.output, "");  // moved into log
  EXPECT_EQ(entriesIn(tmp_.path()), 0u);
}

TEST_F(Runner, MissingExecutableAndTimeoutLeaveNothingBehind) {
  PtxasRun missing = runPtxas("/nonexistent/ptxas", "ptx", {}, 10s);
  EXPECT_EQ(missing.process.status, ProcessResult::Status::NotStarted);
  EXPECT_NE(describe(missing.process, 10s).find("/nonexistent/ptxas"), std::string::npos);
  writeScript(scratch_.file("sleeper"), "exec sleep 30\n");
  PtxasRun slow = runPtxas(scratch_.file("sleeper"), "ptx", {}, 200ms);
  EXPECT_EQ(slow.process.status, ProcessResult::Status::TimedOut);
  EXPECT_TRUE(slow.cubin.empty());
  EXPECT_EQ(entriesIn(tmp_.path()), 0u);
}

}  // namespace
}  // namespace kiln::support
