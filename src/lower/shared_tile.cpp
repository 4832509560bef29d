// Storing registers into a planned shared-memory tile and reading them back (lower/shared_tile.h).
#include "lower/shared_tile.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <utility>
#include <set>
#include <span>

#include "ptx/isel.h"
#include "ptx/memory.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using layout::LinearLayout;
using ptx::Reg;

namespace {

// For each register of `to`, its compact register in `dst` (the distinct register holding the same element).
std::vector<int32_t> compactIndices(const ir::Op& op, const UniqueRegisters& dst, const LinearLayout& to) {
  // (coordinates, compact register), sorted by coordinates: the first register of equal ones first.
  const std::vector<uint64_t> have = layout::registerImages(dst.compact);
  std::vector<std::pair<uint64_t, int32_t>> byCoords;
  byCoords.reserve(dst.original.size());
  for (size_t c = 0; c < dst.original.size(); ++c) byCoords.emplace_back(have.at(c), int32_t(c));
  std::sort(byCoords.begin(), byCoords.end());
  std::vector<int32_t> out;
  for (uint64_t want : layout::registerImages(to)) {
    auto it = std::lower_bound(byCoords.begin(), byCoords.end(), std::make_pair(want, INT32_MIN));
    if (it == byCoords.end() || it->first != want)
      throw InternalError(op.loc, "convert_layout: register without a distinct source");
    out.push_back(it->second);
  }
  return out;
}

// The row address this lane gives instruction q of an ldmatrix or stmatrix plan (one register: the
// instructions take no immediate offset).
Reg matrixRowAddress(Codegen& cg, SharedAddresses& addrs, const layout::LdmatrixPlan& plan, size_t q) {
  SharedAddresses::Address a = addrs.at(registerPart(plan.rowOffsets, int32_t(q), 0));
  if (a.offset == 0) return a.reg;
  Reg address = cg.e.reg(ptx::RegClass::B32);
  cg.e.inst("add.u32", {address, a.reg, a.offset});
  return address;
}

// Instruction q of an ldmatrix plan into `regs` (the E registers it fills).
void loadLdmatrixGroup(Codegen& cg, ir::Scalar t, SharedAddresses& addrs, const layout::LdmatrixPlan& lm, size_t q,
                       std::span<const Reg> regs) {
  ptx::Entry& e = cg.e;
  const int bytes = memBytes(t), perWord = 4 / bytes;
  const Reg address = matrixRowAddress(cg, addrs, lm, q);
  std::vector<Reg> words;
  for (int j = 0; j < lm.numMatrices; ++j) words.push_back(e.reg(ptx::RegClass::B32));
  ptx::ldmatrix(e, words, address, lm.trans);
  for (int j = 0; j < lm.numMatrices; ++j) {
    const size_t first = size_t(j * perWord);
    Reg w = words[size_t(j)];
    if (bytes == 4) {
      e.inst("mov.b32", {regs[first], w});
    } else if (regs[first].cls == ptx::RegClass::B16) {
      ptx::unpack16x2(e, w, regs[first], regs[first + 1]);
    } else {  // i16 / u16 in .b32 registers, extended
      const char* bfe = ir::isSigned(t) ? "bfe.s32" : "bfe.u32";
      e.inst(bfe, {regs[first], w, 0, 16});
      e.inst(bfe, {regs[first + 1], w, 16, 16});
    }
  }
}

}  // namespace

CopySource::CopySource(Codegen& cg, const ir::Value* ptr, const ir::Value* m) : n(size_t(Codegen::numRegs(ptr->type))) {
  if (const Codegen::PtrTile* pt = cg.ptrTile(ptr)) tile = *pt;
  else plain = cg.regs(ptr);
  if (m) mask = m->type.isTensor() ? cg.regs(m) : std::vector<Reg>(n, cg.reg(m));
}

void copyToShared(Codegen& cg, const CopySource& src, SharedAddresses& storeAt, const LinearLayout& storeOffsets,
                  int32_t vec, int copyBytes, ptx::Guard guard) {
  ptx::Entry& e = cg.e;
  for (size_t r = 0; r < src.n; r += size_t(vec)) {
    SharedAddresses::Address a = storeAt.at(registerPart(storeOffsets, int32_t(r), 0));
    Reg from = src.tile ? cg.ptrAddress(*src.tile, r) : src.plain.at(r);
    std::optional<ptx::Operand> srcBytes;
    if (!src.mask.empty()) {  // a masked-off vector reads nothing and fills zeros
      Reg size = e.reg(ptx::RegClass::B32);
      e.inst("selp.b32", {size, copyBytes, 0, src.mask.at(r)});
      srcBytes = size;
    }
    ptx::cpAsync(e, a.reg, from, copyBytes, srcBytes, false, a.offset, guard);
  }
}

const ScratchPlan& Codegen::sharedPlan(const LinearLayout& shared, const LinearLayout& regs, int elemBytes) {
  for (const SharedPlan& p : sharedPlans_)
    if (p.elemBytes == elemBytes && p.shared == shared && p.regs == regs) return p.plan;
  const layout::UniqueRegisters unique = layout::uniqueRegisters(regs);
  ScratchPlan plan = layout::planWithShared(shared, unique.compact, unique.compact, elemBytes, e.target().sm >= 90);
  return sharedPlans_.emplace_back(SharedPlan{shared, regs, elemBytes, std::move(plan)}).plan;
}

void storeTile(Codegen& cg, Reg base, const LinearLayout& shared, const ir::Value* value) {
  storeTile(cg, base, shared, value, cg.regs(value));
}

void storeTile(Codegen& cg, Reg base, const LinearLayout& shared, const ir::Value* value, const std::vector<Reg>& regs) {
  const ir::Scalar t = value->type.elem;
  UniqueRegisters src = uniqueRegisters(*value->type.layout);
  const ScratchPlan& plan = cg.sharedPlan(shared, *value->type.layout, memBytes(t));
  std::vector<Reg> compact;
  for (int32_t r : src.original) compact.push_back(regs.at(size_t(r)));
  SharedAddresses at(cg, base, threadPart(cg, storeOffsetsOf(plan), 0), threadMask(storeOffsetsOf(plan), 0), memBytes(t));
  storeWithPlan(cg, t, at, plan, compact);
}

const LinearLayout& storeOffsetsOf(const ScratchPlan& plan) {
  return plan.stmatrix ? plan.stmatrix->rowOffsets : plan.storeOffsets;
}

namespace {

// The compact source registers `regs` with the stmatrix plan (sm_90, 16-bit elements): instruction q
// stores registers [q * E, (q + 1) * E), two to each 32-bit word.
void storeWithStmatrix(Codegen& cg, ir::Scalar t, SharedAddresses& addrs, const layout::LdmatrixPlan& sm,
                       const std::vector<Reg>& regs) {
  ptx::Entry& e = cg.e;
  if (memBytes(t) != 2) throw InternalError({}, "stmatrix stores 16-bit elements");
  const size_t n = size_t(sm.elemsPerInstr);
  for (size_t q = 0; q * n < regs.size(); ++q) {
    const Reg address = matrixRowAddress(cg, addrs, sm, q);
    std::vector<Reg> words;
    for (size_t j = 0; j < size_t(sm.numMatrices); ++j) {
      const Reg lo = regs.at(q * n + 2 * j), hi = regs.at(q * n + 2 * j + 1);
      if (lo.cls == ptx::RegClass::B16) {
        words.push_back(ptx::pack16x2(e, lo, hi));
      } else {  // i16 / u16 in .b32 registers: the low halves of both
        Reg w = e.reg(ptx::RegClass::B32);
        e.inst("prmt.b32", {w, lo, hi, int64_t(0x5410)});
        words.push_back(w);
      }
    }
    ptx::stmatrix(e, address, words, sm.trans);
  }
}

}  // namespace

void storeWithPlan(Codegen& cg, ir::Scalar t, SharedAddresses& addrs, const ScratchPlan& plan,
                   const std::vector<Reg>& regs) {
  if (plan.stmatrix) storeWithStmatrix(cg, t, addrs, *plan.stmatrix, regs);
  else accessShared(cg, true, t, addrs, plan.storeOffsets, plan.storeVec, regs);
}

void accessShared(Codegen& cg, bool store, ir::Scalar t, SharedAddresses& addrs, const LinearLayout& offsets, int32_t vec,
                  const std::vector<Reg>& regs) {
  for (size_t c = 0; c < regs.size(); c += size_t(vec)) {
    SharedAddresses::Address a = addrs.at(registerPart(offsets, int32_t(c), 0));
    std::span<const Reg> group(regs.data() + c, size_t(vec));
    if (store) ptx::storeVector(cg.e, ptx::Space::Shared, t, group, a.reg, a.offset);
    else ptx::loadVector(cg.e, ptx::Space::Shared, t, group, a.reg, a.offset);
  }
}

void loadWithLdmatrix(Codegen& cg, ir::Scalar t, SharedAddresses& addrs, const layout::LdmatrixPlan& lm,
                      const std::vector<Reg>& regs) {
  const size_t e = size_t(lm.elemsPerInstr);
  for (size_t q = 0; q * e < regs.size(); ++q)
    loadLdmatrixGroup(cg, t, addrs, lm, q, std::span<const Reg>(regs).subspan(q * e, e));
}

std::vector<Reg> withDuplicates(const ir::Op& op, const UniqueRegisters& dst, const LinearLayout& to,
                                const std::vector<Reg>& loaded) {
  std::vector<Reg> out;
  for (int32_t c : compactIndices(op, dst, to)) out.push_back(loaded.at(size_t(c)));
  return out;
}

// ---------------------------------------------------------------- SharedTileReader

static const LinearLayout& loadOffsetsOf(const ScratchPlan& plan) {
  return plan.ldmatrix ? plan.ldmatrix->rowOffsets : plan.loadOffsets;
}

Reg SharedTileReader::threadOffsetOf(Codegen& cg, const ScratchPlan& plan) {
  return threadPart(cg, loadOffsetsOf(plan), 0);
}

SharedTileReader::SharedTileReader(Codegen& cg, const ir::Op& op, ScratchPlan plan, Reg base, ir::Scalar t,
                                   const LinearLayout& to, Reg threadOffset)
    : cg_(cg),
      op_(op),
      plan_(std::move(plan)),
      t_(t),
      to_(to),
      dst_(uniqueRegisters(to)),
      addrs_(cg, base, threadOffset.valid() ? threadOffset : threadOffsetOf(cg, plan_), threadMask(loadOffsetsOf(plan_), 0),
             memBytes(t)),
      groupSize_(plan_.ldmatrix ? plan_.ldmatrix->elemsPerInstr : plan_.loadVec),
      compactOf_(compactIndices(op, dst_, to)),
      compact_(dst_.original.size()) {
}

std::vector<Reg> SharedTileReader::loadGroupNow(int32_t g) {
  const size_t first = size_t(g) * size_t(groupSize_);
  std::vector<Reg> regs;
  for (int32_t i = 0; i < groupSize_; ++i) regs.push_back(cg_.e.reg(ptx::regClassOf(t_)));
  if (plan_.ldmatrix) {
    loadLdmatrixGroup(cg_, t_, addrs_, *plan_.ldmatrix, size_t(g), regs);
  } else {
    SharedAddresses::Address a = addrs_.at(registerPart(plan_.loadOffsets, int32_t(first), 0));
    ptx::loadVector(cg_.e, ptx::Space::Shared, t_, regs, a.reg, a.offset);
  }
  return regs;
}

void SharedTileReader::adopt(int32_t g, const std::vector<Reg>& regs) {
  const size_t first = size_t(g) * size_t(groupSize_);
  if (regs.size() != size_t(groupSize_)) throw InternalError(op_.loc, "shared tile: adopted group of the wrong size");
  for (size_t i = 0; i < regs.size(); ++i) compact_.at(first + i) = regs[i];
}

void SharedTileReader::loadGroup(int32_t g) { adopt(g, loadGroupNow(g)); }

std::vector<int32_t> SharedTileReader::groupsWhere(const std::function<bool(const std::vector<int32_t>&)>& pred) const {
  std::set<int32_t> groups;
  for (int32_t r = 0; r < int32_t(compactOf_.size()); ++r)
    if (pred(registerCoords(to_, r))) groups.insert(compactOf_[size_t(r)] / groupSize_);
  return {groups.begin(), groups.end()};
}

Reg SharedTileReader::at(int32_t r) {
  const int32_t c = compactOf_.at(size_t(r));
  if (!compact_[size_t(c)].valid()) loadGroup(c / groupSize_);
  return compact_[size_t(c)];
}

std::vector<Reg> SharedTileReader::all() {
  std::vector<Reg> out;
  for (int32_t r = 0; r < int32_t(compactOf_.size()); ++r) out.push_back(at(r));
  return out;
}

}  // namespace kiln::lower
