// Layout-conversion helpers: shared offsets and vector widths, reduction bits, and detection of
// conversions that stay inside a thread or a warp.
#include "layout/conversions.h"

#include <algorithm>

#include "layout/gf2.h"

namespace kiln::layout {

LinearLayout sharedOffsets(const LinearLayout& regs, const LinearLayout& shared) {
  return regs.invertAndCompose(shared);
}

std::vector<std::vector<int64_t>> sharedOffsetBits(const LinearLayout& regs, const LinearLayout& shared) {
  if (shared.ins().size() != 1) layoutBug("sharedOffsetBits: " + shared.str() + " has more than an offset");
  std::vector<std::vector<int64_t>> out;
  for (const std::vector<uint64_t>& image : regs.invertAndComposeFlat(shared))
    out.emplace_back(image.begin(), image.end());  // one in dim: the flattened input is the offset
  return out;
}

int32_t sharedVectorWidth(const LinearLayout& regs, const LinearLayout& shared) {
  LinearLayout offsets = sharedOffsets(regs, shared);
  if (!offsets.hasInDim(kRegister) || !offsets.hasOutDim(kOffset)) return 1;
  return offsets.getNumConsecutiveInOut(kRegister, kOffset);
}

DimMasks reductionBits(const LinearLayout& regs, int dim) {
  int rank = int(regs.outs().size());
  if (dim < 0 || dim >= rank) layoutBug("reductionBits: no dim " + std::to_string(dim) + " in " + regs.str());
  std::vector<std::string> others;
  for (int j = 0; j < rank; ++j)
    if (j != dim) others.push_back(regs.outs()[j].name);
  // The steps must span image(regs) ∩ axis(dim), whose dimension is rank(regs) - rank(regs without dim).
  int expected = regs.rank() - regs.sublayout(regs.inDimNames(), others).rank();
  EchelonBasis steps;
  DimMasks result;
  for (const InDim& d : regs.ins()) {
    int32_t mask = 0;
    for (size_t bit = 0; bit < d.bases.size(); ++bit) {
      const Basis& b = d.bases[bit];
      bool alongDimOnly = b[dim] != 0;
      for (int j = 0; j < rank; ++j) alongDimOnly = alongDimOnly && (j == dim || b[j] == 0);
      if (alongDimOnly && steps.add(regs.flattenOut(b), 0)) mask |= int32_t(1) << bit;
    }
    result.masks.emplace_back(d.name, mask);
  }
  if (steps.rank() != expected)
    layoutBug("reductionBits: bases of " + regs.str() + " mix dim " + std::to_string(dim) + " with other dims");
  return result;
}

std::optional<LinearLayout> conversionKeeping(const LinearLayout& src, const LinearLayout& dst,
                                              const std::vector<std::string>& fixed) {
  auto isFixed = [&](const std::string& n) { return std::find(fixed.begin(), fixed.end(), n) != fixed.end(); };
  if (src.outs().size() != dst.outs().size()) layoutBug("conversionKeeping: out dims differ");
  std::vector<int> pos;  // src out position of each dst out dim
  for (const OutDim& o : dst.outs()) pos.push_back(src.outDimIndex(o.name));
  for (const std::string& f : fixed)
    if (!src.hasInDim(f) || !dst.hasInDim(f) || src.getInDimSize(f) != dst.getInDimSize(f)) return std::nullopt;
  // Columns of src's movable bits, tagged by their flattened position among all of src's input bits.
  EchelonBasis movable;
  int flat = 0;
  for (const InDim& d : src.ins())
    for (const Basis& b : d.bases) {
      if (!isFixed(d.name)) movable.add(src.flattenOut(b), uint64_t(1) << flat);
      ++flat;
    }
  std::vector<InDim> ins;
  for (const InDim& d : dst.ins()) {
    InDim nd{d.name, {}};
    for (size_t bit = 0; bit < d.bases.size(); ++bit) {
      Basis coords(src.outs().size(), 0);
      for (size_t j = 0; j < pos.size(); ++j) {
        if (d.bases[bit][j] >= src.outs()[pos[j]].size) return std::nullopt;
        coords[pos[j]] = d.bases[bit][j];
      }
      std::vector<int32_t> image(src.ins().size(), 0);
      if (isFixed(d.name)) {
        image[src.inDimIndex(d.name)] = int32_t(1) << bit;
        if (src.apply(image) != coords) return std::nullopt;
      } else {
        EchelonBasis::Reduced r = movable.reduce(src.flattenOut(coords));
        if (r.residual != 0) return std::nullopt;
        image = src.unflattenIn(r.tag);
      }
      nd.bases.push_back(std::move(image));
    }
    ins.push_back(std::move(nd));
  }
  std::vector<OutDim> outs;
  for (const InDim& d : src.ins()) outs.push_back({d.name, d.size()});
  return LinearLayout(std::move(ins), std::move(outs));
}

std::optional<LinearLayout> registerOnlyConversion(const LinearLayout& src, const LinearLayout& dst) {
  for (const LinearLayout* l : {&src, &dst})
    for (const InDim& d : l->ins())
      if (d.name != kRegister && d.name != kLane && d.name != kWarp)
        layoutBug("registerOnlyConversion: not a register layout: " + l->str());
  std::optional<LinearLayout> m = conversionKeeping(src, dst, {std::string(kLane), std::string(kWarp)});
  if (!m || !src.hasInDim(kRegister) || !dst.hasInDim(kRegister)) return m;
  return m->sublayout({std::string(kRegister)}, {std::string(kRegister)});
}

bool shufflesCanConvert(const LinearLayout& m) {
  if (!m.hasInDim(kLane) || !m.hasOutDim(kRegister)) return true;
  const size_t reg = size_t(m.outDimIndex(kRegister));
  for (int b = 0; b < m.getInDimSizeLog2(kLane); ++b) {
    std::vector<int32_t> in;
    for (const InDim& d : m.ins()) in.push_back(d.name == kLane ? int32_t(1) << b : 0);
    if (m.apply(in)[reg] != 0) return false;
  }
  return true;
}

std::optional<LinearLayout> warpLocalConversion(const LinearLayout& src, const LinearLayout& dst) {
  std::optional<LinearLayout> m = conversionKeeping(src, dst, {std::string(kWarp)});
  if (!m) return m;
  std::vector<std::string> inner;
  for (const std::string& n : {std::string(kRegister), std::string(kLane)})
    if (dst.hasInDim(n) && src.hasInDim(n)) inner.push_back(n);
  return m->sublayout(inner, inner);
}

}  // namespace kiln::layout
