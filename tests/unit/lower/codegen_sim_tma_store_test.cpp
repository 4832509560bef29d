// tma_store end to end in the CTA simulator (ops_sim_tma_store.h models the bulk tensor copy to global
// memory, which writes only the elements inside the tensor, and its bulk groups): a tile of known values
// local_stored into a slot in TMA's arrangement, fenced, passed through a barrier and copied out at an
// inner and at an edge position of a 100 x 300 tensor with rows 304 elements apart; every element inside
// the tensor must be the tile's, every other byte untouched. Then what the simulator must refuse: the copy
// without the barrier after the local_store, and a kernel that exits without tma_store_wait. The same
// kernels through ptxas for sm_90a, and the sm_80 error.
#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "layout/tma_shared.h"
#include "ops_sim.h"

namespace kiln::lower::test {
namespace {

using layout::LinearLayout;
constexpr int kWarps = 4;
constexpr int64_t kRows = 100, kCols = 300, kLd = 304;

struct Case {
  std::string ty;  // an integer type, so the tile's values are exact
  int elemBytes;
  int64_t rows, cols, boxInner;
  int swizzle;
};

const std::vector<Case> kCases{
    {"i16", 2, 64, 128, 64, 128},  // two boxes of 128-byte swizzled rows
    {"i32", 4, 32, 32, 32, 128},
    {"i16", 2, 16, 16, 16, 32},
    {"i8", 1, 64, 64, 64, 64},
    {"i16", 2, 32, 8, 8, 0},       // 16-byte rows, unswizzled
};

// The 1-D layout of the same registers, lanes and warps as a row-major R x C tile's (for reshape).
LinearLayout flattened(const LinearLayout& l, int64_t cols) {
  std::vector<layout::InDim> ins = l.ins();
  for (layout::InDim& in : ins)
    for (layout::Basis& b : in.bases) b = layout::Basis{int32_t(b[0] * cols + b[1])};
  return LinearLayout(std::move(ins), {{layout::dimName(0), int32_t(l.outs()[0].size * l.outs()[1].size)}});
}

Layouts layoutsOf(const Case& c) {
  const LinearLayout regs = layout::defaultBlocked({c.rows, c.cols}, kWarps, 16 / c.elemBytes, {1, 0});
  return {{"S", layout::tmaShared(layout::TmaTile{{c.rows, c.cols}, c.boxInner, c.elemBytes, c.swizzle})},
          {"R", regs},
          {"F", flattened(regs, c.cols)}};
}

// The tile holds i * cols + j (truncated to the type) at (i, j); it is copied to map 0 at (r0, c0).
std::string kernelText(const Case& c, bool barrier, bool wait) {
  const std::string t = c.ty, n = std::to_string(c.rows * c.cols);
  const std::string shape = std::to_string(c.rows) + "x" + std::to_string(c.cols) + "x" + t;
  const int64_t align = layout::TmaTile{{c.rows, c.cols}, c.boxInner, c.elemBytes, c.swizzle}.alignment();
  std::string s = "func @st(%y: ptr<" + t + ">, %rows: i32, %cols: i32, %ld: i32, %r0: i32, %c0: i32) {\n"
                  "  %one = constant {value = 1} : i32\n"
                  "  tensor_map %y, %rows, %cols, %ld, %one {box = [" + std::to_string(c.rows) + ", " +
                  std::to_string(c.boxInner) + "], index = 0, swizzle = " + std::to_string(c.swizzle) + "}\n"
                  "  %o = arange {end = " + n + ", start = 0} : tensor<" + n + "xi32, #F>\n";
  if (t != "i32") s += "  %h = cast %o : tensor<" + n + "x" + t + ", #F>\n";
  s += "  %v = reshape " + std::string(t == "i32" ? "%o" : "%h") + " : tensor<" + shape + ", #R>\n"
       "  %buf = shared_alloc {align = " + std::to_string(align) + "} : shared<" + shape + ", #S>\n"
       "  local_store %buf, %v\n"
       "  fence_async_shared\n";
  if (barrier) s += "  barrier\n";
  s += "  tma_store %buf, %r0, %c0 {map = 0}\n";
  if (wait) s += "  tma_store_wait {pending = 0}\n";
  return s + "  return\n}\n";
}

// Emitted without insert_barriers, so the kernel's own barrier (or its absence) is what the PTX has.
std::string ptxOf(const Case& c, const ptx::Target& target, bool barrier, bool wait, EntryInfo& info) {
  auto m = parseGpu(kernelText(c, barrier, wait), layoutsOf(c));
  ir::Function& f = *m->functions.at(0);
  schedule::allocateShared(f, schedule::GpuContext{target, kWarps});
  return emitPtx(f, target, kWarps, info);
}

// Runs the kernel with the tile at (r0, c0); returns the simulator's verdict and the tensor's bytes.
std::pair<std::string, std::vector<uint8_t>> run(const Case& c, const std::string& ptx, const EntryInfo& info, int64_t r0,
                                                 int64_t c0) {
  CtaSim sim(ptx, kWarps * 32, info.sharedBytes);
  const uint64_t y = sim.addBuffer(std::vector<uint8_t>(size_t(kRows * kLd * c.elemBytes), 0xEE));
  for (auto [name, v] : std::vector<std::pair<std::string, uint64_t>>{
           {"y", y}, {"rows", kRows}, {"cols", kCols}, {"ld", kLd}, {"r0", uint64_t(r0)}, {"c0", uint64_t(c0)}})
    sim.setParam("st_" + name, v);
  sim.setTensorMap("st_tmap0", CtaSim::TensorMap{y, c.elemBytes, {uint64_t(kCols), uint64_t(kRows)},
                                                 {uint64_t(kLd * c.elemBytes)}, {uint32_t(c.boxInner), uint32_t(c.rows)},
                                                 c.swizzle});
  std::string verdict = sim.run();
  return {verdict, sim.buffer(y)};
}

// The tensor after the copy: the tile's elements inside it, 0xEE everywhere else (the row padding too).
std::vector<uint8_t> expected(const Case& c, int64_t r0, int64_t c0) {
  std::vector<uint8_t> out(size_t(kRows * kLd * c.elemBytes), 0xEE);
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.cols; ++j) {
      const int64_t r = r0 + i, col = c0 + j;
      if (r >= kRows || col >= kCols) continue;
      const uint64_t v = uint64_t(i * c.cols + j);
      for (int b = 0; b < c.elemBytes; ++b) out[size_t((r * kLd + col) * c.elemBytes + b)] = uint8_t(v >> (8 * b));
    }
  return out;
}

TEST(CodegenSimTmaStore, WritesTheTileInsideTheTensorOnly) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.ty + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols) + " box inner " +
                 std::to_string(c.boxInner) + " swizzle " + std::to_string(c.swizzle));
    EntryInfo info;
    const std::string ptx = ptxOf(c, ptx::kSm90a, true, true, info);
    EXPECT_EQ(count(ptx, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"), c.cols / c.boxInner);
    EXPECT_EQ(count(ptx, "cp.async.bulk.commit_group;"), 1);
    EXPECT_EQ(count(ptx, "cp.async.bulk.wait_group.read 0;"), 1);
    EXPECT_EQ(count(ptx, "fence.proxy.async.shared::cta;"), 1);
    // An inner tile, and edge tiles past the last row, the last column, and both.
    for (auto [r0, c0] : std::vector<std::pair<int64_t, int64_t>>{{5, 40}, {kRows - c.rows / 2, 7}, {3, kCols - 3},
                                                                  {kRows - 1, kCols - c.cols / 2 - 1}}) {
      SCOPED_TRACE("at (" + std::to_string(r0) + ", " + std::to_string(c0) + ")");
      auto [verdict, y] = run(c, ptx, info, r0, c0);
      ASSERT_EQ(verdict, "") << ptx;
      EXPECT_EQ(y, expected(c, r0, c0));
    }
    if (havePtxas()) {
      EXPECT_EQ(assembleProblems(ptx, "sm_90a"), "");
    }
  }
}

TEST(CodegenSimTmaStore, RefusesACopyBeforeTheBarrierOrWithoutItsWait) {
  const Case c = kCases[0];
  EntryInfo info;
  auto [noBarrier, y0] = run(c, ptxOf(c, ptx::kSm90a, false, true, info), info, 0, 0);
  EXPECT_NE(noBarrier.find("shared read of a byte another thread wrote since the last barrier"), std::string::npos)
      << noBarrier;
  auto [noWait, y1] = run(c, ptxOf(c, ptx::kSm90a, true, false, info), info, 0, 0);
  EXPECT_NE(noWait.find("TMA stores never waited for"), std::string::npos) << noWait;
}

TEST(CodegenSimTmaStore, NeedsSm90) {
  EntryInfo info;
  try {
    ptxOf(kCases[0], ptx::kSm80, true, true, info);
    FAIL() << "emitted a TMA store for sm_80";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("TMA needs sm_90"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::lower::test
