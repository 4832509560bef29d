// Named layouts as products of 1-D identities: blocked, slice, mma.sync and wgmma fragments, shared
// tiles with XOR swizzles. The fragment shapes follow /work/shared/PTX-NOTES.md (mma.sync, wgmma).
#include "layout/named_layouts.h"

#include <algorithm>
#include <bit>
#include <string>

#include "layout/gf2.h"

namespace kiln::layout {
namespace {

using L = LinearLayout;

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

void checkPow2s(const std::vector<int64_t>& v, size_t rank, const char* what) {
  if (v.size() != rank) layoutBug(std::string(what) + " has the wrong rank");
  for (int64_t x : v)
    if (!isPow2(x) || x > (1 << 30)) layoutBug(std::string(what) + " holds " + std::to_string(x) + ", not a power of two");
}

void checkPow2s(const std::vector<int32_t>& v, size_t rank, const char* what) {
  checkPow2s(std::vector<int64_t>(v.begin(), v.end()), rank, what);
}

void checkOrder(const std::vector<int32_t>& order, size_t rank) {
  std::vector<int32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != int32_t(i) || sorted.size() != rank) layoutBug("order is not a permutation of the dims");
}

// A layout over (register, lane, warp) -> (dim0 .. dim{rank-1}) with no bits yet, to multiply onto.
L emptyRegisterLayout(size_t rank) {
  L l;
  for (size_t d = 0; d < rank; ++d) l *= L::identity1D(1, kRegister, dimName(int(d)));
  return l * L::identity1D(1, kLane, dimName(0)) * L::identity1D(1, kWarp, dimName(0));
}

int32_t atLeast1(int64_t v) { return int32_t(std::max<int64_t>(1, v)); }

// Coordinates modulo the shape: a hardware tile larger than the shape holds each element several times.
L wrapToShape(const L& l, const std::vector<int64_t>& shape) {
  std::vector<OutDim> outs = l.outs();
  std::vector<InDim> ins = l.ins();
  for (size_t j = 0; j < outs.size(); ++j) {
    if (outs[j].size < shape[j]) layoutBug("layout " + l.str() + " does not cover the shape");
    outs[j].size = int32_t(shape[j]);
    for (InDim& d : ins)
      for (Basis& b : d.bases) b[j] &= int32_t(shape[j] - 1);
  }
  return L(std::move(ins), std::move(outs));
}

}  // namespace

std::vector<int32_t> rowMajorOrder(int rank) {
  std::vector<int32_t> order;
  for (int d = rank - 1; d >= 0; --d) order.push_back(d);
  return order;
}

LinearLayout blocked(const std::vector<int64_t>& shape, const std::vector<int32_t>& sizePerThread,
                     const std::vector<int32_t>& threadsPerWarp, const std::vector<int32_t>& warpsPerCTA,
                     const std::vector<int32_t>& order) {
  size_t rank = shape.size();
  checkPow2s(shape, rank, "blocked: shape");
  checkPow2s(sizePerThread, rank, "blocked: sizePerThread");
  checkPow2s(threadsPerWarp, rank, "blocked: threadsPerWarp");
  checkPow2s(warpsPerCTA, rank, "blocked: warpsPerCTA");
  checkOrder(order, rank);
  L l = emptyRegisterLayout(rank);
  for (int32_t d : order) l *= L::identity1D(sizePerThread[d], kRegister, dimName(d));
  for (int32_t d : order) l *= L::identity1D(threadsPerWarp[d], kLane, dimName(d));
  for (int32_t d : order) l *= L::identity1D(warpsPerCTA[d], kWarp, dimName(d));
  for (int32_t d : order) {
    int64_t tile = int64_t(sizePerThread[d]) * threadsPerWarp[d] * warpsPerCTA[d];
    l *= L::identity1D(atLeast1(shape[d] / tile), kRegister, dimName(d));
  }
  return wrapToShape(l, shape);
}

LinearLayout defaultBlocked(const std::vector<int64_t>& shape, int32_t numWarps, int32_t vecElems,
                            const std::vector<int32_t>& order) {
  size_t rank = shape.size();
  checkPow2s(shape, rank, "defaultBlocked: shape");
  checkOrder(order, rank);
  if (!isPow2(numWarps) || !isPow2(vecElems)) layoutBug("defaultBlocked: numWarps and vecElems must be powers of two");
  std::vector<int32_t> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  spt[order[0]] = int32_t(std::min<int64_t>(vecElems, shape[order[0]]));
  int32_t lanesLeft = 32, warpsLeft = numWarps;
  for (int32_t d : order) {
    int64_t extent = shape[d] / spt[d];
    tpw[d] = int32_t(std::min<int64_t>(lanesLeft, extent));
    lanesLeft /= tpw[d];
    extent /= tpw[d];
    wpc[d] = int32_t(std::min<int64_t>(warpsLeft, extent));
    warpsLeft /= wpc[d];
  }
  tpw[order.back()] *= lanesLeft;
  wpc[order.back()] *= warpsLeft;
  return blocked(shape, spt, tpw, wpc, order);
}

LinearLayout sliceLayout(const LinearLayout& parent, int dim) {
  int rank = int(parent.outs().size());
  if (dim < 0 || dim >= rank) layoutBug("sliceLayout: no dim " + std::to_string(dim) + " in " + parent.str());
  std::vector<std::string> kept;
  for (int j = 0; j < rank; ++j)
    if (j != dim) kept.push_back(parent.outs()[j].name);
  L sub = parent.sublayout(parent.inDimNames(), kept);
  std::vector<InDim> ins = sub.ins();
  for (InDim& d : ins) {
    if (d.name != kRegister) continue;
    std::erase_if(d.bases, [](const Basis& b) { return std::all_of(b.begin(), b.end(), [](int32_t c) { return c == 0; }); });
  }
  return L(std::move(ins), sub.outs()).renameOuts(standardOutDims(rank - 1));
}

namespace {
Basis truncatedBasis(Basis b, int dim, int32_t size) {
  b[size_t(dim)] &= size - 1;
  return b;
}
bool isZero(const Basis& b) { return std::all_of(b.begin(), b.end(), [](int32_t c) { return c == 0; }); }
}  // namespace

LinearLayout truncateDim(const LinearLayout& parent, int dim, int32_t size) {
  const int rank = int(parent.outs().size());
  if (dim < 0 || dim >= rank) layoutBug("truncateDim: no dim " + std::to_string(dim) + " in " + parent.str());
  if (!isPow2(size) || size > parent.outs()[size_t(dim)].size)
    layoutBug("truncateDim: size " + std::to_string(size) + " for " + parent.str());
  std::vector<InDim> ins = parent.ins();
  for (InDim& d : ins) {
    for (Basis& b : d.bases) b = truncatedBasis(b, dim, size);
    if (d.name == kRegister) std::erase_if(d.bases, isZero);
  }
  std::vector<OutDim> outs = parent.outs();
  outs[size_t(dim)].size = size;
  return L(std::move(ins), std::move(outs));
}

bool keepsRegisterBit(const LinearLayout& parent, int dim, int32_t size, int bit) {
  return !isZero(truncatedBasis(parent.basis(kRegister, bit), dim, size));
}

LinearLayout mmaV2Accumulator(const std::vector<int64_t>& shape, const std::vector<int32_t>& warpsPerCTA) {
  checkPow2s(shape, 2, "mmaV2Accumulator: shape");
  checkPow2s(warpsPerCTA, 2, "mmaV2Accumulator: warpsPerCTA");
  if (shape[0] < 16 || shape[1] < 8) layoutBug("mmaV2Accumulator: shape below 16x8");
  std::string m = dimName(0), n = dimName(1);
  L l = emptyRegisterLayout(2) * L::identity1D(2, kRegister, n) * L::identity1D(4, kLane, n) *
        L::identity1D(8, kLane, m) * L::identity1D(2, kRegister, m);
  l *= L::identity1D(warpsPerCTA[1], kWarp, n) * L::identity1D(warpsPerCTA[0], kWarp, m);
  l *= L::identity1D(atLeast1(shape[1] / (8 * warpsPerCTA[1])), kRegister, n);
  l *= L::identity1D(atLeast1(shape[0] / (16 * warpsPerCTA[0])), kRegister, m);
  return wrapToShape(l, shape);
}

LinearLayout mmaV2Operand(int opIdx, const std::vector<int64_t>& shape, const std::vector<int32_t>& warpsPerCTA,
                          int bitWidth) {
  checkPow2s(shape, 2, "mmaV2Operand: shape");
  checkPow2s(warpsPerCTA, 2, "mmaV2Operand: warpsPerCTA");
  if (opIdx != 0 && opIdx != 1) layoutBug("mmaV2Operand: opIdx must be 0 (A) or 1 (B)");
  if (bitWidth != 8 && bitWidth != 16 && bitWidth != 32) layoutBug("mmaV2Operand: bitWidth must be 8, 16 or 32");
  int32_t perReg = 32 / bitWidth;  // elements packed in one 32-bit register, along K
  int32_t kTile = 8 * perReg;      // 16 for 16-bit, 32 for 8-bit, 8 for tf32
  std::string row = dimName(0), col = dimName(1);
  L l = emptyRegisterLayout(2);
  if (opIdx == 0) {
    if (shape[0] < 16 || shape[1] < kTile) layoutBug("mmaV2Operand: A shape below one fragment");
    // A [M, K]: (row g, k = perReg*t + i) for the first register group, then +8 rows, then +kTile/2 columns.
    l *= L::identity1D(perReg, kRegister, col) * L::identity1D(4, kLane, col) * L::identity1D(8, kLane, row) *
         L::identity1D(2, kRegister, row) * L::identity1D(2, kRegister, col);
    l *= L::zeros1D(warpsPerCTA[1], kWarp, col) * L::identity1D(warpsPerCTA[0], kWarp, row);
    l *= L::identity1D(atLeast1(shape[1] / kTile), kRegister, col);
    l *= L::identity1D(atLeast1(shape[0] / (16 * warpsPerCTA[0])), kRegister, row);
  } else {
    if (shape[0] < kTile || shape[1] < 8) layoutBug("mmaV2Operand: B shape below one fragment");
    // B [K, N]: (k = perReg*t + i, n = g), then +kTile/2 along K. Then the n-tiles and the k-slices of
    // the warp, the n-tiles first when it has 8 or more: one ldmatrix.x4 then loads two n-tiles of one
    // k-slice, so a dot that loads its fragments a slice at a time holds one slice of B, not two (fp16
    // matmul 128x256x64 on 8 warps: 429 -> 456 TFLOP/s at 4096^3, H200; attention's P @ V at head dim
    // 128: 36 bytes of spills to none). With fewer n-tiles the k-slices stay first (an x4 covers two
    // slices of one n-tile); smaller warp tiles were not measured the other way.
    const int64_t kSlices = atLeast1(shape[0] / kTile), nTiles = atLeast1(shape[1] / (8 * warpsPerCTA[1]));
    l *= L::identity1D(perReg, kRegister, row) * L::identity1D(4, kLane, row) * L::identity1D(8, kLane, col) *
         L::identity1D(2, kRegister, row);
    l *= L::identity1D(warpsPerCTA[1], kWarp, col) * L::zeros1D(warpsPerCTA[0], kWarp, row);
    if (nTiles >= 8)
      l *= L::identity1D(int32_t(nTiles), kRegister, col) * L::identity1D(int32_t(kSlices), kRegister, row);
    else
      l *= L::identity1D(int32_t(kSlices), kRegister, row) * L::identity1D(int32_t(nTiles), kRegister, col);
  }
  return wrapToShape(l, shape);
}

LinearLayout wgmmaAccumulator(const std::vector<int64_t>& shape, int32_t instrN,
                              const std::vector<int32_t>& warpsPerCTA) {
  checkPow2s(shape, 2, "wgmmaAccumulator: shape");
  checkPow2s(warpsPerCTA, 2, "wgmmaAccumulator: warpsPerCTA");
  if (!isPow2(instrN) || instrN < 8 || instrN > 256) layoutBug("wgmmaAccumulator: instrN must be 8..256, a power of two");
  if (warpsPerCTA[0] < 4) layoutBug("wgmmaAccumulator: warpsPerCTA[0] must be a multiple of 4");
  if (shape[0] < 64 || shape[1] < instrN) layoutBug("wgmmaAccumulator: shape below one instruction tile");
  std::string m = dimName(0), n = dimName(1);
  L l = emptyRegisterLayout(2) * L::identity1D(2, kRegister, n) * L::identity1D(4, kLane, n) *
        L::identity1D(8, kLane, m) * L::identity1D(2, kRegister, m) * L::identity1D(instrN / 8, kRegister, n) *
        L::identity1D(4, kWarp, m);
  l *= L::identity1D(warpsPerCTA[1], kWarp, n) * L::identity1D(warpsPerCTA[0] / 4, kWarp, m);
  l *= L::identity1D(atLeast1(shape[1] / (int64_t(instrN) * warpsPerCTA[1])), kRegister, n);
  l *= L::identity1D(atLeast1(shape[0] / (16 * warpsPerCTA[0])), kRegister, m);
  return wrapToShape(l, shape);
}

LinearLayout wgmmaOperandA(const std::vector<int64_t>& shape, const std::vector<int32_t>& warpsPerCTA) {
  checkPow2s(shape, 2, "wgmmaOperandA: shape");
  checkPow2s(warpsPerCTA, 2, "wgmmaOperandA: warpsPerCTA");
  if (warpsPerCTA[0] < 4) layoutBug("wgmmaOperandA: warpsPerCTA[0] must be a multiple of 4");
  if (shape[0] < 64 || shape[1] < 16) layoutBug("wgmmaOperandA: shape below one 64x16 fragment");
  std::string m = dimName(0), k = dimName(1);
  L l = emptyRegisterLayout(2) * L::identity1D(2, kRegister, k) * L::identity1D(4, kLane, k) *
        L::identity1D(8, kLane, m) * L::identity1D(2, kRegister, m) * L::identity1D(2, kRegister, k) *
        L::identity1D(4, kWarp, m);
  l *= L::zeros1D(warpsPerCTA[1], kWarp, k) * L::identity1D(warpsPerCTA[0] / 4, kWarp, m);
  l *= L::identity1D(atLeast1(shape[1] / 16), kRegister, k);
  l *= L::identity1D(atLeast1(shape[0] / (16 * warpsPerCTA[0])), kRegister, m);
  return wrapToShape(l, shape);
}

std::vector<uint64_t> sharedSwizzledBits(const std::vector<int64_t>& shape, int32_t vec, int32_t perPhase,
                                         int32_t maxPhase, const std::vector<int32_t>& order) {
  size_t rank = shape.size();
  checkPow2s(shape, rank, "sharedSwizzled: shape");
  checkPow2s(std::vector<int32_t>{vec, perPhase, maxPhase}, 3, "sharedSwizzled: vec/perPhase/maxPhase");
  checkOrder(order, rank);
  std::vector<int> shift(rank + 1, 0);  // where each dim's coordinate starts in the flattened bits
  for (size_t d = 0; d < rank; ++d) shift[d + 1] = shift[d] + std::countr_zero(uint64_t(shape[d]));
  std::vector<uint64_t> bits;
  for (size_t i = 0; i < rank; ++i) {
    int32_t d = order[i];
    for (int64_t v = 1; v < shape[d]; v *= 2) {
      uint64_t b = uint64_t(v) << shift[size_t(d)];
      // Row bit v flips the vec-chunk index of the contiguous dim by its share of the phase.
      if (i == 1) b |= uint64_t((int64_t(vec) * ((v / perPhase) % maxPhase)) % shape[order[0]]) << shift[size_t(order[0])];
      bits.push_back(b);
    }
  }
  return bits;
}

LinearLayout sharedSwizzled(const std::vector<int64_t>& shape, int32_t vec, int32_t perPhase, int32_t maxPhase,
                            const std::vector<int32_t>& order) {
  std::vector<uint64_t> bits = sharedSwizzledBits(shape, vec, perPhase, maxPhase, order);
  std::vector<OutDim> outs;
  for (size_t d = 0; d < shape.size(); ++d) outs.push_back({dimName(int(d)), int32_t(shape[d])});
  InDim offset{std::string(kOffset), {}};
  for (uint64_t b : bits) {
    Basis coords;
    for (const OutDim& o : outs) {
      coords.push_back(int32_t(b & uint64_t(o.size - 1)));
      b >>= std::countr_zero(uint32_t(o.size));
    }
    offset.bases.push_back(std::move(coords));
  }
  return L({offset}, std::move(outs));
}

LinearLayout sharedPlain(const std::vector<int64_t>& shape, const std::vector<int32_t>& order) {
  return sharedSwizzled(shape, 1, 1, 1, order);
}

}  // namespace kiln::layout
