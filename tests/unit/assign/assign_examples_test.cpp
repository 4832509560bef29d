// Layout assignment over the example kernels (examples/*.py, compiled to Tile IR by the front end,
// sema and the passes: tests/unit/analysis/inputs/generate.sh, and the lowering tests' larger set in
// tests/unit/lower/ptxas_inputs): the contract holds for 1 to 32 warps on sm_80 and sm_90a, and the
// conversions are the ones the kernels need.
#include <algorithm>
#include <filesystem>

#include "assign_test.h"
#include "layout/conversions.h"

namespace kiln::lower::test {
namespace {

namespace fs = std::filesystem;
using ir::Opcode;

fs::path examplesIr() { return fs::path(KILN_SOURCE_DIR) / "tests" / "unit" / "analysis" / "inputs"; }

std::unique_ptr<ir::Module> example(const std::string& name) {
  fs::path p = examplesIr() / (name + ".tir");
  std::string text = readFile(p);
  EXPECT_FALSE(text.empty()) << "cannot read " << p;
  return parseIr(text, p.string());
}

std::vector<fs::path> tirFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".tir") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Conversions that move data between threads (the others only rename registers).
int movingConverts(const ir::Function& f) {
  int n = 0;
  forEachOp(f.body, [&](const ir::Op& op) {
    if (op.opcode == Opcode::ConvertLayout)
      n += !layout::needsNoDataMovement(*op.operand(0)->type.layout, *op.result()->type.layout);
  });
  return n;
}

bool insideLoop(const ir::Op& op) {
  for (const ir::Op* p = op.parentOp(); p; p = p->parentOp())
    if (p->opcode == Opcode::For || p->opcode == Opcode::While) return true;
  return false;
}

TEST(AssignExamples, EveryExampleMeetsTheContract) {
  std::vector<fs::path> files = tirFiles(examplesIr());
  ASSERT_GE(files.size(), 10u);
  for (const fs::path& extra : tirFiles(fs::path(KILN_SOURCE_DIR) / "tests" / "unit" / "lower" / "ptxas_inputs"))
    files.push_back(extra);
  for (const fs::path& p : files) {
    for (int warps : {1, 2, 4, 8, 32})
      for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
        if (target == ptx::kSm90a && (warps == 2 || warps == 32)) continue;
        SCOPED_TRACE(p.filename().string() + " warps=" + std::to_string(warps) + " " + target.name());
        auto m = parseIr(readFile(p), p.string());
        try {
          assignAndCheck(*m, warps, target);
        } catch (const InternalError& e) {
          ADD_FAILURE() << e.diag().render();
        }
      }
  }
}

TEST(AssignExamples, ElementwiseAndRowKernelsNeedNoConversion) {
  for (const char* name : {"vector_add_hints", "vector_add_plain", "softmax", "layernorm", "grid2d_add",
                           "grid2d_transpose", "integer_hash", "reductions_row_stats", "control_flow_polyval"})
    for (int warps : {1, 4, 8}) {
      SCOPED_TRACE(std::string(name) + " warps=" + std::to_string(warps));
      auto m = example(name);
      assignAndCheck(*m, warps);
      EXPECT_EQ(countOps(*m->functions[0], Opcode::ConvertLayout), 0) << ir::print(*m);
    }
}

// The layout of every load in vector_add with the :16 hints: 16-byte vectors, lanes, then warps.
TEST(AssignExamples, VectorAddLoadsAreVectorized) {
  auto m = example("vector_add_hints");  // 1024 f32
  assignAndCheck(*m, 4);
  forEachOp(m->functions[0]->body, [&](const ir::Op& op) {
    if (op.opcode != Opcode::Load && op.opcode != Opcode::Store) return;
    EXPECT_EQ(op.operand(0)->type.layout->str(),
              "{register=[[1],[2],[512]], lane=[[4],[8],[16],[32],[64]], warp=[[128],[256]]} -> [dim0=1024]");
  });
}

// matmul: the accumulator stays in the mma layout through the loop; the only conversions are the
// operands' (inside the loop, from the coalesced loads) and the result's on its way to the store.
TEST(AssignExamples, MatmulConvertsOnlyTheDotOperandsAndTheResult) {
  for (const char* name : {"matmul_hints", "matmul_plain"})
    for (int warps : {1, 4, 8}) {
      SCOPED_TRACE(std::string(name) + " warps=" + std::to_string(warps));
      auto m = example(name);
      assignAndCheck(*m, warps);
      const ir::Function& f = *m->functions[0];
      const ir::Op* dot = firstOp(f, Opcode::Dot);
      const ir::Op* loop = firstOp(f, Opcode::For);
      ASSERT_TRUE(dot && loop);
      EXPECT_EQ(*loop->result(0)->type.layout, *dot->result()->type.layout);
      int inLoop = 0, feedDot = 0;
      forEachOp(f.body, [&](const ir::Op& op) {
        if (op.opcode != Opcode::ConvertLayout) return;
        inLoop += insideLoop(op);
        feedDot += op.result() == dot->operand(0) || op.result() == dot->operand(1);
      });
      EXPECT_EQ(feedDot, 2);
      EXPECT_EQ(inLoop, 2) << ir::print(f);
      EXPECT_LE(countOps(f, Opcode::ConvertLayout), 3) << ir::print(f);
      EXPECT_LE(movingConverts(f), 3);
    }
}

// Flash attention: data moves for the dot operands (q once before the loop; k, v and p per iteration)
// and for the two stores; with 4 warps both dots put their warps alike along M, so the row statistics
// only change register duplication (with 8 warps dotLayout spreads the two dots' warps differently).
TEST(AssignExamples, AttentionMovesDataOnlyForDotsAndStores) {
  auto m = example("flash_attention");
  assignAndCheck(*m, 4);
  const ir::Function& f = *m->functions[0];
  int movingInLoop = 0;
  forEachOp(f.body, [&](const ir::Op& op) {
    if (op.opcode != Opcode::ConvertLayout || !insideLoop(op)) return;
    if (!layout::needsNoDataMovement(*op.operand(0)->type.layout, *op.result()->type.layout)) ++movingInLoop;
  });
  EXPECT_LE(movingInLoop, 3) << ir::print(f);
  EXPECT_LE(movingConverts(f), 6);
  EXPECT_LE(countOps(f, Opcode::ConvertLayout), 10);
  // The accumulator is loop-carried in the layout of the dot that makes it.
  const ir::Op* loop = firstOp(f, Opcode::For);
  const ir::Op* pv = nullptr;
  forEachOp(loop->region(0), [&](const ir::Op& op) {
    if (op.opcode == Opcode::Dot) pv = &op;
  });
  ASSERT_TRUE(pv);
  EXPECT_EQ(*loop->result(1)->type.layout, *pv->result()->type.layout);
}

}  // namespace
}  // namespace kiln::lower::test
