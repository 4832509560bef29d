// dot and GPU IR's mma on sm_90a's warpgroup MMA (dot_layouts.h's wgmmaConfig): each warpgroup issues
// wgmma.mma_async m64 x instrN x K over its rows (and columns) of the tile, the accumulators in the
// wgmma layout, B (and A, when it is in a slot) read from shared memory through matrix descriptors. A
// slot holds its tile in wgmma's swizzled arrangement (layout/wgmma_shared.h); a B in registers (and a
// tf32, fp8 or 8-bit integer A, which have no register form here) is first stored in that arrangement
// to scratch, K-major where the type has no transpose flag. The mmas of one op form one commit group: a dot waits for it at
// once, GPU IR's mma leaves that to its mma_wait.
#include <bit>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "assign/dot_layouts.h"
#include "ir/constant_zero.h"
#include "layout/wgmma_shared.h"
#include "lower/codegen.h"
#include "lower/linear_emit.h"
#include "lower/lower_wgmma.h"
#include "lower/mma_fragments.h"
#include "lower/shared_tile.h"
#include "ptx/wgmma.h"
#include "support/diagnostic.h"

namespace kiln::lower {
namespace {

using ir::Scalar;
using layout::LinearLayout;
using layout::WgmmaTile;
using ptx::Reg;
using ptx::RegClass;

// The arrangement of a slot's tile, or nullopt when its layout is none of wgmma's.
std::optional<WgmmaTile> tileOf(const ir::Type& slot) {
  for (std::vector<int32_t> order : {std::vector<int32_t>{1, 0}, std::vector<int32_t>{0, 1}}) {
    WgmmaTile t{slot.shape, order, memBytes(slot.elem)};
    if (t.swizzleBytes() && t.rows() >= 8 && *slot.layout == layout::wgmmaShared(t)) return t;
  }
  return std::nullopt;
}

// One operand read through descriptors: this warpgroup's descriptor for the tile's origin, to which
// each instruction adds its sub-tile's offset.
struct DescribedOperand {
  WgmmaTile tile;
  Reg base;            // .b64 descriptor of this warpgroup's first sub-tile
  bool mnMajor = false;  // the contiguous dim is M (A) or N (B): the instruction's transpose flag
  Reg at(ptx::Entry& e, const std::vector<int64_t>& coords, const std::vector<int64_t>& origin) const {
    const int64_t bytes = tile.byteOffset(coords) - tile.byteOffset(origin);
    if (bytes == 0) return base;
    Reg d = e.reg(RegClass::B64);
    e.inst("add.s64", {d, base, bytes >> 4});
    return d;
  }
};

// wgOrigin: this warpgroup's first element of the tile, as (constant per warpgroup index) offsets; the
// byte offset of the warpgroup's origin is linear in the warpgroup index (whole rows, or whole column
// blocks, apart), formed at run time.
DescribedOperand describe(Codegen& cg, const ir::Op& op, Reg address, const WgmmaTile& t, int kDim,
                          const std::vector<int64_t>& wgStep, Reg wgIndex) {
  ptx::Entry& e = cg.e;
  DescribedOperand d{t, {}, t.order[0] != kDim};
  ptx::WgmmaDescriptor desc;
  desc.swizzleBytes = t.swizzleBytes();
  desc.strideBytes = 8 * int64_t(t.swizzleBytes());  // successive groups of 8 rows
  desc.leadingBytes = d.mnMajor ? t.blockBytes() : 16;  // K-major swizzled: unused
  const int64_t step = t.byteOffset(wgStep) - t.byteOffset({0, 0});
  if (step % 16) throw InternalError(op.loc, "wgmma: a warpgroup's sub-tile does not start on 16 bytes");
  Reg at = address;
  if (wgIndex.valid() && step != 0) {
    at = e.reg(RegClass::B32);
    e.inst("mad.lo.u32", {at, wgIndex, step, address});
  }
  d.base = ptx::wgmmaDescriptor(e, at, desc);
  return d;
}

// An operand in registers stored to the op's scratch in wgmma's arrangement `t` (wgmmaStagedTile), with
// the proxy fence and barrier the asynchronous reads need (f32 as it is: wgmma reads it truncated to tf32). The op's scratch (wgmmaStagingBytes) holds A's tile and then B's, each on its swizzle repeat;
// `used` counts the bytes taken so far. Returns the tile's address.
Reg stage(Codegen& cg, const ir::Op& op, const ir::Value* v, const WgmmaTile& t, int64_t& used) {
  const LinearLayout shared = layout::wgmmaShared(t);
  const int64_t align = 8 * int64_t(t.swizzleBytes());
  cg.e.alignDynamicShared(int(align));
  const Codegen::Scratch s = cg.scratch(op, wgmmaStagingBytes(op));
  const int64_t offset = (s.begin + used + align - 1) / align * align;
  used = offset + t.shape[0] * t.shape[1] * t.elemBytes - s.begin;
  Reg base = cg.sharedAddress(offset);
  storeTile(cg, base, shared, v);
  ptx::fenceProxyAsyncShared(cg.e);
  cg.barrier();
  return base;
}

// The coordinates of the warpgroup's index bits: warpgroup g = gm * gridN + gn.
Reg warpgroupPart(Codegen& cg, int gridN, bool alongM) {
  ptx::Entry& e = cg.e;
  Reg wg = e.reg(RegClass::B32);
  e.inst("shr.u32", {wg, cg.warp(), 2});
  if (gridN == 1) return alongM ? wg : Reg{};
  Reg part = e.reg(RegClass::B32);
  if (alongM) e.inst("shr.u32", {part, wg, std::countr_zero(unsigned(gridN))});
  else e.inst("and.b32", {part, wg, gridN - 1});
  return part;
}

}  // namespace

void lowerWgmma(Codegen& cg, const ir::Op& op, const MmaConfig& cfg, bool inPlace, bool waitNow) {
  ptx::Entry& e = cg.e;
  const ir::Value *a = op.operand(0), *b = op.operand(1), *c = op.operand(2);
  const int64_t m = c->type.shape[0], n = c->type.shape[1], k = a->type.shape[1];
  const int32_t wm = cfg.warpsPerCTA[0], gridM = wm / 4, gridN = cfg.warpsPerCTA[1], instrN = cfg.instrN;
  const std::optional<ptx::WgmmaInput> input = wgmmaInput(a->type.elem);
  if (!input) throw InternalError(op.loc, "wgmma: no instruction for the operand type");
  const ptx::WgmmaInput in = *input;
  const int64_t kTile = ptx::wgmmaK(in);
  const int64_t numM = m / (64 * gridM), numN = n / (int64_t(instrN) * gridN), numK = k / kTile;
  if (numM < 1 || numN < 1 || numK < 1 || k % kTile) throw InternalError(op.loc, "wgmma: tile below one instruction");
  // Slots of tf32, fp8 and 8-bit integer operands are K-major (those forms have no transpose flags).
  auto slotTile = [&](const ir::Value* v, int kDim, const char* name) {
    std::optional<WgmmaTile> t = tileOf(v->type);
    if (!t) throw InternalError(op.loc, std::string("wgmma: ") + name + "'s slot is not in a wgmma arrangement");
    if (!ptx::wgmmaTransposes(in) && t->order[0] != kDim)
      throw InternalError(op.loc, std::string("wgmma: ") + name + "'s slot is not K-major");
    return *t;
  };

  // Operands: A from a slot or registers (f16 / bf16: fragments; else staged), B from a slot or staged
  // from registers.
  bool usedScratch = false;
  int64_t scratchUsed = 0;
  std::optional<DescribedOperand> descA, descB;
  Reg wgM = gridM > 1 ? warpgroupPart(cg, gridN, true) : Reg{};
  Reg wgN = gridN > 1 ? warpgroupPart(cg, gridN, false) : Reg{};
  if (a->type.isShared()) {
    descA = describe(cg, op, cg.reg(a), slotTile(a, 1, "A"), 1, {64, 0}, wgM);
  } else if (std::optional<WgmmaTile> t = wgmmaStagedTile(op, 0)) {
    Reg base = stage(cg, op, a, *t, scratchUsed);
    usedScratch = true;
    descA = describe(cg, op, base, *t, 1, {64, 0}, wgM);
  }
  if (b->type.isShared()) {
    descB = describe(cg, op, cg.reg(b), slotTile(b, 0, "B"), 0, {0, instrN}, wgN);
  } else {
    const WgmmaTile t = *wgmmaStagedTile(op, 1);
    Reg base = stage(cg, op, b, t, scratchUsed);
    usedScratch = true;
    descB = describe(cg, op, base, t, 0, {0, instrN}, wgN);
  }

  // Accumulators: the thread's registers of each instruction tile, register i of m64 x instrN at
  // (8((i>>1)&1) + row of the tile, 8(i>>2) + (i&1) + column of the tile) for lane 0 of warp 0.
  RegisterIndex ic(*c->type.layout);
  const std::vector<Reg>& cr = cg.regs(c);
  // A constant zero accumulator: the first wgmma of each instruction tile writes its product (scale-d
  // false) instead of adding it to registers set to zero first.
  const bool fromZero = ir::isConstantZero(c);
  std::set<int> seen;
  for (Reg r : cr) inPlace = inPlace && seen.insert(r.id).second;  // each element its own register
  std::vector<Reg> out(cr.size());
  std::vector<std::vector<Reg>> acc(size_t(numM * numN));
  for (int64_t mi = 0; mi < numM; ++mi)
    for (int64_t ni = 0; ni < numN; ++ni)
      for (int32_t i = 0; i < instrN / 2; ++i) {
        const int32_t r = ic.at(op, {8 * ((i >> 1) & 1) + int32_t(64 * gridM * mi),
                                     8 * (i >> 2) + (i & 1) + int32_t(instrN * gridN * ni)});
        Reg d = cr.at(size_t(r));
        if (fromZero || !inPlace) {  // the registers may be shared with other values (a splatted zero)
          const bool intSum = ptx::wgmmaIntegerSum(in);
          Reg fresh = e.reg(intSum ? RegClass::B32 : RegClass::F32);
          if (!fromZero) e.inst(intSum ? "mov.b32" : "mov.f32", {fresh, d});
          d = fresh;
        }
        acc[size_t(mi * numN + ni)].push_back(d);
        out[size_t(r)] = d;
      }

  // A's fragments from registers (the mma.sync m16n8k16 A fragment of each warp).
  std::optional<RegisterIndex> ia;
  if (!descA) ia.emplace(*a->type.layout);
  auto fragA = [&](int64_t mi, int64_t ki) {
    std::vector<Reg> regs;
    const std::vector<Reg>& ar = cg.regs(a);
    for (int32_t q = 0; q < 4; ++q) {
      std::vector<Reg> el;
      for (int32_t x = 0; x < 2; ++x)
        el.push_back(ar.at(size_t(ia->at(op, {8 * (q & 1) + int32_t(64 * gridM * mi), x + 8 * (q >> 1) + int32_t(16 * ki)}))));
      regs.push_back(packFragment(e, a->type.elem, el));
    }
    return regs;
  };

  e.comment("dot: wgmma m64n" + std::to_string(instrN) + "k" + std::to_string(kTile) + ", " + std::to_string(numM) + "x" + std::to_string(numN) +
            "x" + std::to_string(numK) + " per warpgroup");
  std::vector<std::vector<Reg>> aRegs;
  if (!descA)
    for (int64_t ki = 0; ki < numK; ++ki)
      for (int64_t mi = 0; mi < numM; ++mi) aRegs.push_back(fragA(mi, ki));
  ptx::wgmmaFence(e, op.loc);
  for (int64_t ki = 0; ki < numK; ++ki)
    for (int64_t mi = 0; mi < numM; ++mi)
      for (int64_t ni = 0; ni < numN; ++ni) {
        const int64_t row = 64 * gridM * mi, col = int64_t(instrN) * gridN * ni;
        Reg da, db = descB->at(e, {kTile * ki, col}, {0, 0});
        std::vector<Reg> ar;
        if (descA) da = descA->at(e, {row, kTile * ki}, {0, 0});
        else ar = aRegs[size_t(ki * numM + mi)];
        ptx::wgmma(e, in, instrN, acc[size_t(mi * numN + ni)], da, ar, db, descA && descA->mnMajor,
                   descB->mnMajor, op.loc, !(fromZero && ki == 0));
      }
  ptx::wgmmaCommit(e);
  if (waitNow || usedScratch) ptx::wgmmaWait(e, 0);
  cg.bind(op.result(0), std::move(out));
}

}  // namespace kiln::lower
