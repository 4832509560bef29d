// The analysis over the Tile IR of every example kernel (tests/unit/analysis/inputs, made by
// inputs/generate.sh from examples/*.py): it never throws, every fact is well formed, the annotated
// text parses back to the same IR, and the loads and stores get the vector widths they should.
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "analysis_test.h"

namespace kiln::analysis::test {
namespace {

namespace fs = std::filesystem;

fs::path inputsDir() { return fs::path(KILN_SOURCE_DIR) / "tests" / "unit" / "analysis" / "inputs"; }

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

void checkWellFormed(const ir::Value* v, const AxisInfo& x) {
  int dims = std::max(1, v->type.rank());
  ASSERT_EQ(x.dims(), dims);
  ASSERT_EQ(int(x.divisibility.size()), dims);
  ASSERT_EQ(int(x.constancy.size()), dims);
  for (int d = 0; d < dims; ++d) {
    int64_t size = v->type.isTensor() ? v->type.shape[size_t(d)] : 1;
    EXPECT_TRUE(isPow2(x.contiguity[size_t(d)]) && size % x.contiguity[size_t(d)] == 0);
    EXPECT_TRUE(isPow2(x.constancy[size_t(d)]) && size % x.constancy[size_t(d)] == 0);
    EXPECT_TRUE(isPow2(x.divisibility[size_t(d)]) && x.divisibility[size_t(d)] <= kMaxDivisibility);
    // A run longer than 1 and a constant stretch longer than 1 cannot both hold.
    EXPECT_FALSE(x.contiguity[size_t(d)] > 1 && x.constancy[size_t(d)] > 1);
  }
}

void walkValues(const ir::Block& b, const std::function<void(const ir::Value*)>& fn) {
  for (const auto& a : b.args) fn(a.get());
  for (const auto& op : b.ops) {
    for (const auto& r : op->results) fn(r.get());
    for (const auto& reg : op->regions) walkValues(*reg, fn);
  }
}

// "load:8/1 store:4/-": for each load and store in order, the vector width of its pointer along
// its best dim (the last on ties) and the mask's constancy along that dim ('-': no mask).
std::string accessWidths(const ir::Function& f, const AxisInfoAnalysis& a) {
  std::string out;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    for (const auto& op : b.ops) {
      if (op->opcode == ir::Opcode::Load || op->opcode == ir::Opcode::Store) {
        const ir::Value* p = op->operand(0);
        int best = 0;
        for (int d = 0; d < std::max(1, p->type.rank()); ++d)
          if (a.vectorElements(p, d) >= a.vectorElements(p, best)) best = d;
        out += std::string(out.empty() ? "" : " ") + op->name() + ":" + std::to_string(a.vectorElements(p, best)) + "/";
        unsigned maskAt = op->opcode == ir::Opcode::Load ? 1 : 2;
        out += op->numOperands() > maskAt ? std::to_string(a.maskConstancy(op->operand(maskAt), best)) : "-";
      }
      for (const auto& reg : op->regions) walk(*reg);
    }
  };
  walk(f.body);
  return out;
}

TEST(AxisInfoExamples, EveryExampleAnalysesCleanly) {
  int files = 0;
  for (const auto& entry : fs::directory_iterator(inputsDir())) {
    if (entry.path().extension() != ".tir") continue;
    ++files;
    SCOPED_TRACE(entry.path().filename().string());
    std::string text = readFile(entry.path());
    auto module = ir::parseModule(makeSource(entry.path().string(), text));
    for (const auto& f : module->functions) {
      ASSERT_FALSE(ir::verify(*f).has_value());
      AxisInfoAnalysis a(*f);
      walkValues(f->body, [&](const ir::Value* v) { checkWellFormed(v, a.get(v)); });
      // The annotated text is still the same IR.
      std::string annotated = printWithAxisInfo(*f, a);
      auto again = ir::parseModule(makeSource("annotated.tir", annotated));
      EXPECT_EQ(ir::print(*again->functions.at(0)), ir::print(*f));
      EXPECT_NE(annotated.find("// contiguity="), std::string::npos);
    }
  }
  EXPECT_GE(files, 15);
}

std::string widthsOf(const std::string& file) {
  auto module = ir::parseModule(makeSource(file, readFile(inputsDir() / file)));
  const ir::Function& f = *module->functions.at(0);
  AxisInfoAnalysis a(f);
  return accessWidths(f, a);
}

// "WIDTH/MASK" per access: a vector needs both pointer facts and a mask constant over it.
TEST(AxisInfoExamples, VectorWidthsOfTheExampleKernels) {
  const std::map<std::string, std::string> want = {
      // n has no ":16": the mask may change at any element, though the pointers allow 4.
      {"vector_add_hints.tir", "load:4/1 load:4/1 store:4/1"},
      {"vector_add_plain.tir", "load:1/1 load:1/1 store:1/1"},
      {"softmax.tir", "load:4/1 store:4/1"},
      // N hinted: rows of 8 f16 under one predicate; Mean/Rstd are scalar stores.
      {"layernorm.tir", "load:8/16 load:8/16 store:1/- store:1/- load:8/16 load:8/16 load:8/16 store:8/16"},
      // A along K and B along K (column-major) are 16-byte vectors; K and N are not hinted.
      {"matmul_hints.tir", "load:8/1 load:8/1 store:8/1"},
      {"matmul_plain.tir", "load:1/1 load:1/32 store:1/1"},
      // Q, K, V and Out masks are on rows, constant along HEAD_DIM; M's rows start at
      // off_hz * N_CTX with N_CTX unhinted.
      {"flash_attention.tir", "load:8/64 load:8/64 load:8/64 store:1/1 store:8/64"},
      {"grid2d_add.tir", "load:4/1 load:4/1 store:4/1"},
      {"grid2d_transpose.tir", "load:1/1 store:1/1"},
      {"integer_hash.tir", "load:4/16 store:4/16 store:4/16"},
      {"integer_arith.tir", "load:4/16 load:4/16 store:4/16 store:4/16 store:4/16 store:4/16"},
      {"reductions_argmax.tir", "load:4/1 store:1/- store:1/-"},
      {"reductions_row_stats.tir", "load:4/1 store:1/- store:1/-"},
      // Segments start anywhere: element-wide.
      {"reductions_segment_sum.tir", "load:1/- load:1/- load:1/1 store:1/-"},
      {"control_flow_collatz.tir", "load:1/- store:1/-"},
      {"control_flow_searchsorted.tir", "load:1/- load:1/- store:1/-"},
      {"control_flow_polyval.tir",
       "load:4/16 load:1/- load:1/- load:1/- load:1/- load:1/- load:1/- store:4/16"},
  };
  for (const auto& [file, widths] : want) EXPECT_EQ(widthsOf(file), widths) << file;
}

TEST(AxisInfoExamples, MatmulPointerFacts) {
  auto module = ir::parseModule(makeSource("matmul_hints.tir", readFile(inputsDir() / "matmul_hints.tir")));
  const ir::Function& f = *module->functions.at(0);
  AxisInfoAnalysis a(f);
  // The loop-carried A and B pointer tiles keep their 16-byte rows (A) and columns (B) through the
  // fixed point, so without masks they would load 8 f16 per vector.
  const ir::Op* loop = nullptr;
  for (const auto& op : f.body.ops)
    if (op->opcode == ir::Opcode::For) loop = op.get();
  ASSERT_NE(loop, nullptr);
  const ir::Block& body = loop->region(0);
  EXPECT_EQ(a.get(body.arg(2)).str(), "contiguity=[1, 32] divisibility=[2, 16] constancy=[1, 1]");
  EXPECT_EQ(a.get(body.arg(3)).str(), "contiguity=[32, 1] divisibility=[16, 2] constancy=[1, 1]");
  EXPECT_EQ(a.vectorElements(body.arg(2), 1), 8);
  EXPECT_EQ(a.vectorElements(body.arg(3), 0), 8);
}

}  // namespace
}  // namespace kiln::analysis::test
