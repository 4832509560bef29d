// A pointer load of a loop body seen as a TMA box: which rectangle of which tensor it reads in each
// iteration, for the pipeline's TMA copies of pointer-built tiles (schedule/tma_versioning.cpp).
//
// The tutorial matmul's
//
//   offs_am = (pid_m * BM + tl.arange(0, BM)) % M
//   a_ptrs = a_ptr + offs_am[:, None] * stride_am + tl.arange(0, BK)[None, :]      (stride_ak = 1)
//   for k in range(0, tl.cdiv(K, BK)):
//       a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
//       a_ptrs += BK
//
// reads, in iteration n, the box of BM x BK elements at coordinates (pid_m * BM, n * BK) of the tensor
// a_ptr[M, K] with row stride stride_am, where the mask is exactly TMA's bound on the k coordinate
// (K - n * BK + n * BK = K) and the `% M` wrap is the identity while pid_m * BM + BM <= M. A box is
// found when the pointer is a base parameter plus one term (start + arange) * stride per dim and
// uniform offsets (`a_ptr += pid_m * BM * stride_am`: u * stride moves that stride's dim by u, or with a
// stride no dim of the tile has adds a dim of its own (PointerBox::outer); any other offset moves the
// stride-1 dim, whose addresses it is), 64-bit offsets included where they are computed from 32-bit
// values (`off_z.to(tl.int64) * stride_z`), started before the loop and advanced by a fixed
// number of elements along one dim per iteration (or computed from the induction variable), and the
// mask, if any, bounds dims by values that make such an extent.
// Scalars are compared as linear forms over the values they are computed from (scalar_form.h).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"
#include "schedule/scalar_form.h"

namespace kiln::schedule {

// The extent of a dim nothing bounds: the largest a tensor map takes that a copy can use (2^32 encodes,
// but the copy faults; measured on the H200, bench/results/2026-12-04-h200-tma-probe.md).
constexpr int64_t kUnbounded = (int64_t(1) << 31) - 1;

struct BoxDim {
  int64_t size = 0;                   // the box's elements along this dim
  ScalarForm start;                   // the first coordinate, over `iteration` and values before the loop
  const ir::Value* stride = nullptr;  // the element stride as the tile computes it (hinted), or null: 1
  int64_t strideValue = 1;            // the stride when it is a constant (stride null)
  // The tensor's extent along the dim, for TMA's zero fill: a kernel parameter the mask bounds the
  // coordinate by, or the modulus of a `% M` wrap (extentParam), or a constant (the mask's, or
  // kUnbounded where nothing bounds the dim).
  const ir::Value* extentParam = nullptr;
  int64_t extentValue = kUnbounded;
  // The index is taken `% modulus` (a kernel parameter): the box is exact only while start >= 0 and
  // start + size <= modulus, which the kernel checks at run time.
  const ir::Value* modulus = nullptr;
  // What the lanes the wrap would move (start + i >= modulus) hold reaches no global write
  // (lane_reach.h): TMA's zero fill may stand for them, and the wrap needs no check.
  bool wrappedLanesDead = false;
  // The stride is a kernel parameter axis info cannot prove a multiple of 16 bytes: the kernel checks
  // that it is a multiple of this many elements before it copies (0: no check).
  int64_t checkedStrideMultiple = 0;
};

struct PointerBox {
  const ir::Value* base = nullptr;  // the pointer parameter (hinted, as the tile adds to it)
  std::vector<BoxDim> dims;         // the load's dims, outermost first
  // Dims of the tensor the tile does not span, before the load's in the tensor map: a uniform offset
  // u * stride whose stride parameter is none of the tile's (a batch's or head's base, `K +
  // off_h.to(tl.int64) * stride_kh`) is a box of one element at coordinate u along a dim of that stride,
  // unbounded (kUnbounded). At most three, which with the load's two make TMA's five.
  std::vector<BoxDim> outer;

  // The dim whose stride is the constant 1, or -1.
  int contiguousDim() const;
};

// An integer tile that is start + arange along one dim (stride 1, no wrap): what masks compare.
struct IndexRun {
  int dim = -1;
  int64_t size = 0;
  ScalarForm start;
};

// A mask conjunct `index < bound` (or `bound > index`) of an index run and a uniform bound.
struct IndexBound {
  IndexRun index;
  ScalarForm bound;
};

// The conjuncts of a mask (through and, broadcasts and layout conversions), each the bound it is or
// nothing (any other condition); scalars as forms over `loop`'s iteration (scalar_form.h).
std::vector<std::optional<IndexBound>> maskConjuncts(const ir::Op& loop, const ir::Value* mask);

// The iteration count atom of a loop: (iv - lower bound) / step, which box starts are written over.
const ir::Value* iterationAtom(const ir::Op& forOp);

// The box `load` (a load in `forOp`'s body, pointer and mask computed as findPipelineLoads takes them)
// reads, or nothing when it is not one this analysis can show. The dims' starts are forms over the
// loop's iteration atom and values defined before the loop, with the iteration's coefficient >= 0, and
// a dim the loop advances along is bounded by the mask (so copies past the end read zeros).
std::optional<PointerBox> pointerBox(const ir::Op& forOp, const ir::Op& load);

// The box a pointer store (`tl.store(c_ptrs, c, mask=c_mask)`, in no loop it advances with) writes:
// the same reading with starts over values before the store, no `% M` wrap, and the mask's bounds as
// extents, which are where a TMA store clips. Nothing when it is not one.
std::optional<PointerBox> storeBox(const ir::Op& store);

}  // namespace kiln::schedule
