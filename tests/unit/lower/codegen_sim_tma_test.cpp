// tma_load end to end in the CTA simulator (ops_sim_tma.h models the tensor-map parameter, the bulk
// tensor copy with its zero fill and swizzle, and the mbarrier's phases): a map over a 100 x 300 tensor
// with rows 304 elements apart, one slot of one box and one of four boxes along the contiguous dim at
// partly out-of-bounds coordinates, waited for, read with local_load and stored; every element must be the
// tensor's or zero outside it. The same kernels through ptxas for sm_90a, the sm_80 error, and the
// mismatches the code generator refuses (a slot layout the copies do not write, a misaligned slot).
#include <gtest/gtest.h>

#include <random>

#include "codegen_test_util.h"
#include "layout/tma_shared.h"
#include "ops_sim.h"

namespace kiln::lower::test {
namespace {

using layout::LinearLayout;
constexpr int kWarps = 4;
constexpr int64_t kRows = 100, kCols = 300, kLd = 304;

// The 1-D layout of the same registers, lanes and warps as a row-major R x C tile's (for reshape).
LinearLayout flattened(const LinearLayout& l, int64_t cols) {
  std::vector<layout::InDim> ins = l.ins();
  for (layout::InDim& in : ins)
    for (layout::Basis& b : in.bases) b = layout::Basis{int32_t(b[0] * cols + b[1])};
  return LinearLayout(std::move(ins), {{layout::dimName(0), int32_t(l.outs()[0].size * l.outs()[1].size)}});
}

struct Case {
  std::string ty;  // IR element type
  int elemBytes;
  int64_t rows, boxInner;
  int swizzle;
};

std::string shapeOf(int64_t r, int64_t c, const std::string& ty) { return std::to_string(r) + "x" + std::to_string(c) + "x" + ty; }

// Two slots, `a` of one box and `b` of four, each filled from map 0, waited for and stored to ya / yb.
Layouts layoutsOf(const Case& c) {
  Layouts l;
  for (auto [name, cols] : {std::pair{"A", c.boxInner}, std::pair{"B", 4 * c.boxInner}}) {
    const layout::TmaTile t{{c.rows, cols}, c.boxInner, c.elemBytes, c.swizzle};
    l[std::string("S") + name] = layout::tmaShared(t);
    const LinearLayout regs = layout::defaultBlocked({c.rows, cols}, kWarps, 16 / c.elemBytes, {1, 0});
    l[std::string("R") + name] = regs;
    l[std::string("F") + name] = flattened(regs, cols);
  }
  return l;
}

std::string kernelText(const Case& c, int64_t align) {
  const std::string t = c.ty, r = std::to_string(c.rows), al = std::to_string(align);
  std::string s = "func @tma(%x: ptr<" + t + ">, %ya: ptr<" + t + ">, %yb: ptr<" + t +
                  ">, %rows: i32, %cols: i32, %ld: i32, %ra: i32, %ca: i32, %rb: i32, %cb: i32) {\n"
                  "  %one = constant {value = 1} : i32\n"
                  "  tensor_map %x, %rows, %cols, %ld, %one {box = [" + r + ", " + std::to_string(c.boxInner) +
                  "], index = 0, swizzle = " + std::to_string(c.swizzle) + "}\n"
                  "  %bara = shared_alloc : shared<1xi64>\n"
                  "  %barb = shared_alloc : shared<1xi64>\n";
  for (auto [name, cols] : {std::pair{"a", c.boxInner}, std::pair{"b", 4 * c.boxInner}}) {
    const std::string n = name, N = n == "a" ? "A" : "B", shape = shapeOf(c.rows, cols, t);
    s += "  %" + n + " = shared_alloc {align = " + al + "} : shared<" + shape + ", #S" + N + ">\n";
  }
  s += "  mbarrier_init %bara {count = 1}\n"
       "  mbarrier_init %barb {count = 1}\n"
       "  tma_load %a, %bara, %ra, %ca {map = 0}\n"
       "  tma_load %b, %barb, %rb, %cb {map = 0}\n"
       "  %ph = constant {value = 0} : i32\n";
  for (auto [name, cols] : {std::pair{"a", c.boxInner}, std::pair{"b", 4 * c.boxInner}}) {
    const std::string n = name, N = n == "a" ? "A" : "B", shape = shapeOf(c.rows, cols, t);
    const std::string flat = std::to_string(c.rows * cols) + "x";
    s += "  mbarrier_wait %bar" + n + ", %ph\n"
         "  %v" + n + " = local_load %" + n + " : tensor<" + shape + ", #R" + N + ">\n"
         "  %f" + n + " = reshape %v" + n + " : tensor<" + flat + t + ", #F" + N + ">\n"
         "  %o" + n + " = arange {end = " + std::to_string(c.rows * cols) + ", start = 0} : tensor<" + flat + "i32, #F" + N + ">\n"
         "  %s" + n + " = splat %y" + n + " : tensor<" + flat + "ptr<" + t + ">, #F" + N + ">\n"
         "  %p" + n + " = ptr_add %s" + n + ", %o" + n + " : tensor<" + flat + "ptr<" + t + ">, #F" + N + ">\n"
         "  store %p" + n + ", %f" + n + "\n";
  }
  return s + "  return\n}\n";
}

Emitted emitCase(const Case& c, const ptx::Target& target, int64_t align) {
  return emit(kernelText(c, align), layoutsOf(c), target, kWarps);
}

// The slot's elements as the tensor holds them at (r0 + i, c0 + j), zero outside it.
std::vector<uint8_t> expected(const std::vector<uint8_t>& x, const Case& c, int64_t cols, int64_t r0, int64_t c0) {
  std::vector<uint8_t> out(size_t(c.rows * cols * c.elemBytes), 0);
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t r = r0 + i, col = c0 + j;
      if (r < 0 || r >= kRows || col < 0 || col >= kCols) continue;
      std::memcpy(&out[size_t((i * cols + j) * c.elemBytes)], &x[size_t((r * kLd + col) * c.elemBytes)], size_t(c.elemBytes));
    }
  return out;
}

const std::vector<Case> kCases{
    {"f16", 2, 64, 64, 128},  // 128-byte rows, swizzled as wgmma reads them
    {"f16", 2, 64, 32, 0},    // unswizzled boxes one after another
    {"f16", 2, 32, 32, 64},
    {"f32", 4, 32, 32, 128},
    {"f8e4m3", 1, 64, 128, 128},
};

TEST(CodegenSimTma, SlotsFilledFromATensorMapWithZerosOutside) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.ty + " box " + std::to_string(c.rows) + "x" + std::to_string(c.boxInner) + " swizzle " + std::to_string(c.swizzle));
    const layout::TmaTile tile{{c.rows, c.boxInner}, c.boxInner, c.elemBytes, c.swizzle};
    const Emitted k = emitCase(c, ptx::kSm90a, tile.alignment());
    EXPECT_EQ(count(k.ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"), 5);
    EXPECT_EQ(count(k.ptx, "mbarrier.arrive.expect_tx.shared::cta.b64"), 2);
    EXPECT_EQ(count(k.ptx, ".param .align 128 .b8 tma_tmap0[128]"), 1);
    EXPECT_EQ(count(k.ptx, "bar.sync"), 1) << "one barrier, after mbarrier_init; the waits order the slots";
    CtaSim sim(k.ptx, kWarps * 32, k.info.sharedBytes);
    std::mt19937 rng(uint32_t(c.elemBytes * 1000 + c.swizzle));
    std::vector<uint8_t> x(size_t(kRows * kLd * c.elemBytes));
    for (uint8_t& b : x) b = uint8_t(rng() & 0x3F);  // no NaN or infinity bit patterns
    const uint64_t xAt = sim.addBuffer(x);
    const int64_t colsB = 4 * c.boxInner;
    const uint64_t ya = sim.addBuffer(std::vector<uint8_t>(size_t(c.rows * c.boxInner * c.elemBytes), 0xFF));
    const uint64_t yb = sim.addBuffer(std::vector<uint8_t>(size_t(c.rows * colsB * c.elemBytes), 0xFF));
    const int64_t ra = 60, ca = -8, rb = -10, cb = 100;
    for (auto [name, v] : std::vector<std::pair<std::string, uint64_t>>{
             {"x", xAt}, {"ya", ya}, {"yb", yb}, {"rows", kRows}, {"cols", kCols}, {"ld", kLd},
             {"ra", uint64_t(ra)}, {"ca", uint64_t(uint32_t(int32_t(ca)))}, {"rb", uint64_t(uint32_t(int32_t(rb)))}, {"cb", uint64_t(cb)}})
      sim.setParam("tma_" + name, v);
    sim.setTensorMap("tma_tmap0", CtaSim::TensorMap{xAt, c.elemBytes, {uint64_t(kCols), uint64_t(kRows)},
                                                    {uint64_t(kLd * c.elemBytes)}, {uint32_t(c.boxInner), uint32_t(c.rows)}, c.swizzle});
    ASSERT_EQ(sim.run(), "") << k.ptx;
    EXPECT_EQ(sim.buffer(ya), expected(x, c, c.boxInner, ra, ca));
    EXPECT_EQ(sim.buffer(yb), expected(x, c, colsB, rb, cb));
    if (havePtxas()) {
      EXPECT_EQ(assembleProblems(k.ptx, "sm_90a"), "");
    }
  }
}

TEST(CodegenSimTma, TheTensorMapParameterFollowsTheKernels) {
  const Case c = kCases[0];
  const std::string ptx = emitCase(c, ptx::kSm90a, 1024).ptx;
  const size_t last = ptx.find("tma_cb"), map = ptx.find("tma_tmap0[128]");
  ASSERT_NE(last, std::string::npos);
  EXPECT_LT(last, map) << ptx;
  EXPECT_EQ(count(ptx, "cvta.param.u64"), 1) << "the map's generic address is taken once";
  EXPECT_EQ(count(ptx, "prefetch.param.tensormap [tma_tmap0];"), 1);
  // IR coordinates are outermost first, PTX's innermost first: the column comes first.
  EXPECT_EQ(countMatching(ptx, R"(\[%rd[0-9]+, \{%r[0-9]+, %r[0-9]+\}\])"), 5);
}

TEST(CodegenSimTma, NeedsSm90) {
  try {
    emitCase(kCases[0], ptx::kSm80, 1024);
    FAIL() << "emitted TMA for sm_80";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("TMA needs sm_90"), std::string::npos) << e.what();
  }
}

TEST(CodegenSimTma, RefusesASlotTheCopiesDoNotFill) {
  const Case c = kCases[0];
  // A 128-byte swizzle repeats every 1024 bytes: a slot aligned to 128 only would be read scrambled.
  try {
    emitCase(c, ptx::kSm90a, 128);
    FAIL() << "a slot aligned to 128 bytes for a 128-byte swizzle";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("align = 1024"), std::string::npos) << e.what();
  }
  // The slot's layout unswizzled while the map swizzles.
  Layouts l = layoutsOf(c);
  l["SA"] = layout::tmaShared(layout::TmaTile{{c.rows, c.boxInner}, c.boxInner, c.elemBytes, 0});
  try {
    emit(kernelText(c, 1024), l, ptx::kSm90a, kWarps);
    FAIL() << "a slot layout the copies do not write";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("is not the arrangement the copies write"), std::string::npos) << e.what();
  }
}

// One slot filled twice from one mbarrier (phases 0 and 1), each fill read and stored: ya gets the box at
// (ra, ca), yb the one at (rb, cb).
std::string refillText(const Case& c) {
  const std::string t = c.ty, shape = shapeOf(c.rows, c.boxInner, t), flat = std::to_string(c.rows * c.boxInner) + "x";
  std::string s = "func @tma(%x: ptr<" + t + ">, %ya: ptr<" + t + ">, %yb: ptr<" + t +
                  ">, %rows: i32, %cols: i32, %ld: i32, %ra: i32, %ca: i32, %rb: i32, %cb: i32) {\n"
                  "  %one = constant {value = 1} : i32\n"
                  "  tensor_map %x, %rows, %cols, %ld, %one {box = [" + std::to_string(c.rows) + ", " + std::to_string(c.boxInner) +
                  "], index = 0, swizzle = " + std::to_string(c.swizzle) + "}\n"
                  "  %bar = shared_alloc : shared<1xi64>\n"
                  "  %a = shared_alloc : shared<" + shape + ", #SA>\n"
                  "  mbarrier_init %bar {count = 1}\n"
                  "  barrier\n"  // the initialisation seen by every thread, with or without insert_barriers
                  "  %o = arange {end = " + std::to_string(c.rows * c.boxInner) + ", start = 0} : tensor<" + flat + "i32, #FA>\n";
  for (const std::string n : {"a", "b"}) {
    s += "  tma_load %a, %bar, %r" + n + ", %c" + n + " {map = 0}\n"
         "  %ph" + n + " = constant {value = " + (n == "a" ? "0" : "1") + "} : i32\n"
         "  mbarrier_wait %bar, %ph" + n + "\n"
         "  %v" + n + " = local_load %a : tensor<" + shape + ", #RA>\n"
         "  %f" + n + " = reshape %v" + n + " : tensor<" + flat + t + ", #FA>\n"
         "  %s" + n + " = splat %y" + n + " : tensor<" + flat + "ptr<" + t + ">, #FA>\n"
         "  %p" + n + " = ptr_add %s" + n + ", %o : tensor<" + flat + "ptr<" + t + ">, #FA>\n"
         "  store %p" + n + ", %f" + n + "\n";
  }
  return s + "  return\n}\n";
}

// A refill of the slot the threads have just read: insert_barriers puts a barrier before it; without
// one the copy would overwrite bytes other threads may still be reading, which the simulator reports.
TEST(CodegenSimTma, ARefillWaitsForTheReadersOfTheLastFill) {
  const Case c = kCases[1];
  for (bool barriers : {true, false}) {
    SCOPED_TRACE(barriers ? "with insert_barriers" : "without");
    auto m = parseGpu(refillText(c), layoutsOf(c));
    ir::Function& f = *m->functions.at(0);
    const schedule::GpuContext ctx{ptx::kSm90a, kWarps};
    schedule::allocateShared(f, ctx);
    if (barriers) schedule::insertBarriers(f, ctx);
    EntryInfo info;
    const std::string ptx = emitPtx(f, ptx::kSm90a, kWarps, info);
    CtaSim sim(ptx, kWarps * 32, info.sharedBytes);
    std::vector<uint8_t> x(size_t(kRows * kLd * c.elemBytes));
    for (size_t i = 0; i < x.size(); ++i) x[i] = uint8_t(i * 7 % 61);
    const uint64_t xAt = sim.addBuffer(x);
    const size_t bytes = size_t(c.rows * c.boxInner * c.elemBytes);
    const uint64_t ya = sim.addBuffer(std::vector<uint8_t>(bytes, 0xFF)), yb = sim.addBuffer(std::vector<uint8_t>(bytes, 0xFF));
    const int64_t ra = 90, ca = 280, rb = 3, cb = 5;
    for (auto [name, v] : std::vector<std::pair<std::string, uint64_t>>{
             {"x", xAt}, {"ya", ya}, {"yb", yb}, {"rows", kRows}, {"cols", kCols}, {"ld", kLd},
             {"ra", uint64_t(ra)}, {"ca", uint64_t(ca)}, {"rb", uint64_t(rb)}, {"cb", uint64_t(cb)}})
      sim.setParam("tma_" + name, v);
    sim.setTensorMap("tma_tmap0", CtaSim::TensorMap{xAt, c.elemBytes, {uint64_t(kCols), uint64_t(kRows)},
                                                    {uint64_t(kLd * c.elemBytes)}, {uint32_t(c.boxInner), uint32_t(c.rows)}, c.swizzle});
    const std::string error = sim.run();
    if (!barriers) {
      EXPECT_NE(error.find("a TMA copy into a byte another thread used since the last barrier"), std::string::npos) << error;
      continue;
    }
    ASSERT_EQ(error, "") << ptx;
    EXPECT_EQ(sim.buffer(ya), expected(x, c, c.boxInner, ra, ca));
    EXPECT_EQ(sim.buffer(yb), expected(x, c, c.boxInner, rb, cb));
  }
}

}  // namespace
}  // namespace kiln::lower::test
