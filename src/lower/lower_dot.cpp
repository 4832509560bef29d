// dot: mma.sync over 16x8xK tiles when dotLayout chose the tensor-core layouts, else one fused
// multiply-add per accumulator register and k, in k order (the interpreter's order and rounding).
// An f16 accumulator sums in f32 from zero either way, rounded to f16 once and then added.
// Fragment registers are found through the layouts: the element an instruction needs at lane 0 is
// looked up by its coordinates among the thread's registers (the lane and warp parts are the same for
// every register of a layout, and the layouts agree with the PTX fragments lane by lane).
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "layout/named_layouts.h"
#include "lower/codegen.h"
#include "assign/dot_layouts.h"
#include "lower/linear_emit.h"
#include "lower/lower_wgmma.h"
#include "lower/mma_fragments.h"
#include "layout/scratch_layout.h"
#include "lower/shared_tile.h"
#include "ptx/isel.h"
#include "ptx/memory.h"
#include "ptx/warp.h"
#include "ptx/wgmma.h"
#include "support/diagnostic.h"

namespace kiln::lower {
namespace {

using ir::Scalar;
using layout::LinearLayout;
using ptx::Reg;
using ptx::RegClass;

void checkLayouts(const ir::Op& op, int numWarps, const ptx::Target& target) {
  for (int i = 0; i < 3; ++i) {
    const ir::Type& t = op.operand(unsigned(i))->type;
    if (!t.layout || *t.layout != dotLayout(i, op, numWarps, target))
      throw InternalError(op.loc, "dot operand " + std::to_string(i) + " does not have the layout dotLayout gives");
  }
  if (!op.result(0)->type.layout || *op.result(0)->type.layout != *op.operand(2)->type.layout)
    throw InternalError(op.loc, "dot result layout differs from the accumulator's");
}

// The registers of a dot operand: bound ones, or read from a shared slot when first used (an `mma`
// operand in shared memory, lower/shared_tile.h).
class OperandRegisters {
 public:
  OperandRegisters(Codegen& cg, const ir::Value* v, SharedTileReader* reader)
      : shared_(reader), regs_(shared_ ? nullptr : &cg.regs(v)) {}
  Reg at(size_t r) const { return shared_ ? shared_->at(int32_t(r)) : regs_->at(r); }

 private:
  SharedTileReader* shared_;
  const std::vector<Reg>* regs_;
};

// An f16 accumulator's dot sums the products in f32 from zero; this is its end: the sum rounded once
// to f16, then the accumulator element added in f16 (docs/semantics.md, the interpreter's order).
bool sumsInF32(Scalar acc) { return acc == Scalar::F16; }
Reg finishF32Sum(ptx::Entry& e, const ir::Op& op, Reg sum, Reg acc) {
  Reg h = e.reg(ptx::regClassOf(Scalar::F16)), d = e.reg(ptx::regClassOf(Scalar::F16));
  ptx::selectCast(e, Scalar::F32, Scalar::F16, false, h, sum, op.loc);
  Reg add[] = {h, acc};
  ptx::selectElementwise(e, ptx::ElementOp{ir::Opcode::Add, Scalar::F16, ptx::CmpPred::Eq, false, false, op.loc}, d, add);
  return d;
}
Reg zeroF32(ptx::Entry& e) {
  Reg z = e.reg(RegClass::F32);
  e.inst("mov.f32", {z, ptx::f32Imm(0.0f)});
  return z;
}

// An operand an `mma` op reads from shared memory: its reader, and the register layout it reads into.
struct SharedOperand {
  SharedTileReader* reader = nullptr;
  const LinearLayout* layout = nullptr;
};

// `fromShared`: the operands an `mma` op takes from shared memory (null readers: registers).
// `inPlace`: the accumulator's registers are this op's alone (an mma's result that only this op reads),
// so the mmas accumulate into them instead of into fresh ones, as one dot's k-slices do.
void lowerMma(Codegen& cg, const ir::Op& op, const MmaConfig& cfg, std::array<SharedOperand, 2> fromShared = {},
              bool inPlace = false) {
  ptx::Entry& e = cg.e;
  const ir::Value *a = op.operand(0), *b = op.operand(1), *c = op.operand(2);
  const int64_t m = a->type.shape[0], k = a->type.shape[1], n = b->type.shape[1];
  const int32_t wm = cfg.warpsPerCTA[0], wn = cfg.warpsPerCTA[1];
  const int32_t p = 32 / cfg.bitWidth;  // elements per fragment register
  const int64_t numM = std::max<int64_t>(1, m / (16 * wm)), numN = std::max<int64_t>(1, n / (8 * wn));
  const int64_t numK = k / cfg.kTile;
  RegisterIndex ia(fromShared[0].layout ? *fromShared[0].layout : *a->type.layout),
      ib(fromShared[1].layout ? *fromShared[1].layout : *b->type.layout), ic(*c->type.layout);
  OperandRegisters ar(cg, a, fromShared[0].reader), br(cg, b, fromShared[1].reader);
  const std::vector<Reg>& cr = cg.regs(c);

  // Lane 0's fragment elements (PTX-NOTES §8): element i = e + p*q of A at (8*(q&1), e + 4p*(q>>1)),
  // of B at (e + 4p*q, 0); accumulator element i at (8*(i>>1), i&1).
  auto fragA = [&](int64_t mi, int64_t ki) {
    std::vector<Reg> regs;
    for (int32_t q = 0; q < 4; ++q) {
      std::vector<Reg> el;
      for (int32_t x = 0; x < p; ++x) {
        int32_t row = 8 * (q & 1) + int32_t(16 * wm * mi), col = x + 4 * p * (q >> 1) + int32_t(cfg.kTile * ki);
        el.push_back(ar.at(size_t(ia.at(op, {row, col}))));
      }
      regs.push_back(packFragment(e, a->type.elem, el));
    }
    return regs;
  };
  auto fragB = [&](int64_t ki, int64_t ni) {
    std::vector<Reg> regs;
    for (int32_t q = 0; q < 2; ++q) {
      std::vector<Reg> el;
      for (int32_t x = 0; x < p; ++x) {
        int32_t row = x + 4 * p * q + int32_t(cfg.kTile * ki), col = int32_t(8 * wn * ni);
        el.push_back(br.at(size_t(ib.at(op, {row, col}))));
      }
      regs.push_back(packFragment(e, b->type.elem, el));
    }
    return regs;
  };
  auto accIndex = [&](int64_t mi, int64_t ni, int32_t i) {
    return ic.at(op, {8 * (i >> 1) + int32_t(16 * wm * mi), (i & 1) + int32_t(8 * wn * ni)});
  };

  e.comment("dot: mma.sync " + std::to_string(numM) + "x" + std::to_string(numN) + "x" + std::to_string(numK) + " tiles");
  const RegClass accClass = ptx::mmaShape(cfg.kind).accClass;
  const bool f32Sum = sumsInF32(c->type.elem);  // f16 accumulator: the mmas start from f32 zeros
  const Reg zero = f32Sum ? zeroF32(e) : Reg{};
  std::vector<std::vector<Reg>> acc(static_cast<size_t>(numM * numN));
  for (int64_t mi = 0; mi < numM; ++mi)
    for (int64_t ni = 0; ni < numN; ++ni)
      for (int32_t i = 0; i < 4; ++i)
        acc[size_t(mi * numN + ni)].push_back(f32Sum ? zero : cr.at(size_t(accIndex(mi, ni, i))));
  // k outermost, each k-slice's fragments formed right before its mmas. The order of the slices is the
  // schedule's: split_mma (schedule/split_mma.cpp) and the pipeline pass make every mma.sync dot one
  // `mma` per k-slice, so more than one slice comes here only for a dot whose f16 accumulator sums every
  // k in f32 (one rounding at the end), or an mma that kiln-opt was given whole.
  for (int64_t ki = 0; ki < numK; ++ki) {
    std::vector<std::vector<Reg>> fa, fb;
    for (int64_t mi = 0; mi < numM; ++mi) fa.push_back(fragA(mi, ki));
    for (int64_t ni = 0; ni < numN; ++ni) fb.push_back(fragB(ki, ni));
    for (int64_t mi = 0; mi < numM; ++mi)
      for (int64_t ni = 0; ni < numN; ++ni) {
        std::vector<Reg>& sum = acc[size_t(mi * numN + ni)];
        std::vector<Reg> d;
        if (ki == 0 && !inPlace)
          for (int i = 0; i < 4; ++i) d.push_back(e.reg(accClass));
        else
          d = sum;
        ptx::mma(e, cfg.kind, d, fa[size_t(mi)], fb[size_t(ni)], sum, op.loc);
        sum = d;
      }
  }

  const LinearLayout& cl = *c->type.layout;
  const int32_t numRegs = cl.getInDimSize(layout::kRegister);
  std::vector<Reg> out(static_cast<size_t>(numRegs));
  std::vector<bool> set(static_cast<size_t>(numRegs), false);
  for (int64_t mi = 0; mi < numM; ++mi)
    for (int64_t ni = 0; ni < numN; ++ni)
      for (int32_t i = 0; i < 4; ++i) {
        int32_t r = accIndex(mi, ni, i);
        Reg sum = acc[size_t(mi * numN + ni)][size_t(i)];
        out[size_t(r)] = f32Sum ? finishF32Sum(e, op, sum, cr.at(size_t(r))) : sum;
        set[size_t(r)] = true;
      }
  for (int32_t r = 0; r < numRegs; ++r)
    if (!set[size_t(r)]) throw InternalError(op.loc, "dot: accumulator register outside every mma tile");
  cg.bind(op.result(0), std::move(out));
}

// An operand element in the accumulator's type: f32 truncated to tf32 first when the dot asks for it.
Reg prepare(ptx::Entry& e, const ir::Op& op, Scalar from, Scalar acc, Reg x) {
  if (from == Scalar::F32 && truncatesToTf32(op)) {
    Reg bits = e.reg(RegClass::B32), f = e.reg(RegClass::F32);
    ptx::truncateToTf32(e, bits, x);
    e.inst("mov.b32", {f, bits});
    x = f;
  }
  if (from == acc) return x;
  Reg d = e.reg(ptx::regClassOf(acc));
  ptx::selectCast(e, from, acc, false, d, x, op.loc);
  return d;
}

void lowerFma(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const ir::Value *a = op.operand(0), *b = op.operand(1), *c = op.operand(2);
  const int rank = c->type.rank();
  const int64_t k = a->type.shape.back();
  const bool f32Sum = sumsInF32(c->type.elem);
  const Scalar accT = f32Sum ? Scalar::F32 : c->type.elem;  // the type the products are summed in
  const LinearLayout& cl = *c->type.layout;
  RegisterIndex ia(*a->type.layout), ib(*b->type.layout);
  const std::vector<Reg>&ar = cg.regs(a), &br = cg.regs(b), &cr = cg.regs(c);
  std::vector<Reg> ap, bp;
  for (Reg x : ar) ap.push_back(prepare(e, op, a->type.elem, accT, x));
  for (Reg x : br) bp.push_back(prepare(e, op, b->type.elem, accT, x));

  // Distinct accumulator elements of this thread (duplicated registers share the result).
  const int32_t numRegs = cl.getInDimSize(layout::kRegister);
  std::map<std::vector<int32_t>, size_t> distinct;
  std::vector<size_t> slotOf;
  std::vector<std::vector<int32_t>> coords;
  for (int32_t r = 0; r < numRegs; ++r) {
    std::vector<int32_t> co = registerCoords(cl, r);
    auto [it, fresh] = distinct.emplace(co, coords.size());
    if (fresh) coords.push_back(co);
    slotOf.push_back(it->second);
  }
  std::vector<Reg> sum, accIn;
  const Reg zero = f32Sum ? zeroF32(e) : Reg{};
  for (int32_t r = 0; r < numRegs; ++r)
    if (sum.size() == slotOf[size_t(r)]) {
      accIn.push_back(cr.at(size_t(r)));
      sum.push_back(f32Sum ? zero : cr.at(size_t(r)));
    }

  e.comment("dot: " + std::to_string(coords.size()) + " x " + std::to_string(k) + " fma");
  for (int32_t kk = 0; kk < int32_t(k); ++kk)
    for (size_t s = 0; s < coords.size(); ++s) {
      std::vector<int32_t> ac = coords[s], bc = coords[s];
      ac[size_t(rank - 1)] = kk;  // a[.., m, k]
      bc[size_t(rank - 2)] = kk;  // b[.., k, n]
      Reg x = ap.at(size_t(ia.at(op, ac))), y = bp.at(size_t(ib.at(op, bc)));
      Reg d = e.reg(ptx::regClassOf(accT));
      if (ir::isFloat(accT)) {
        Reg src[] = {x, y, sum[s]};
        ptx::selectElementwise(e, ptx::ElementOp{ir::Opcode::Fma, accT, ptx::CmpPred::Eq, false, false, op.loc}, d, src);
      } else {
        Reg prod = e.reg(ptx::regClassOf(accT));
        Reg mul[] = {x, y};
        ptx::selectElementwise(e, ptx::ElementOp{ir::Opcode::Mul, accT, ptx::CmpPred::Eq, false, false, op.loc}, prod, mul);
        Reg add[] = {sum[s], prod};
        ptx::selectElementwise(e, ptx::ElementOp{ir::Opcode::Add, accT, ptx::CmpPred::Eq, false, false, op.loc}, d, add);
      }
      sum[s] = d;
    }
  if (f32Sum)
    for (size_t s = 0; s < sum.size(); ++s) sum[s] = finishF32Sum(e, op, sum[s], accIn[s]);
  std::vector<Reg> out;
  for (int32_t r = 0; r < numRegs; ++r) out.push_back(sum[slotOf[size_t(r)]]);
  cg.bind(op.result(0), std::move(out));
}

// Whether `op` may write its accumulator's registers: nothing else reads that value, and another mma
// produced it (fresh registers no other value is bound to; a dot split into k-slices chains its mmas so)
// or, with `wgmma`, it is an argument of the loop body op is in (the loop's own registers, refilled by
// its yield: a wgmma accumulates across iterations in them, with no copy of registers in flight) or an
// arithmetic op's result in op's block (fresh registers: attention's rescaled accumulator; lowerWgmma
// still copies them when they are not distinct).
bool ownsAccumulator(const ir::Op& op, bool wgmma = false) {
  const ir::Value* acc = op.operand(2);
  if (sumsInF32(acc->type.elem)) return false;
  const bool loopCarried = wgmma && acc->isBlockArg() && acc->owner == op.parent && op.parent->parentOp &&
                           op.parent->parentOp->opcode == ir::Opcode::For && acc->index > 0;
  const bool fresh = acc->def && acc->def->parent == op.parent &&
                     (acc->def->opcode == ir::Opcode::Mma || (wgmma && ir::familyOf(acc->def->opcode) == ir::Family::Arith));
  if (!loopCarried && !fresh) return false;
  int uses = 0;
  std::function<void(const ir::Block&)> count = [&](const ir::Block& b) {
    for (const auto& o : b.ops) {
      uses += int(std::count(o->operands.begin(), o->operands.end(), acc));
      for (const auto& r : o->regions) count(*r);
    }
  };
  count(*op.parent);
  return uses == 1;
}

// GPU IR's `mma`: the dot's mma.sync (one k-slice, after split_mma) with operands in registers or read
// from a shared slot (ldmatrix where the slot's layout allows it).
void lowerMmaOp(Codegen& cg, const ir::Op& op) {
  const ptx::Target& target = cg.e.target();
  std::optional<MmaConfig> cfg = mmaConfig(op, cg.numWarps, target);
  if (!cfg)
    throw CompileError(op.loc, "mma: no tensor-core instruction on " + target.name() + " takes " +
                                   op.operand(0)->type.withoutLayout().str() + " x " +
                                   op.operand(1)->type.withoutLayout().str() + " + " +
                                   op.operand(2)->type.withoutLayout().str() + " (dot has an FMA path)");
  if (cfg->wgmma) {
    for (unsigned i = 0; i < 3; ++i) {
      const ir::Value* v = op.operand(i);
      if (v->type.isShared()) continue;
      LinearLayout want = dotLayout(int(i), op, cg.numWarps, target);
      if (*v->type.layout != want)
        throw CompileError(op.loc, "mma: operand #" + std::to_string(i) + " must have the wgmma layout " + want.str());
    }
    // Asynchronous: the group's results are read after an mma_wait.
    return lowerWgmma(cg, op, *cfg, ownsAccumulator(op, true), false);
  }
  std::array<std::unique_ptr<SharedTileReader>, 2> readers;
  std::array<LinearLayout, 3> want;
  for (unsigned i = 0; i < 3; ++i) {
    const ir::Value* v = op.operand(i);
    want[i] = dotLayout(int(i), op, cg.numWarps, target);
    if (i < 2 && v->type.isShared()) {
      const ScratchPlan& plan = cg.sharedPlan(*v->type.layout, want[i], memBytes(v->type.elem));
      readers[i] = std::make_unique<SharedTileReader>(cg, op, plan, cg.reg(v), v->type.elem, want[i]);
    } else if (*v->type.layout != want[i]) {
      throw CompileError(op.loc, "mma: operand #" + std::to_string(i) + " must have the mma layout " + want[i].str());
    }
  }
  lowerMma(cg, op, *cfg, {SharedOperand{readers[0].get(), &want[0]}, SharedOperand{readers[1].get(), &want[1]}},
           ownsAccumulator(op));
}

}  // namespace

void lowerTensorCore(Codegen& cg, const ir::Op& op) {
  if (op.opcode == ir::Opcode::Mma) return lowerMmaOp(cg, op);
  if (op.opcode != ir::Opcode::MmaWait) codegenBug(op, "not an mma op");
  // On sm_90a the mmas may be wgmma groups in flight: wait until at most `pending` remain. mma.sync
  // completes in order with the registers it writes. Either way the values pass through unchanged.
  const ptx::Target& target = cg.e.target();
  if (target.sm == 90 && target.archSpecific) ptx::wgmmaWait(cg.e, int(op.intAttr("pending")));
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    Codegen::Binding b = cg.binding(op.operand(i));
    b.value = op.result(i);
    cg.restore(b);
  }
}

void lowerDot(Codegen& cg, const ir::Op& op) {
  const ptx::Target& target = cg.e.target();
  checkLayouts(op, cg.numWarps, target);
  if (std::optional<MmaConfig> cfg = mmaConfig(op, cg.numWarps, target)) {
    if (cfg->wgmma) return lowerWgmma(cg, op, *cfg, false, true);
    lowerMma(cg, op, *cfg);
  } else {
    lowerFma(cg, op);
  }
}

}  // namespace kiln::lower
