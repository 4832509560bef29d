// ldmatrix as linear layouts and the search for an ldmatrix plan: the instruction's own layout, inverted
// and composed with the register-to-shared map, must put each fragment row in 16 contiguous bytes.
#include "layout/ldmatrix.h"

#include <bit>
#include <optional>
#include <span>

#include "layout/conversions.h"
#include "layout/gf2.h"

namespace kiln::layout {
namespace {

using L = LinearLayout;

void checkArgs(int numMatrices, int elemBits) {
  if (numMatrices != 1 && numMatrices != 2 && numMatrices != 4) layoutBug("ldmatrix: numMatrices must be 1, 2 or 4");
  if (elemBits != 8 && elemBits != 16 && elemBits != 32) layoutBug("ldmatrix: elemBits must be 8, 16 or 32");
}

const std::vector<std::string> kMatrixDims = {std::string(kMatrix), std::string(kRow), std::string(kCol)};

}  // namespace

LinearLayout ldmatrixTile(int numMatrices, int elemBits, bool trans) {
  checkArgs(numMatrices, elemBits);
  if (trans && elemBits != 16) layoutBug("ldmatrix: .trans needs 16-bit elements");
  L l;
  if (!trans) {
    l = L::identity1D(32 / elemBits, kRegister, kCol) * L::identity1D(4, kLane, kCol) *
        L::identity1D(8, kLane, kRow);
  } else {
    l = L::identity1D(2, kRegister, kRow) * L::identity1D(4, kLane, kRow) * L::identity1D(8, kLane, kCol);
  }
  l *= L::identity1D(numMatrices, kRegister, kMatrix);
  return l.transposeOuts(kMatrixDims);
}

LinearLayout ldmatrixRowAddresses(int numMatrices, int elemBits) {
  checkArgs(numMatrices, elemBits);
  L l = L::identity1D(8, kLane, kRow) * L::identity1D(numMatrices, kLane, kMatrix) *
        L::zeros1D(4 / numMatrices, kLane, kCol, 128 / elemBits);
  return l.transposeOuts(kMatrixDims);
}

namespace {

int numIndex(int numMatrices) { return numMatrices == 4 ? 2 : numMatrices == 2 ? 1 : 0; }

// plan()'s first test of rowsToOffsets = inverted.compose(instr), on a one-dim `instr` ((register,
// lane) -> offset) without building the composed layout, so that the shared layouts a search rejects
// cost no allocation: col bases 1, 2, 4, .. (a row's 16 contiguous bytes), matrix and row bases 16-byte
// aligned. regAt(k) and laneAt(k) are the offsets of the instruction's register and lane bits.
template <class RegAt, class LaneAt>
bool rowsFit(const LinearLayout& inverted, size_t numRegs, RegAt regAt, size_t numLanes, LaneAt laneAt, int rowBits) {
  const int regOut = inverted.outDimIndex(kRegister), laneOut = inverted.outDimIndex(kLane);
  auto offsetOf = [&](const Basis& b) {
    int32_t o = 0;
    for (size_t k = 0; k < numRegs; ++k)
      if (b[size_t(regOut)] >> k & 1) o ^= regAt(k);
    for (size_t k = 0; k < numLanes; ++k)
      if (b[size_t(laneOut)] >> k & 1) o ^= laneAt(k);
    return o;
  };
  const int32_t rowMask = (1 << rowBits) - 1;
  for (const InDim& d : inverted.ins())
    for (size_t b = 0; b < d.bases.size(); ++b) {
      int32_t o = offsetOf(d.bases[b]);
      if (d.name == kCol ? int(b) < rowBits && o != int32_t(1) << b : (o & rowMask) != 0) return false;
    }
  return true;
}

}  // namespace

LdmatrixPlanner::LdmatrixPlanner(int elemBits) : elemBits_(elemBits) {
  checkArgs(1, elemBits);
  for (int num : {1, 2, 4}) {
    for (bool trans : {false, true}) {
      // .trans exists for 16-bit elements only; its slot stays empty otherwise.
      invertedTiles_.push_back(trans && elemBits != 16 ? L() : ldmatrixTile(num, elemBits, trans).invert());
    }
    rowAddresses_.push_back(ldmatrixRowAddresses(num, elemBits));
  }
}

const LdmatrixPlanner& LdmatrixPlanner::of(int elemBits) {
  checkArgs(1, elemBits);
  static const LdmatrixPlanner p8(8), p16(16), p32(32);  // const after construction: shared by threads
  return elemBits == 8 ? p8 : elemBits == 16 ? p16 : p32;
}

std::optional<LdmatrixPlan> LdmatrixPlanner::plan(const LinearLayout& offsets) const {
  // offsets has the register layout's in dims: (register, lane, warp) -> offset.
  if (!offsets.hasInDim(kRegister) || !offsets.hasInDim(kLane) || offsets.getInDimSize(kLane) != 32)
    return std::nullopt;
  const std::vector<Basis>& regBases = offsets.ins()[offsets.inDimIndex(kRegister)].bases;
  int rowBits = std::countr_zero(unsigned(128 / elemBits_));
  int perRegBits = std::countr_zero(unsigned(32 / elemBits_));
  auto aligned = [&](const Basis& b) { return (b[0] & ((1 << rowBits) - 1)) == 0; };
  for (int num : {4, 2, 1}) {
    int consumed = perRegBits + std::countr_zero(unsigned(num));
    if (int(regBases.size()) < consumed) continue;
    // The part of `offsets` one instruction covers: its registers and all lanes (built once a shared layout
    // passes rowsFit, which reads the bases where they are).
    const std::span<const Basis> instrRegs(regBases.data(), size_t(consumed));
    const std::vector<Basis>& laneBases = offsets.ins()[offsets.inDimIndex(kLane)].bases;
    std::optional<L> instr;
    for (bool trans : {false, true}) {
      if (trans && elemBits_ != 16) continue;
      if (offsets.outs().size() == 1 &&
          !rowsFit(invertedTiles_[size_t(numIndex(num) * 2 + trans)], instrRegs.size(),
                   [&](size_t k) { return instrRegs[k][0]; }, laneBases.size(),
                   [&](size_t k) { return laneBases[k][0]; }, rowBits))
        continue;
      if (!instr)
        instr.emplace(std::vector<InDim>{InDim{std::string(kRegister), {instrRegs.begin(), instrRegs.end()}},
                                         offsets.ins()[offsets.inDimIndex(kLane)]},
                      offsets.outs());
      // (matrix, row, col) -> offset
      L rowsToOffsets = invertedTiles_[size_t(numIndex(num) * 2 + trans)].compose(*instr);
      bool ok = true;
      for (int b = 0; b < rowBits; ++b) ok = ok && rowsToOffsets.basis(kCol, b) == Basis{int32_t(1) << b};
      for (std::string_view d : {kMatrix, kRow})
        for (const Basis& b : rowsToOffsets.ins()[rowsToOffsets.inDimIndex(d)].bases) ok = ok && aligned(b);
      if (!ok) continue;
      std::vector<InDim> ins{{std::string(kRegister), {regBases.begin() + consumed, regBases.end()}}};
      ins.push_back(rowAddresses_[size_t(numIndex(num))].compose(rowsToOffsets).ins()[0]);
      for (const InDim& d : offsets.ins())
        if (d.name != kRegister && d.name != kLane) ins.push_back(d);
      for (const InDim& d : ins)
        if (d.name != kLane)
          for (const Basis& b : d.bases) ok = ok && aligned(b);
      if (ok) return LdmatrixPlan{num, trans, int32_t(1) << consumed, L(std::move(ins), offsets.outs())};
    }
  }
  return std::nullopt;
}

bool LdmatrixPlanner::mayPlan(std::span<const int64_t> registerOffsets, std::span<const int64_t> laneOffsets) const {
  if (laneOffsets.size() != 5) return false;  // 32 lanes
  const int rowBits = std::countr_zero(unsigned(128 / elemBits_));
  const int perRegBits = std::countr_zero(unsigned(32 / elemBits_));
  for (int num : {4, 2, 1}) {
    const int consumed = perRegBits + std::countr_zero(unsigned(num));
    if (int(registerOffsets.size()) < consumed) continue;
    for (bool trans : {false, true}) {
      if (trans && elemBits_ != 16) continue;
      if (rowsFit(invertedTiles_[size_t(numIndex(num) * 2 + trans)], size_t(consumed),
                  [&](size_t k) { return int32_t(registerOffsets[k]); }, laneOffsets.size(),
                  [&](size_t k) { return int32_t(laneOffsets[k]); }, rowBits))
        return true;
    }
  }
  return false;
}

std::optional<LdmatrixPlan> planLdmatrix(const LinearLayout& regs, const LinearLayout& shared, int elemBits) {
  checkArgs(1, elemBits);
  if (!regs.hasInDim(kRegister) || !regs.hasInDim(kLane) || regs.getInDimSize(kLane) != 32) return std::nullopt;
  return LdmatrixPlanner(elemBits).plan(sharedOffsets(regs, shared));
}

}  // namespace kiln::layout
