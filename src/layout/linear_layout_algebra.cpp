// The GF(2) algebra of LinearLayout: rank, free variables, vector widths, compose, inverses and
// invertAndCompose (the core of every layout conversion).
#include <algorithm>

#include "layout/gf2.h"
#include "layout/linear_layout.h"

namespace kiln::layout {

int LinearLayout::rank() const {
  EchelonBasis eb;
  for (uint64_t c : columns()) eb.add(c, 0);
  return eb.rank();
}

DimMasks LinearLayout::getFreeVariableMasks() const {
  EchelonBasis eb;
  DimMasks result;
  for (const InDim& d : ins_) {
    int32_t mask = 0;
    for (size_t bit = 0; bit < d.bases.size(); ++bit)
      if (!eb.add(flattenOut(d.bases[bit]), 0)) mask |= int32_t(1) << bit;
    result.masks.emplace_back(d.name, mask);
  }
  return result;
}

int32_t LinearLayout::getNumConsecutiveInOut(std::string_view inDim, std::string_view outDim) const {
  int i = inDimIndex(inDim);
  const std::vector<Basis>& bases = ins_[i].bases;
  auto isStep = [&](const Basis& b, int j, int bit) {
    for (size_t jj = 0; jj < b.size(); ++jj)
      if (b[jj] != (int(jj) == j ? int32_t(1) << bit : 0)) return false;
    return true;
  };
  int j = -1;
  if (!outDim.empty()) {
    j = outDimIndex(outDim);
  } else if (!bases.empty()) {
    for (size_t jj = 0; jj < outs_.size() && j < 0; ++jj)
      if (isStep(bases[0], int(jj), 0)) j = int(jj);
  }
  if (j < 0) return 1;
  int k = 0;
  while (k < int(bases.size()) && isStep(bases[k], j, k)) ++k;
  // Every other input bit must leave the low k bits of dim j alone, or a vector would start unaligned
  // (and its elements would come in a permuted order).
  for (; k > 0; --k) {
    int32_t low = (int32_t(1) << k) - 1;
    bool aligned = true;
    for (size_t ii = 0; ii < ins_.size(); ++ii)
      for (size_t bit = 0; bit < ins_[ii].bases.size(); ++bit)
        if (!(int(ii) == i && int(bit) < k) && (ins_[ii].bases[bit][j] & low)) aligned = false;
    if (aligned) break;
  }
  return int32_t(1) << k;
}

LinearLayout LinearLayout::compose(const LinearLayout& outer) const {
  if (outer.ins_.size() != outs_.size())
    layoutBug("compose: " + outer.str() + " does not take the outputs of " + str());
  std::vector<int> pos;  // position in outer's inputs of each of this's out dims
  for (const OutDim& o : outs_) {
    int i = outer.findIn(o.name);
    if (i < 0 || outer.ins_[i].size() < o.size)
      layoutBug("compose: " + outer.str() + " does not take the outputs of " + str());
    pos.push_back(i);
  }
  std::vector<InDim> ins;
  for (const InDim& d : ins_) {
    InDim nd{d.name, {}};
    for (const Basis& b : d.bases) {
      std::vector<int32_t> values(outer.ins_.size(), 0);
      for (size_t j = 0; j < b.size(); ++j) values[pos[j]] = b[j];
      nd.bases.push_back(outer.apply(values));
    }
    ins.push_back(std::move(nd));
  }
  return LinearLayout(std::move(ins), outer.outs_);
}

// Echelon basis of a layout's columns, each tagged with its flattened input bit.
static EchelonBasis columnBasis(const LinearLayout& l) {
  EchelonBasis eb;
  std::vector<uint64_t> cols = l.columns();
  for (size_t k = 0; k < cols.size(); ++k) eb.add(cols[k], uint64_t(1) << k);
  return eb;
}

LinearLayout LinearLayout::pseudoinvert() const {
  EchelonBasis eb = columnBasis(*this);
  std::vector<InDim> ins;
  int shift = 0;
  for (const OutDim& o : outs_) {
    InDim nd{o.name, {}};
    for (int bit = 0; (int32_t(1) << bit) < o.size; ++bit)
      nd.bases.push_back(unflattenIn(eb.reduce(uint64_t(1) << (shift + bit)).tag));
    shift += int(nd.bases.size());
    ins.push_back(std::move(nd));
  }
  std::vector<OutDim> outs;
  for (const InDim& d : ins_) outs.push_back({d.name, d.size()});
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::invert() const {
  if (!isInvertible()) layoutBug("invert: not invertible: " + str());
  return pseudoinvert();
}

std::vector<std::vector<uint64_t>> LinearLayout::invertAndComposeFlat(const LinearLayout& other) const {
  if (other.outs_.size() != outs_.size())
    layoutBug("invertAndCompose: out dims differ: " + str() + " vs " + other.str());
  std::vector<int> pos;  // position in other's outputs of each of this's out dims
  for (const OutDim& o : outs_) {
    int j = other.findOut(o.name);
    if (j < 0) layoutBug("invertAndCompose: out dims differ: " + str() + " vs " + other.str());
    pos.push_back(j);
  }
  EchelonBasis eb = columnBasis(other);
  Basis coords(other.outs_.size(), 0);
  std::vector<std::vector<uint64_t>> images;
  for (const InDim& d : ins_) {
    std::vector<uint64_t>& image = images.emplace_back();
    for (const Basis& b : d.bases) {
      bool fits = true;
      for (size_t j = 0; j < b.size(); ++j) {
        coords[pos[j]] = b[j];
        fits = fits && b[j] < other.outs_[pos[j]].size;
      }
      EchelonBasis::Reduced r = eb.reduce(fits ? other.flattenOut(coords) : 0);
      if (!fits || r.residual != 0)
        layoutBug("invertAndCompose: the image of " + str() + " is not inside the image of " + other.str());
      image.push_back(r.tag);
    }
  }
  return images;
}

LinearLayout LinearLayout::invertAndCompose(const LinearLayout& other) const {
  std::vector<std::vector<uint64_t>> images = invertAndComposeFlat(other);
  std::vector<InDim> ins;
  for (size_t i = 0; i < ins_.size(); ++i) {
    InDim nd{ins_[i].name, {}};
    for (uint64_t tag : images[i]) nd.bases.push_back(other.unflattenIn(tag));
    ins.push_back(std::move(nd));
  }
  std::vector<OutDim> outs;
  for (const InDim& d : other.ins_) outs.push_back({d.name, d.size()});
  return LinearLayout(std::move(ins), std::move(outs));
}

}  // namespace kiln::layout
