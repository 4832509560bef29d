// convert_layout lowering: register renames, warp shuffles and shared-memory staging, checked by
// assembling the PTX and by running it in the CTA simulator (every element must arrive).
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "layout/conversions.h"
#include "layout/named_layouts.h"
#include "lower/linear_emit.h"
#include "layout/scratch_layout.h"
#include "ops_test_util.h"

namespace kiln::lower::test {
namespace {

using layout::LinearLayout;
using ir::Scalar;

LinearLayout withBases(const LinearLayout& l, const std::string& dim, std::vector<layout::Basis> bases) {
  std::vector<layout::InDim> ins = l.ins();
  for (layout::InDim& d : ins)
    if (d.name == dim) d.bases = std::move(bases);
  return LinearLayout(std::move(ins), l.outs());
}

struct Case {
  std::vector<int64_t> shape;
  Scalar elem;
  LinearLayout src, dst;
  int numWarps;
};

// Converts a random tile and checks that y == x element for element; returns the PTX body.
std::string checkConvert(const Case& c) {
  const std::string et = scalarName(c.elem);
  std::string text = convertKernel(c.shape, et, c.src, c.dst);
  EXPECT_EQ(assembleBoth(text, c.numWarps), "");
  const int64_t n = numelOf(c.shape);
  Bytes x = randomElems(c.elem, n, 7, 1000.0);
  if (c.elem == Scalar::I1)
    for (size_t i = 0; i < x.size(); ++i) x[i] = uint8_t(i * 37 % 5 == 0);
  Bytes y(x.size(), 0xEE);
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
    SimResult r = simulate(text, {"x", "y"}, {x, y}, c.numWarps, target);
    EXPECT_EQ(r.error, "") << r.ptx;
    if (!r.error.empty()) return r.ptx;
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i) {
      uint64_t a = ir::toBits(c.elem, readElem(r.buffers[0], c.elem, i)), b = ir::toBits(c.elem, readElem(r.buffers[1], c.elem, i));
      if (c.elem == Scalar::I1) a = readElem(r.buffers[0], c.elem, i).i, b = readElem(r.buffers[1], c.elem, i).i;
      if (a != b) {
        ADD_FAILURE() << "element " << i << ": " << b << " instead of " << a;
        ++bad;
      }
    }
    if (bad) return r.ptx;
  }
  return body(emit(text, {}, ptx::kSm80, c.numWarps).ptx);
}

TEST(OpsConvert, RegisterRenameIsFree) {
  LinearLayout src = layout::defaultBlocked({64, 32}, 4, 4, {1, 0});
  const auto& regs = src.ins()[0].bases;  // register bits: 2 along dim1, then repeats along dim0
  ASSERT_GE(regs.size(), 3u);
  std::vector<layout::Basis> permuted{regs[2], regs[0], regs[1]};
  for (size_t i = 3; i < regs.size(); ++i) permuted.push_back(regs[i]);
  LinearLayout dst = withBases(src, "register", permuted);
  ASSERT_TRUE(layout::registerOnlyConversion(src, dst).has_value());
  std::string b = checkConvert({{64, 32}, Scalar::F32, src, dst, 4});
  EXPECT_EQ(count(b, "shfl"), 0);
  EXPECT_EQ(count(b, "bar.sync"), 0);
  EXPECT_EQ(count(b, "st.shared"), 0);
}

TEST(OpsConvert, RegisterRenameWithBroadcast) {
  // dst holds every element twice in registers (a zero register basis): the same register is reused.
  LinearLayout src = layout::defaultBlocked({16, 32}, 2, 2, {1, 0});
  std::vector<layout::Basis> regs = src.ins()[0].bases;
  regs.insert(regs.begin() + 1, layout::Basis{0, 0});
  LinearLayout dst = withBases(src, "register", regs);
  std::string b = checkConvert({{16, 32}, Scalar::F16, src, dst, 2});
  EXPECT_EQ(count(b, "shfl") + count(b, "st.shared"), 0);
}

TEST(OpsConvert, LanePermutationUsesShflIdx) {
  LinearLayout src = layout::defaultBlocked({128}, 4, 1, {0});
  std::vector<layout::Basis> lanes = src.ins()[1].bases;
  std::reverse(lanes.begin(), lanes.end());
  LinearLayout dst = withBases(src, "lane", lanes);
  for (Scalar t : {Scalar::F32, Scalar::I64, Scalar::F16, Scalar::I1, Scalar::U8}) {
    SCOPED_TRACE(scalarName(t));
    std::string b = checkConvert({{128}, t, src, dst, 4});
    EXPECT_GE(count(b, "shfl.sync.idx"), 1);
    EXPECT_EQ(count(b, "bar.sync"), 0);
  }
}

TEST(OpsConvert, RegisterLaneMixUsesShflBfly) {
  // dst register bit 0 is src register bit 0 XOR src lane bit 0: register 1 comes from lane ^ 1.
  LinearLayout src = layout::defaultBlocked({256}, 4, 2, {0});
  std::vector<layout::Basis> regs = src.ins()[0].bases;
  regs[0] = {regs[0][0] ^ src.basis("lane", 0)[0]};
  LinearLayout dst = withBases(src, "register", regs);
  std::string b = checkConvert({{256}, Scalar::F32, src, dst, 4});
  EXPECT_GE(count(b, "shfl.sync.bfly"), 1);
  EXPECT_EQ(count(b, "bar.sync"), 0);
}

TEST(OpsConvert, TransposeThroughShared) {
  for (Scalar t : {Scalar::F32, Scalar::F16, Scalar::I8, Scalar::I1, Scalar::F64, Scalar::I64, Scalar::BF16}) {
    for (int warps : {1, 4, 8}) {
      SCOPED_TRACE(scalarName(t) + " warps " + std::to_string(warps));
      LinearLayout src = layout::defaultBlocked({32, 64}, warps, 4, {1, 0});
      LinearLayout dst = layout::defaultBlocked({32, 64}, warps, 4, {0, 1});
      std::string b = checkConvert({{32, 64}, t, src, dst, warps});
      EXPECT_EQ(count(b, "bar.sync"), 2);
    }
  }
}

TEST(OpsConvert, BroadcastSourceAndDestination) {
  // A 16-element tile over 128 threads: lanes and warps hold copies on both sides.
  LinearLayout src = layout::defaultBlocked({16}, 4, 1, {0});
  LinearLayout dst = layout::defaultBlocked({16}, 4, 4, {0});
  checkConvert({{16}, Scalar::F32, src, dst, 4});
  checkConvert({{16}, Scalar::I32, dst, src, 4});
  // 2-D with fewer elements than threads
  LinearLayout a = layout::defaultBlocked({8, 8}, 4, 1, {1, 0}), b = layout::defaultBlocked({8, 8}, 4, 2, {0, 1});
  checkConvert({{8, 8}, Scalar::F16, a, b, 4});
}

TEST(OpsConvert, MmaAccumulatorToBlockedAndBack) {
  for (auto [m, n, warps] : {std::tuple{64, 64, 4}, {32, 16, 4}, {128, 64, 8}, {16, 16, 1}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    std::vector<int32_t> wpc = {warps >= 2 && m >= 32 ? 2 : 1, 1};
    wpc[1] = warps / wpc[0];
    LinearLayout acc = layout::mmaV2Accumulator({m, n}, wpc);
    LinearLayout blk = layout::defaultBlocked({m, n}, warps, 4, {1, 0});
    checkConvert({{m, n}, Scalar::F32, acc, blk, warps});
    checkConvert({{m, n}, Scalar::F16, blk, acc, warps});
    LinearLayout a = layout::mmaV2Operand(0, {m, n}, wpc, 16);
    EXPECT_GE(count(checkConvert({{m, n}, Scalar::F16, blk, a, warps}), "ldmatrix.sync.aligned.m8n8.x4.shared.b16"), 1);
    LinearLayout b = layout::mmaV2Operand(1, {m, n}, wpc, 16);
    EXPECT_GE(count(checkConvert({{m, n}, Scalar::BF16, blk, b, warps}), "ldmatrix"), 1);
    checkConvert({{m, n}, Scalar::I16, blk, b, warps});
    LinearLayout tf = layout::mmaV2Operand(0, {m, n}, wpc, 32);
    checkConvert({{m, n}, Scalar::F32, blk, tf, warps});
    if (m >= 32) checkConvert({{m, n}, Scalar::I8, blk, layout::mmaV2Operand(1, {m, n}, wpc, 8), warps});
    checkConvert({{m, n}, Scalar::F32, acc, a, warps});
  }
}

TEST(OpsConvert, BackToBackConversionsAreOrderedByBarriers) {
  // Two shared-memory conversions in a row reuse the scratch: the simulator flags a missing barrier.
  LinearLayout r = layout::defaultBlocked({32, 32}, 4, 4, {1, 0}), c = layout::defaultBlocked({32, 32}, 4, 4, {0, 1});
  std::string text = "func @k(%x: ptr<f32>, %y: ptr<f32>) {\n" + pointersIn("a", "x", {32, 32}, "f32", r) +
                     "  %v = load %a_p : " + tileType({32, 32}, "f32", r) + "\n" +
                     "  %w = convert_layout %v : " + tileType({32, 32}, "f32", c) + "\n" +
                     "  %u = convert_layout %w : " + tileType({32, 32}, "f32", r) + "\n" +
                     pointersIn("b", "y", {32, 32}, "f32", r) + "  store %b_p, %u\n  return\n}\n";
  Bytes x = randomElems(Scalar::F32, 1024, 3);
  SimResult res = simulate(text, {"x", "y"}, {x, Bytes(x.size())}, 4);
  ASSERT_EQ(res.error, "");
  EXPECT_EQ(res.buffers[1], x);
  EXPECT_EQ(res.sharedBytes, 4096);
}

TEST(OpsConvert, PointerTilesMoveTheirOffsets) {
  // ptr_add(splat(x), offsets) is held as base + 32-bit offsets: converting it moves the offsets only.
  LinearLayout r = layout::defaultBlocked({32, 32}, 4, 4, {1, 0}), c = layout::defaultBlocked({32, 32}, 4, 1, {0, 1});
  const std::string pt = tileType({32, 32}, "ptr<f32>", c);
  std::string text = "func @k(%x: ptr<f32>, %y: ptr<f32>) {\n" + pointersIn("a", "x", {32, 32}, "f32", r) +
                     "  %q = convert_layout %a_p : " + pt + "\n" +
                     "  %v = load %q : " + tileType({32, 32}, "f32", c) + "\n" + pointersIn("b", "y", {32, 32}, "f32", c) +
                     "  store %b_p, %v\n  return\n}\n";
  EXPECT_EQ(assembleBoth(text, 4), "");
  Bytes x = randomElems(Scalar::F32, 1024, 5);
  SimResult res = simulate(text, {"x", "y"}, {x, Bytes(x.size())}, 4);
  ASSERT_EQ(res.error, "");
  EXPECT_EQ(res.buffers[1], x);
  std::string b = body(res.ptx);
  EXPECT_EQ(count(b, ".b64 [") + count(b, ".u64 ["), 0) << b;  // no 64-bit pointer went through shared memory
  EXPECT_GE(count(b, "st.shared"), 1);
}

TEST(OpsConvert, RandomLayoutPairs) {
  std::mt19937 rng(2024);
  const Scalar types[] = {Scalar::F32, Scalar::F16, Scalar::I8, Scalar::I64, Scalar::I1, Scalar::BF16};
  int viaShared = 0, viaShuffles = 0, viaLdmatrix = 0, viaStmatrix = 0;
  for (int i = 0; i < 60; ++i) {
    int warps = 1 << (rng() % 4);
    std::vector<int64_t> shape = i % 3 == 0 ? std::vector<int64_t>{int64_t(64) << (rng() % 3)}
                                            : std::vector<int64_t>{int64_t(8) << (rng() % 3), int64_t(16) << (rng() % 3)};
    LinearLayout src = randomLayout(shape, warps, rng), dst = randomLayout(shape, warps, rng);
    if (i % 3 == 1) {  // the same warp's data, dealt differently to registers and lanes: warp-local
      std::vector<layout::Basis> pool = src.ins()[0].bases;
      for (const layout::Basis& b : src.ins()[1].bases) pool.push_back(b);
      if (rng() % 2) std::shuffle(pool.begin(), pool.end(), rng);
      else std::swap(pool[rng() % pool.size()], pool[pool.size() - 1 - rng() % 5]);
      std::vector<layout::Basis> lanes(pool.end() - 5, pool.end()), regs(pool.begin(), pool.end() - 5);
      dst = withBases(withBases(src, "lane", lanes), "register", regs);
    }
    if (!src.isSurjective() || !dst.isSurjective()) continue;
    Scalar t = types[i % 6];
    SCOPED_TRACE("case " + std::to_string(i) + ": " + src.str() + " -> " + dst.str() + " " + scalarName(t));
    std::string text = convertKernel(shape, scalarName(t), src, dst);
    Bytes x = randomElems(t, numelOf(shape), uint32_t(i), 100.0);
    SimResult r = simulate(text, {"x", "y"}, {x, Bytes(x.size(), 0xEE)}, warps, i % 2 ? ptx::kSm90a : ptx::kSm80);
    ASSERT_EQ(r.error, "") << r.ptx;
    for (int64_t k = 0; k < numelOf(shape); ++k) {
      ASSERT_EQ(ir::toBits(t, readElem(r.buffers[1], t, k)), ir::toBits(t, readElem(x, t, k))) << "element " << k;
    }
    viaShared += count(r.ptx, "bar.sync") > 0;
    viaShuffles += count(r.ptx, "shfl.sync") > 0;
    viaLdmatrix += count(r.ptx, "ldmatrix") > 0;
    viaStmatrix += count(r.ptx, "stmatrix") > 0;
    if (i % 10 == 0) {
      EXPECT_EQ(assembleBoth(text, warps), "");
    }
  }
  EXPECT_GE(viaShared, 10);
  EXPECT_GE(viaShuffles, 5);
  RecordProperty("through_shared", viaShared);
  RecordProperty("with_ldmatrix", viaLdmatrix);
  RecordProperty("with_stmatrix", viaStmatrix);
  RecordProperty("with_shuffles", viaShuffles);
}

TEST(OpsConvert, LargeTilesGoInRounds) {
  // 128x128 f32 (64 KB) from the mma accumulator to a blocked layout: 16 KB of scratch, 4 rounds.
  LinearLayout acc = layout::mmaV2Accumulator({128, 128}, {2, 2}), blk = layout::defaultBlocked({128, 128}, 4, 4, {1, 0});
  std::string text = convertKernel({128, 128}, "f32", acc, blk);
  Bytes x = randomElems(Scalar::F32, 128 * 128, 9);
  SimResult r = simulate(text, {"x", "y"}, {x, Bytes(x.size())}, 4);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.buffers[1], x);
  EXPECT_EQ(r.sharedBytes, 16 * 1024);
  EXPECT_EQ(count(r.ptx, "bar.sync"), 8);
  EXPECT_EQ(assembleBoth(text, 4), "");
  // f16 operands from a blocked tile: 128x64 f16 is 16 KB, one round; 256x128 f16 splits.
  LinearLayout a = layout::mmaV2Operand(0, {256, 128}, {4, 2}, 16), b = layout::defaultBlocked({256, 128}, 8, 8, {1, 0});
  text = convertKernel({256, 128}, "f16", b, a);
  x = randomElems(Scalar::F16, 256 * 128, 10);
  r = simulate(text, {"x", "y"}, {x, Bytes(x.size())}, 8);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.buffers[1], x);
  EXPECT_LE(r.sharedBytes, 16 * 1024);
  EXPECT_GE(count(r.ptx, "ldmatrix"), 1);
}

TEST(OpsConvert, LargeTilesTakeTheBuffersBytesAtOnce) {
  // The same 64 KB conversion after a 64 KB buffer's last use: allocate_shared gives it the buffer's
  // bytes, so it goes in one round (two barriers, wider accesses) and the kernel needs no more shared
  // memory than the buffer.
  LinearLayout acc = layout::mmaV2Accumulator({128, 128}, {2, 2}), blk = layout::defaultBlocked({128, 128}, 4, 4, {1, 0});
  std::string text = convertKernel({128, 128}, "f32", acc, blk);
  const std::string convert = "  %w = convert_layout %v";
  ASSERT_NE(text.find(convert), std::string::npos);
  text.replace(text.find(convert), convert.size(),
               "  %buf = shared_alloc : shared<128x128xf32>\n  local_store %buf, %v\n  %u = local_load %buf : " +
                   tileType({128, 128}, "f32", acc) + "\n  %w = convert_layout %u");
  Bytes x = randomElems(Scalar::F32, 128 * 128, 11);
  SimResult r = simulate(text, {"x", "y"}, {x, Bytes(x.size())}, 4);
  ASSERT_EQ(r.error, "") << r.ptx;
  EXPECT_EQ(r.buffers[1], x);
  EXPECT_EQ(r.sharedBytes, 64 * 1024);
  EXPECT_EQ(count(r.ptx, "in 4 rounds"), 0);
  EXPECT_EQ(count(r.ptx, "convert_layout through shared memory"), 1);
  // 64 pairs per thread for the buffer's store and 64 for the conversion's: no round splits a pair.
  EXPECT_EQ(count(r.ptx, "st.shared.v2.f32"), 128);
  EXPECT_EQ(assembleBoth(text, 4), "");
}

TEST(OpsConvert, AccumulatorTilesStoreWithStmatrixOnSm90) {
  // An f16 tile in the mma accumulator layout (pairs of columns per lane, 8 rows per 4 lanes: ldmatrix's
  // fragments) to the blocked store layout: on sm_90 the stores are stmatrix.x4 (4 registers of 2 pairs
  // each, one instruction per 8 elements of a lane) instead of one st.shared per pair; on sm_80 they stay
  // st.shared. Both move every element exactly.
  for (const bool hopper : {true, false}) {
    SCOPED_TRACE(hopper ? "sm_90a" : "sm_80");
    LinearLayout acc = layout::mmaV2Accumulator({128, 64}, {2, 2}), blk = layout::defaultBlocked({128, 64}, 4, 8, {1, 0});
    std::string text = convertKernel({128, 64}, "f16", acc, blk);
    Bytes x = randomElems(Scalar::F16, 128 * 64, 12);
    SimResult r = simulate(text, {"x", "y"}, {x, Bytes(x.size())}, 4, hopper ? ptx::kSm90a : ptx::kSm80);
    ASSERT_EQ(r.error, "") << r.ptx;
    EXPECT_EQ(r.buffers[1], x);
    // 64 elements per thread: 8 stmatrix.x4, or 32 pairs stored alone.
    EXPECT_EQ(count(r.ptx, "stmatrix.sync.aligned.m8n8.x4.shared.b16"), hopper ? 8 : 0) << r.ptx;
    if (!hopper) EXPECT_EQ(count(r.ptx, "st.shared.v2.b16") + count(r.ptx, "st.shared.b32"), 32) << r.ptx;
  }
}

TEST(OpsScratch, RoundsSplitRegisterOnlyBits) {
  LinearLayout acc = uniqueRegisters(layout::mmaV2Accumulator({64, 64}, {2, 2})).compact;
  LinearLayout blk = uniqueRegisters(layout::defaultBlocked({64, 64}, 4, 4, {1, 0})).compact;
  ScratchRounds r = splitIntoRounds(acc, blk, 1024);
  ASSERT_EQ(r.numRounds(), 4);
  EXPECT_EQ(r.src.totalOutSize(), 1024);
  EXPECT_EQ(r.dst.totalOutSize(), 1024);
  // Round c, register i of a reduced layout holds the element of register expand(i, c) of the whole one
  // with the split coordinate bits (which equal c) taken out.
  for (auto [whole, reduced, bits] : {std::tuple{&acc, &r.src, &r.srcBits}, {&blk, &r.dst, &r.dstBits}})
    for (int32_t c = 0; c < 4; ++c)
      for (int32_t i = 0; i < reduced->getInDimSize("register"); ++i)
        for (int32_t lane : {0, 7, 30})
          for (int32_t w : {0, 3}) {
            uint64_t f = whole->flattenOut(whole->apply(std::vector<int32_t>{ScratchRounds::expand(i, c, *bits), lane, w}));
            uint64_t g = reduced->flattenOut(reduced->apply(std::vector<int32_t>{i, lane, w}));
            uint64_t kept = 0, split = 0;
            int at = 0;
            for (int o = 0; o < 12; ++o) {
              auto k = std::find(r.outBits.begin(), r.outBits.end(), o);
              if (k != r.outBits.end()) split |= (f >> o & 1) << (k - r.outBits.begin());
              else kept |= (f >> o & 1) << at++;
            }
            EXPECT_EQ(kept, g);
            EXPECT_EQ(split, uint64_t(c));
          }
  EXPECT_EQ(ScratchRounds::expand(0b101, 0b10, {1, 3}), 0b11001);  // r fills bits 0, 2, 4; c bits 1, 3
  // Nothing to split when the tile fits.
  EXPECT_EQ(splitIntoRounds(acc, blk, 4096).numRounds(), 1);
}

// ---- the scratch layout choice

TEST(OpsScratch, WavefrontsCountBankConflicts) {
  // 32 lanes reading one f32 column of a 32x32 row-major tile: all in one bank.
  LinearLayout col = layout::defaultBlocked({32, 32}, 1, 1, {0, 1});
  LinearLayout offs = layout::sharedOffsets(uniqueRegisters(col).compact, layout::sharedPlain({32, 32}, {1, 0}));
  EXPECT_EQ(sharedWavefronts(offs, 1, 4), 32 * 32);
  // Reading rows instead: conflict-free, one wavefront per instruction.
  LinearLayout row = layout::defaultBlocked({32, 32}, 1, 1, {1, 0});
  offs = layout::sharedOffsets(uniqueRegisters(row).compact, layout::sharedPlain({32, 32}, {1, 0}));
  EXPECT_EQ(sharedWavefronts(offs, 1, 4), 32);
  // 16-byte accesses: four phases of eight lanes each.
  LinearLayout v4 = layout::defaultBlocked({32, 32}, 1, 4, {1, 0});
  offs = layout::sharedOffsets(uniqueRegisters(v4).compact, layout::sharedPlain({32, 32}, {1, 0}));
  EXPECT_EQ(sharedWavefronts(offs, 4, 4), 8 * 4);
}

// Wavefronts of storing `src` and loading `dst` through `shared` with the widest vectors.
int64_t cost(const LinearLayout& src, const LinearLayout& dst, const LinearLayout& shared, int bytes) {
  int64_t c = 0;
  for (const LinearLayout* l : {&src, &dst}) {
    int32_t vec = std::min(16 / bytes, layout::sharedVectorWidth(*l, shared));
    c += sharedWavefronts(layout::sharedOffsets(*l, shared), vec, bytes);
  }
  return c;
}

TEST(OpsScratch, TransposePlanBeatsPlainTiles) {
  for (auto [n, bytes] : {std::pair{64, 4}, {32, 4}, {64, 2}, {32, 8}, {128, 1}}) {
    SCOPED_TRACE(std::to_string(n) + " x " + std::to_string(bytes) + " bytes");
    LinearLayout src = uniqueRegisters(layout::defaultBlocked({n, n}, 4, 16 / bytes, {1, 0})).compact;
    LinearLayout dst = uniqueRegisters(layout::defaultBlocked({n, n}, 4, 16 / bytes, {0, 1})).compact;
    ScratchPlan p = planScratch(src, dst, bytes);
    int64_t rowMajor = cost(src, dst, layout::sharedPlain({n, n}, {1, 0}), bytes);
    int64_t colMajor = cost(src, dst, layout::sharedPlain({n, n}, {0, 1}), bytes);
    EXPECT_LT(p.wavefronts, std::min(rowMajor, colMajor)) << p.shared.str();
    EXPECT_EQ(p.wavefronts, cost(src, dst, p.shared, bytes));
  }
  // 32x32 f32: a 128-byte row per bank sweep; the swizzle makes both sides conflict-free.
  LinearLayout src = uniqueRegisters(layout::defaultBlocked({32, 32}, 4, 4, {1, 0})).compact;
  LinearLayout dst = uniqueRegisters(layout::defaultBlocked({32, 32}, 4, 4, {0, 1})).compact;
  ScratchPlan p = planScratch(src, dst, 4);
  EXPECT_EQ(p.wavefronts, 2 * 4 + 8) << p.shared.str();  // 2 v4 stores (4 phases each), 8 scalar loads
}

}  // namespace
}  // namespace kiln::lower::test
