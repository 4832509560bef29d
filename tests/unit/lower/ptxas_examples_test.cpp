// Every example kernel at the signatures the kernel tests and the demo use (ptxas_inputs/*.tir, made
// by ptxas_inputs/generate.sh): layout assignment, PTX emission, and ptxas for sm_80 and sm_90a with
// no errors and no spills at 4 warps, or at the `--num-warps N` the input's first line names (the
// example's own configuration).
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "codegen_test_util.h"
#include "assign/assign_layouts.h"

namespace kiln::lower::test {
namespace {

namespace fs = std::filesystem;

fs::path inputsDir() { return fs::path(KILN_SOURCE_DIR) / "tests" / "unit" / "lower" / "ptxas_inputs"; }

std::vector<std::string> inputNames() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(inputsDir()))
    if (entry.path().extension() == ".tir") out.push_back(entry.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The warps an input is compiled with: `--num-warps N` on its first line, else 4.
int warpsOf(const std::string& text) {
  std::string header = text.substr(0, text.find('\n'));
  size_t at = header.find("--num-warps ");
  return at == std::string::npos ? 4 : std::stoi(header.substr(at + 12));
}

// The example's PTX for `target`: Tile IR -> axis info -> layouts -> PTX.
std::string lowerExample(const std::string& name, const ptx::Target& target, EntryInfo& info) {
  fs::path p = inputsDir() / (name + ".tir");
  std::string text = readFile(p);
  const int warps = warpsOf(text);
  auto m = ir::parseModule(makeSource(p.string(), text));
  ir::Function& f = *m->functions.at(0);
  {
    analysis::AxisInfoAnalysis axis(f);
    assignLayouts(f, axis, warps, target);
  }
  const schedule::GpuContext ctx{target, warps};
  schedule::allocateShared(f, ctx);
  schedule::insertBarriers(f, ctx);
  if (auto d = ir::verify(f)) throw std::runtime_error("GPU IR does not verify: " + d->render());
  return emitPtx(f, target, warps, info);
}

class Examples : public ::testing::TestWithParam<std::string> {};

TEST_P(Examples, AssemblesWithoutSpills) {
  if (!havePtxas()) GTEST_SKIP() << "no ptxas";
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
    SCOPED_TRACE(target.name());
    EntryInfo info;
    std::string ptx;
    try {
      ptx = lowerExample(GetParam(), target, info);
    } catch (const InternalError& e) {
      FAIL() << "internal error: " << e.what();
    } catch (const CompileError& e) {
      FAIL() << "compile error: " << e.what();
    }
    EXPECT_EQ(info.numWarps, warpsOf(readFile(inputsDir() / (GetParam() + ".tir"))));
    EXPECT_GE(info.sharedBytes, 0);
    EXPECT_LE(info.sharedBytes, 48 * 1024);
    EXPECT_EQ(assembleProblems(ptx, target.name()), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Ptxas, Examples, ::testing::ValuesIn(inputNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// The inputs cover every example file (a new example needs a line in generate.sh).
TEST(PtxasExamplesInputs, CoverEveryExample) {
  std::string all;
  for (const std::string& n : inputNames()) all += readFile(inputsDir() / (n + ".tir")).substr(0, 200);
  for (const auto& entry : fs::directory_iterator(fs::path(KILN_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".py") continue;
    EXPECT_NE(all.find("// " + entry.path().filename().string() + " "), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace kiln::lower::test
