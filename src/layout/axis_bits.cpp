// axisBits: reads the bits of one out dim off a register layout's bases (see axis_bits.h).
#include "layout/axis_bits.h"

#include <bit>

namespace kiln::layout {

namespace {

enum class Kind { Reg, Lane, Warp };

struct Source {
  Kind kind;
  int bit;
};

}  // namespace

std::optional<AxisBits> axisBits(const LinearLayout& l, int axis) {
  const int rank = int(l.outs().size());
  if (axis < 0 || axis >= rank) return std::nullopt;
  const int axisBitCount = l.getOutDimSizeLog2(dimName(axis));
  std::vector<std::optional<Source>> sourceOf(static_cast<size_t>(axisBitCount));
  AxisBits out;
  for (Kind kind : {Kind::Reg, Kind::Lane, Kind::Warp}) {
    std::string_view in = kind == Kind::Reg ? kRegister : kind == Kind::Lane ? kLane : kWarp;
    if (!l.hasInDim(in)) continue;
    for (int b = 0; b < l.getInDimSizeLog2(in); ++b) {
      const Basis& basis = l.basis(in, b);
      const int32_t along = basis[size_t(axis)];
      bool other = false;
      for (int d = 0; d < rank; ++d) other = other || (d != axis && basis[size_t(d)] != 0);
      if (along == 0) {
        if (kind == Kind::Reg && other) out.regOther.push_back(b);
        continue;
      }
      if (other || !std::has_single_bit(uint32_t(along))) return std::nullopt;
      const int j = std::countr_zero(uint32_t(along));
      if (sourceOf[size_t(j)]) return std::nullopt;  // two input bits for one coordinate bit
      sourceOf[size_t(j)] = Source{kind, b};
    }
  }
  // In axis order: registers, lanes, warps, registers; lane and warp bits consecutive.
  int stage = 0;  // 0 low registers, 1 lanes, 2 warps, 3 high registers
  for (int j = 0; j < axisBitCount; ++j) {
    if (!sourceOf[size_t(j)]) return std::nullopt;
    const Source s = *sourceOf[size_t(j)];
    const int want = s.kind == Kind::Lane ? 1 : s.kind == Kind::Warp ? 2 : (stage == 0 ? 0 : 3);
    if (want < stage) return std::nullopt;
    stage = want;
    switch (s.kind) {
      case Kind::Reg: (stage == 0 ? out.regLow : out.regHigh).push_back(s.bit); break;
      case Kind::Lane:
        if (out.lanes == 0) out.laneFirst = s.bit;
        else if (s.bit != out.laneFirst + out.lanes) return std::nullopt;
        ++out.lanes;
        break;
      case Kind::Warp:
        if (out.warps == 0) out.warpFirst = s.bit;
        else if (s.bit != out.warpFirst + out.warps) return std::nullopt;
        ++out.warps;
        break;
    }
  }
  return out;
}

}  // namespace kiln::layout
