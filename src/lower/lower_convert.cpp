// convert_layout: the cheapest of three ways to move a tile between register layouts. When every thread
// already holds what it needs, registers are just renamed; when data stays inside each warp and the
// source register does not depend on the lane, one shfl.sync.idx per register; else through shared
// memory (store the distinct registers, barrier, load, barrier) in a bank-conflict-scored tile.
#include <map>
#include <optional>
#include <utility>

#include "layout/conversions.h"
#include "lower/codegen.h"
#include "lower/linear_emit.h"
#include "layout/scratch_layout.h"
#include "lower/shared_tile.h"
#include "ptx/isel.h"
#include "ptx/memory.h"
#include "ptx/warp.h"
#include "support/diagnostic.h"

namespace kiln::lower {
namespace {

using layout::LinearLayout;
using ptx::Reg;


// What a conversion moves: registers `src` of element type t from layout `from` to layout `to`.
struct Move {
  const LinearLayout& from;
  const LinearLayout& to;
  ir::Scalar t;
  const std::vector<Reg>& src;
  int64_t numel;
};

// m: (register, lane) of dst -> (register, lane) of src, with the source register index independent of
// the lane (layout::shufflesCanConvert). Returns the destination registers after the shuffles.
std::vector<Reg> convertWithShuffles(Codegen& cg, const ir::Op& op, const Move& mv, const LinearLayout& m) {
  const bool hasReg = m.hasInDim(layout::kRegister), hasLane = m.hasInDim(layout::kLane);
  auto part = [&](const std::vector<int32_t>& image, std::string_view dim) {
    return m.hasOutDim(dim) ? image[size_t(m.outDimIndex(dim))] : 0;
  };
  auto imageOf = [&](int32_t r, int32_t l) {
    std::vector<int32_t> in;
    for (const layout::InDim& d : m.ins()) in.push_back(d.name == layout::kRegister ? r : l);
    return m.apply(in);
  };
  std::vector<int32_t> laneColumns;  // source lane of each lane bit
  bool identityLanes = true;
  if (hasLane) {
    for (int b = 0; b < m.getInDimSizeLog2(layout::kLane); ++b) {
      std::vector<int32_t> img = imageOf(0, int32_t(1) << b);
      if (part(img, layout::kRegister) != 0) codegenBug(op, "convert_layout: shuffles cannot do this conversion");
      laneColumns.push_back(part(img, layout::kLane));
      identityLanes = identityLanes && laneColumns.back() == (int32_t(1) << b);
    }
  }
  identityLanes = identityLanes && laneColumns.size() == 5;
  const std::vector<Reg>& src = mv.src;
  const int32_t numRegs = inDimSize(mv.to, layout::kRegister);
  if (!hasReg && numRegs != 1) throw InternalError(op.loc, "convert_layout: warp-local map without registers");
  ptx::Entry& e = cg.e;
  Reg laneBase;  // f(lane) for a general lane map
  std::map<std::pair<int32_t, int32_t>, Reg> done;
  std::vector<Reg> out;
  for (int32_t r = 0; r < numRegs; ++r) {
    std::vector<int32_t> img = imageOf(r, 0);
    int32_t sr = part(img, layout::kRegister), sl = part(img, layout::kLane);
    auto key = std::make_pair(sr, sl);
    if (auto it = done.find(key); it != done.end()) {
      out.push_back(it->second);
      continue;
    }
    Reg v = src.at(size_t(sr));
    if (!(identityLanes && sl == 0)) {
      Reg d = e.reg(v.cls);
      if (identityLanes) {
        ptx::shuffle(e, ptx::ShflMode::Bfly, mv.t, d, v, ptx::Operand(int64_t(sl)));
      } else {
        if (!laneBase.valid()) laneBase = linearOf(cg, cg.lane(), laneColumns);
        Reg lane = laneBase;
        if (sl != 0) {
          lane = e.reg(ptx::RegClass::B32);
          e.inst("xor.b32", {lane, laneBase, int64_t(sl)});
        }
        ptx::shuffle(e, ptx::ShflMode::Idx, mv.t, d, v, lane);
      }
      v = d;
    }
    done.emplace(key, v);
    out.push_back(v);
  }
  return out;
}

std::vector<Reg> convertThroughShared(Codegen& cg, const ir::Op& op, const Move& mv) {
  const ir::Scalar t = mv.t;
  const int bytes = memBytes(t);
  UniqueRegisters src = uniqueRegisters(mv.from), dst = uniqueRegisters(mv.to);
  // As few rounds (ScratchRounds, two barriers each) as the bytes allocate_shared placed allow: the whole
  // tile at once where it fits under the buffers, else rounds of kScratchRoundBytes above
  // kScratchSplitAbove (schedule/scratch_size.h).
  if (!op.hasAttr("scratch") || op.listAttr("scratch").size() != 2)
    codegenBug(op, "no scratch placed for the conversion (allocate_shared places it)");
  ScratchRounds rounds = splitIntoRounds(src.compact, dst.compact, op.listAttr("scratch")[1] / bytes);
  ScratchPlan plan = planScratch(rounds.src, rounds.dst, bytes, cg.e.target().sm >= 90);
  const Reg base = cg.scratch(op, rounds.src.totalOutSize() * bytes).address;

  cg.e.comment("convert_layout through shared memory" +
               (rounds.numRounds() > 1 ? " in " + std::to_string(rounds.numRounds()) + " rounds" : std::string()));
  SharedAddresses storeAt(cg, base, threadPart(cg, storeOffsetsOf(plan), 0), threadMask(storeOffsetsOf(plan), 0), bytes);
  const LinearLayout& loadOffsets = plan.ldmatrix ? plan.ldmatrix->rowOffsets : plan.loadOffsets;
  SharedAddresses loadAt(cg, base, threadPart(cg, loadOffsets, 0), threadMask(loadOffsets, 0), bytes);
  const int32_t srcRegs = inDimSize(rounds.src, layout::kRegister), dstRegs = inDimSize(rounds.dst, layout::kRegister);
  std::vector<Reg> loaded(dst.original.size());
  for (int32_t c = 0; c < rounds.numRounds(); ++c) {
    std::vector<Reg> stored, part;
    for (int32_t r = 0; r < srcRegs; ++r)
      stored.push_back(mv.src.at(size_t(src.original.at(size_t(ScratchRounds::expand(r, c, rounds.srcBits))))));
    storeWithPlan(cg, t, storeAt, plan, stored);
    cg.barrier();
    for (int32_t r = 0; r < dstRegs; ++r) part.push_back(cg.e.reg(ptx::regClassOf(t)));
    if (plan.ldmatrix) loadWithLdmatrix(cg, t, loadAt, *plan.ldmatrix, part);
    else accessShared(cg, false, t, loadAt, plan.loadOffsets, plan.loadVec, part);
    // A barrier right after the reads, not left to the next write (insert_barriers): for tiles
    // this large the next write is usually the next round or the loop's next conversion, and a barrier
    // that waits until then (after a dot's mma) left ptxas more to keep live (a 16x128 one-warp matmul
    // spilled).
    cg.barrier();
    for (int32_t r = 0; r < dstRegs; ++r) loaded.at(size_t(ScratchRounds::expand(r, c, rounds.dstBits))) = part[size_t(r)];
  }

  return withDuplicates(op, dst, mv.to, loaded);
}

std::vector<Reg> convertRegisters(Codegen& cg, const ir::Op& op, const Move& mv) {
  if (std::optional<LinearLayout> m = layout::registerOnlyConversion(mv.from, mv.to)) {
    std::vector<Reg> out;
    for (int32_t r = 0; r < inDimSize(mv.to, layout::kRegister); ++r) {
      layout::DimValues in;
      for (const layout::InDim& dim : m->ins()) in.emplace_back(dim.name, dim.name == layout::kRegister ? r : 0);
      int32_t sr = 0;
      for (const auto& [name, v] : m->apply(in))
        if (name == layout::kRegister) sr = v;
      out.push_back(mv.src.at(size_t(sr)));
    }
    return out;
  }
  if (std::optional<LinearLayout> m = layout::warpLocalConversion(mv.from, mv.to))
    if (layout::shufflesCanConvert(*m)) return convertWithShuffles(cg, op, mv, *m);
  return convertThroughShared(cg, op, mv);
}

// extract_slice: the part of a tile from `offset` along `dim`, taken from the registers that hold it.
// Both layouts must give an element to the same lane and warp (a k-slice of an mma operand does).
void extractSlice(Codegen& cg, const ir::Op& op) {
  const ir::Value *x = op.operand(0), *y = op.result(0);
  const LinearLayout &from = *x->type.layout, &to = *y->type.layout;
  const size_t dim = size_t(op.intAttr("dim"));
  const int32_t offset = int32_t(op.intAttr("offset"));
  for (std::string_view in : {layout::kLane, layout::kWarp})
    if (inDimSize(from, in) != inDimSize(to, in) ||
        (from.hasInDim(in) && from.ins()[size_t(from.inDimIndex(in))].bases != to.ins()[size_t(to.inDimIndex(in))].bases))
      throw CompileError(op.loc, "extract_slice: " + to.str() + " does not keep the lanes and warps of " + from.str());
  std::map<std::vector<int32_t>, int32_t> byCoords;
  for (int32_t r = 0; r < Codegen::numRegs(x->type); ++r) byCoords.emplace(registerCoords(from, r), r);
  const std::vector<Reg>& src = cg.regs(x);
  std::vector<Reg> out;
  for (int32_t r = 0; r < Codegen::numRegs(y->type); ++r) {
    std::vector<int32_t> at = registerCoords(to, r);
    at[dim] += offset;
    auto it = byCoords.find(at);
    if (it == byCoords.end()) codegenBug(op, "no register of the tile holds an element of the slice");
    out.push_back(src.at(size_t(it->second)));
  }
  cg.bind(y, std::move(out));
}

}  // namespace

void lowerConvert(Codegen& cg, const ir::Op& op) {
  if (op.opcode == ir::Opcode::ExtractSlice) return extractSlice(cg, op);
  const ir::Value* x = op.operand(0);
  const ir::Value* y = op.result(0);
  if (!x->type.layout || !y->type.layout) throw InternalError(op.loc, "convert_layout needs layouts on both sides");
  const LinearLayout& s = *x->type.layout;
  const LinearLayout& d = *y->type.layout;
  if (const Codegen::PtrTile* pt = cg.ptrTile(x)) {
    // base + offsets: only the (32-bit) offsets move; every thread holds the same base.
    Codegen::PtrTile moved = *pt;
    if (!pt->offsets.empty()) moved.offsets = convertRegisters(cg, op, {s, d, pt->offsetType, pt->offsets, x->type.numel()});
    cg.bindPtrTile(y, std::move(moved));
    return;
  }
  cg.bind(y, convertRegisters(cg, op, {s, d, x->type.elem, cg.regs(x), x->type.numel()}));
}

}  // namespace kiln::lower
