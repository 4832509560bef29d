// LinearLayout: a linear map over GF(2) from the bits of hardware indices (register, lane, warp or
// offset) to the bits of tile coordinates (dim0, dim1, ...). Every register and shared-memory layout of
// kiln is one; see docs/layouts.md for the maths, the text form and the named constructors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::layout {

// Conventional input dimension names.
inline constexpr std::string_view kRegister = "register";  // element index within one thread
inline constexpr std::string_view kLane = "lane";
inline constexpr std::string_view kWarp = "warp";
inline constexpr std::string_view kOffset = "offset";  // element offset in a shared-memory buffer

// "dim0", "dim1", ...: tile dimensions, dim0 outermost (row-major).
std::string dimName(int i);
std::vector<std::string> standardOutDims(int rank);

// The output coordinates of one input bit: one integer per output dimension, in out-dim order.
using Basis = std::vector<int32_t>;

struct InDim {
  std::string name;
  std::vector<Basis> bases;  // bases[i] is the image of input bit i; the dim has 2^bases.size() values
  int32_t size() const { return int32_t(1) << bases.size(); }
  bool operator==(const InDim&) const = default;
};

struct OutDim {
  std::string name;
  int32_t size = 1;  // a power of two
  bool operator==(const OutDim&) const = default;
};

// One bit mask per input dimension, in a layout's in-dim order.
struct DimMasks {
  std::vector<std::pair<std::string, int32_t>> masks;
  int32_t get(std::string_view dim) const;  // 0 when the dim is absent
  bool operator==(const DimMasks&) const = default;
};

// Named integers, one per dimension (inputs to or outputs of apply()).
using DimValues = std::vector<std::pair<std::string, int32_t>>;

class LinearLayout {
 public:
  // The empty layout: no dims; the unit of operator*.
  LinearLayout() = default;
  // Throws InternalError when the dims are malformed (see validate()).
  LinearLayout(std::vector<InDim> ins, std::vector<OutDim> outs);
  // Out-dim sizes inferred: the smallest power of two holding every basis coordinate.
  static LinearLayout withInferredOuts(std::vector<InDim> ins, const std::vector<std::string>& outNames);

  // "" when (ins, outs) form a valid layout, else what is wrong: unique non-empty names, power-of-two
  // out sizes up to 2^30, one coordinate per out dim in range, at most 62 input and 62 output bits.
  static std::string validate(const std::vector<InDim>& ins, const std::vector<OutDim>& outs);

  // i -> i along outDim.
  static LinearLayout identity1D(int32_t size, std::string_view inDim, std::string_view outDim);
  // Every input -> 0 (broadcast); outDim gets size outSize.
  static LinearLayout zeros1D(int32_t size, std::string_view inDim, std::string_view outDim,
                              int32_t outSize = 1);
  // i -> i * stride along outDim (out size size * stride).
  static LinearLayout strided1D(int32_t size, int32_t stride, std::string_view inDim,
                                std::string_view outDim);

  // --- dimensions
  const std::vector<InDim>& ins() const { return ins_; }
  const std::vector<OutDim>& outs() const { return outs_; }
  std::vector<std::string> inDimNames() const;
  std::vector<std::string> outDimNames() const;
  bool hasInDim(std::string_view name) const { return findIn(name) >= 0; }
  bool hasOutDim(std::string_view name) const { return findOut(name) >= 0; }
  int inDimIndex(std::string_view name) const;   // throws InternalError when absent
  int outDimIndex(std::string_view name) const;  // throws InternalError when absent
  int32_t getInDimSize(std::string_view name) const;
  int getInDimSizeLog2(std::string_view name) const;
  int32_t getOutDimSize(std::string_view name) const;
  int getOutDimSizeLog2(std::string_view name) const;
  int64_t totalInSize() const { return int64_t(1) << totalInBits(); }
  int64_t totalOutSize() const { return int64_t(1) << totalOutBits(); }
  int totalInBits() const;
  int totalOutBits() const;
  const Basis& basis(std::string_view inDim, int bit) const;
  int32_t basis(std::string_view inDim, int bit, std::string_view outDim) const;

  // --- evaluation: the XOR of the bases of the set input bits.
  // One value per in dim, in in-dim order -> one value per out dim, in out-dim order.
  std::vector<int32_t> apply(std::span<const int32_t> inputs) const;
  // Named form: every in dim exactly once, in any order; result in out-dim order.
  DimValues apply(const DimValues& inputs) const;

  // --- properties of the GF(2) matrix
  int rank() const;
  bool isSurjective() const { return rank() == totalOutBits(); }
  bool isInjective() const { return rank() == totalInBits(); }
  bool isInvertible() const { return isSurjective() && isInjective(); }
  // Input bits that add no new output: scanning bits in in-dim order (register, lane, warp), low bit
  // first, a bit is free when its basis lies in the span of the bases before it (zero bases are free).
  // Inputs differing only in free bits hold duplicated (broadcast) data.
  DimMasks getFreeVariableMasks() const;
  // The largest 2^k such that inDim's bits 0..k-1 step by 1, 2, .., 2^(k-1) along outDim and no other
  // input bit touches the low k bits of outDim: 2^k consecutive values of inDim starting at a multiple
  // of 2^k land on consecutive, aligned, increasing coordinates (a vector). An empty outDim means the
  // out dim along which inDim's bit 0 steps by exactly 1 (the fastest-moving one); 1 when there is none.
  int32_t getNumConsecutiveInOut(std::string_view inDim = kRegister, std::string_view outDim = {}) const;

  // --- building
  // Product: in dims and out dims combine (this's first, then other's new ones); a dim present in both
  // gets other's bits above this's bits (its out size multiplies).
  LinearLayout operator*(const LinearLayout& other) const;
  LinearLayout& operator*=(const LinearLayout& other) { return *this = *this * other; }
  LinearLayout transposeIns(const std::vector<std::string>& order) const;   // a permutation of names
  LinearLayout transposeOuts(const std::vector<std::string>& order) const;
  // Flatten all in (out) dims row-major (the last dim fastest) and split the result row-major into the
  // new dims; total sizes must agree. Transpose first to flatten in another order.
  LinearLayout reshapeIns(const std::vector<std::pair<std::string, int32_t>>& newIns) const;
  LinearLayout reshapeOuts(const std::vector<std::pair<std::string, int32_t>>& newOuts) const;
  // Keeps the listed in dims and out dims (in this layout's order); other out coordinates are dropped.
  LinearLayout sublayout(const std::vector<std::string>& inDims,
                         const std::vector<std::string>& outDims) const;
  LinearLayout renameIns(const std::vector<std::string>& names) const;   // one new name per in dim
  LinearLayout renameOuts(const std::vector<std::string>& names) const;  // one new name per out dim

  // --- algebra
  // this, then outer: outer's in dims are this's out dims (any order, sizes >= this's out sizes).
  LinearLayout compose(const LinearLayout& outer) const;
  // The inverse of an invertible layout (ins and outs swap roles); throws InternalError otherwise.
  LinearLayout invert() const;
  // A generalized inverse P (outs -> ins) with L(P(L(x))) == L(x): a right inverse of a surjective
  // layout, a left inverse of an injective one, invert() of an invertible one. Preimages use only
  // non-free input bits; output vectors outside the image lose their non-image part.
  LinearLayout pseudoinvert() const;
  // The map M from this's inputs to other's inputs with other(M(x)) == this(x) for every x: how to
  // find in layout `other` the data this layout holds. Both have the same out dim names. Where `other`
  // is not injective, preimages prefer earlier input bits (registers over lanes over warps) and never
  // use free bits. Throws InternalError when this's image is not inside other's.
  LinearLayout invertAndCompose(const LinearLayout& other) const;
  // The same map as numbers: for each in dim of this (in order), each bit's image in other's inputs,
  // flattened (other's in-dim bits in order). invertAndCompose is these, unflattened.
  std::vector<std::vector<uint64_t>> invertAndComposeFlat(const LinearLayout& other) const;

  bool operator==(const LinearLayout& o) const { return ins_ == o.ins_ && outs_ == o.outs_; }
  size_t hash() const;

  // `{register=[[0,1],[0,2]], lane=[[1,0]], warp=[]} -> [dim0=2, dim1=4]`; parse(str()) == *this.
  std::string str() const;
  // Throws CompileError (no location; the message names the column) on malformed or invalid text.
  static LinearLayout parse(std::string_view text);

  // --- the matrix view, for algorithms over GF(2). Output bits are flattened with out dim 0 lowest,
  // each dim's bits low to high; input bits likewise in in-dim order.
  uint64_t flattenOut(std::span<const int32_t> coords) const;
  Basis unflattenOut(uint64_t bits) const;
  uint64_t flattenIn(std::span<const int32_t> inputs) const;
  std::vector<int32_t> unflattenIn(uint64_t bits) const;
  std::vector<uint64_t> columns() const;  // the flattened image of each flattened input bit

 private:
  int findIn(std::string_view name) const;
  int findOut(std::string_view name) const;

  std::vector<InDim> ins_;
  std::vector<OutDim> outs_;
};

}  // namespace kiln::layout

template <>
struct std::hash<kiln::layout::LinearLayout> {
  size_t operator()(const kiln::layout::LinearLayout& l) const { return l.hash(); }
};
