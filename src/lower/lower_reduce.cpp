// reduce along one axis: the operand's layout says which bits of (register, lane, warp) move along the
// axis (layout::reductionBits). Register bits combine inside a thread (a pairwise tree), lane bits with
// butterfly shuffles, warp bits through shared memory (one partial per warp slot, then every thread
// combines all slots). argmax/argmin carry (key, index) pairs; ties go to the smaller index.
#include <bit>
#include <optional>
#include <vector>

#include "layout/conversions.h"
#include "layout/named_layouts.h"
#include "lower/codegen.h"
#include "lower/linear_emit.h"
#include "ptx/isel.h"
#include "ptx/memory.h"
#include "ptx/warp.h"
#include "support/diagnostic.h"

namespace kiln::lower {
namespace {

using ir::Scalar;
using layout::LinearLayout;
using ptx::Reg;
using ptx::RegClass;

enum class Kind { Sum, Max, Min, Argmax, Argmin };

Kind kindOf(const ir::Op& op) {
  const std::string& k = op.strAttr("kind");
  if (k == "sum") return Kind::Sum;
  if (k == "max") return Kind::Max;
  if (k == "min") return Kind::Min;
  if (k == "argmax") return Kind::Argmax;
  if (k == "argmin") return Kind::Argmin;
  throw InternalError(op.loc, "unknown reduction kind '" + k + "'");
}

bool isFp8(Scalar t) { return ir::isFloat(t) && ir::bitWidth(t) == 8; }

// A partial result: a value, or for argmax/argmin an order key and the element's index.
struct Item {
  Reg v, idx;
};

class Reducer {
 public:
  Reducer(Codegen& cg, const ir::Op& op) : cg_(cg), e_(cg.e), op_(op), kind_(kindOf(op)) {
    from_ = op.operand(0)->type.elem;
    result_ = op.result(0)->type.elem;
    isArg_ = kind_ == Kind::Argmax || kind_ == Kind::Argmin;
    // fp8 arithmetic needs sm_89: older targets pick max/min by comparing order keys (exact), and
    // leave fp8 sums to instruction selection (which reports the missing rounding instruction).
    keySelect_ = !isArg_ && kind_ != Kind::Sum && isFp8(result_) && e_.target().sm < 89;
    if (isArg_) type_ = ir::isFloat(from_) ? (from_ == Scalar::F64 ? Scalar::I64 : Scalar::I32) : from_;
    else type_ = result_;
  }

  Scalar type() const { return type_; }
  bool isArg() const { return isArg_; }

  // The partial of one operand element `x` at axis coordinate `index` (a .b32; arg kinds only).
  Item element(Reg x, Reg index) {
    if (!isArg_) {
      if (from_ == type_) return {x, {}};
      Reg c = e_.reg(ptx::regClassOf(type_));
      ptx::selectCast(e_, from_, type_, false, c, x, op_.loc);
      return {c, {}};
    }
    return {keyOf(x), index};
  }

  Item combine(const Item& a, const Item& b) {
    if (keySelect_) {
      Reg better = cmp(kind_ == Kind::Max ? ptx::CmpPred::Gt : ptx::CmpPred::Lt, Scalar::I32, keyOf(b.v), keyOf(a.v));
      return {select(better, type_, b.v, a.v), {}};
    }
    if (!isArg_) {
      Reg d = e_.reg(ptx::regClassOf(type_));
      ir::Opcode opc = kind_ == Kind::Sum ? ir::Opcode::Add : kind_ == Kind::Max ? ir::Opcode::Max : ir::Opcode::Min;
      Reg src[] = {a.v, b.v};
      ptx::selectElementwise(e_, ptx::ElementOp{opc, type_, ptx::CmpPred::Eq, false, false, op_.loc}, d, src);
      return {d, {}};
    }
    // b wins when its key is strictly better, or equal with a smaller index.
    Reg better = cmp(kind_ == Kind::Argmax ? ptx::CmpPred::Gt : ptx::CmpPred::Lt, type_, b.v, a.v);
    Reg same = cmp(ptx::CmpPred::Eq, type_, b.v, a.v);
    Reg earlier = cmp(ptx::CmpPred::Lt, Scalar::I32, b.idx, a.idx);
    Reg tie = e_.reg(RegClass::Pred), pick = e_.reg(RegClass::Pred);
    e_.inst("and.pred", {tie, same, earlier});
    e_.inst("or.pred", {pick, better, tie});
    return {select(pick, type_, b.v, a.v), select(pick, Scalar::I32, b.idx, a.idx)};
  }

  // The operands of one element's product, for a sum that contracts its products (contractedMul).
  struct Product {
    Reg a, b;
  };

  // The mul whose products this sum may fuse into its adds (the contract pass set contract = 1 on
  // a sum of a single-use float mul), when the sum runs in the mul's own f32/f64 type; else null.
  // Such a sum adds a thread's elements by `chain`.
  const ir::Op* contractedMul() const {
    const ir::Op* d = op_.operand(0)->def;
    if (kind_ != Kind::Sum || from_ != type_ || (type_ != Scalar::F32 && type_ != Scalar::F64) ||
        !op_.intAttrOr("contract", 0) || !d || d->opcode != ir::Opcode::Mul)
      return nullptr;
    return d;
  }

  // Pairwise tree over items (in order), so long sums round less and chains stay short.
  Item tree(std::vector<Item> items) {
    while (items.size() > 1) {
      std::vector<Item> next;
      for (size_t i = 0; i + 1 < items.size(); i += 2) next.push_back(combine(items[i], items[i + 1]));
      if (items.size() % 2) next.push_back(items.back());
      items = std::move(next);
    }
    return items.at(0);
  }

  // A thread's sum of products, as Triton's LLVM contracts it: x_0, then fma(a_i, b_i, sum) in order,
  // one instruction per element (a tree would fuse only its first level: 1.5 per element). The products
  // but the first then have no use left.
  Item chain(const std::vector<Item>& items, const std::vector<Product>& products) {
    Item sum = items.at(0);
    for (size_t i = 1; i < items.size(); ++i) sum = fma(products.at(i), sum);
    return sum;
  }

  Item fma(const Product& p, const Item& c) {
    Reg d = e_.reg(ptx::regClassOf(type_));
    Reg src[] = {p.a, p.b, c.v};
    ptx::selectElementwise(e_, ptx::ElementOp{ir::Opcode::Fma, type_, ptx::CmpPred::Eq, false, false, op_.loc}, d, src);
    return {d, {}};
  }

  Item shuffleXor(const Item& a, int32_t laneMask) {
    Item s;
    s.v = e_.reg(a.v.cls);
    ptx::shuffle(e_, ptx::ShflMode::Bfly, type_, s.v, a.v, ptx::Operand(int64_t(laneMask)));
    if (isArg_) {
      s.idx = e_.reg(RegClass::B32);
      ptx::shuffle(e_, ptx::ShflMode::Bfly, Scalar::I32, s.idx, a.idx, ptx::Operand(int64_t(laneMask)));
    }
    return s;
  }

  // The result register of a final partial.
  Reg finish(const Item& a) {
    if (isArg_) return a.idx;
    if (type_ == result_) return a.v;
    Reg r = e_.reg(ptx::regClassOf(result_));
    ptx::selectCast(e_, type_, result_, false, r, a.v, op_.loc);
    return r;
  }

 private:
  Reg cmp(ptx::CmpPred p, Scalar t, Reg a, Reg b) {
    Reg d = e_.reg(RegClass::Pred);
    Reg src[] = {a, b};
    ptx::selectElementwise(e_, ptx::ElementOp{ir::Opcode::Cmp, t, p, false, false, op_.loc}, d, src);
    return d;
  }
  Reg select(Reg p, Scalar t, Reg a, Reg b) {
    Reg d = e_.reg(ptx::regClassOf(t));
    Reg src[] = {p, a, b};
    ptx::selectElementwise(e_, ptx::ElementOp{ir::Opcode::Select, t, ptx::CmpPred::Eq, false, false, op_.loc}, d, src);
    return d;
  }

  // An integer whose signed order is the order argmax/argmin use: floats by their bits with the
  // negative half flipped (-0.0 sorts just below +0.0), NaN mapped below (max) or above (min) every
  // number so that it is chosen only when all are NaN; integers are their own keys.
  Reg keyOf(Reg x) {
    if (!ir::isFloat(from_)) return x;
    const bool wide = from_ == Scalar::F64;
    Reg f = x;
    if (from_ != Scalar::F32 && !wide) f = ptx::widenToF32(e_, from_, x, op_.loc);
    RegClass bc = wide ? RegClass::B64 : RegClass::B32;
    const char* b = wide ? ".b64" : ".b32";
    Reg bits = e_.reg(bc), sign = e_.reg(bc), key = e_.reg(bc), out = e_.reg(bc), nan = e_.reg(RegClass::Pred);
    e_.inst(std::string("mov") + b, {bits, f});
    e_.inst(wide ? "shr.s64" : "shr.s32", {sign, bits, wide ? 63 : 31});
    e_.inst(std::string("and") + b, {sign, sign, wide ? ptx::hexImm(0x7FFFFFFFFFFFFFFFull) : ptx::hexImm(0x7FFFFFFF)});
    e_.inst(std::string("xor") + b, {key, bits, sign});
    e_.inst(wide ? "setp.nan.f64" : "setp.nan.f32", {nan, f, f});
    bool low = kind_ == Kind::Argmax || kind_ == Kind::Max;
    ptx::Operand nanKey = wide ? ptx::hexImm(low ? 0x8000000000000000ull : 0x7FFFFFFFFFFFFFFFull)
                               : ptx::hexImm(low ? 0x80000000u : 0x7FFFFFFFu);
    e_.inst(std::string("selp") + b, {out, nanKey, key, nan});
    return out;
  }

  Codegen& cg_;
  ptx::Entry& e_;
  const ir::Op& op_;
  Kind kind_;
  Scalar from_, result_, type_;
  bool isArg_ = false, keySelect_ = false;
};

std::vector<int> setBits(int32_t mask) {
  std::vector<int> bits;
  for (int b = 0; b < 31; ++b)
    if (mask >> b & 1) bits.push_back(b);
  return bits;
}

int32_t deposit(int32_t v, const std::vector<int>& bits) {
  int32_t r = 0;
  for (size_t i = 0; i < bits.size(); ++i)
    if (v >> i & 1) r |= int32_t(1) << bits[i];
  return r;
}

}  // namespace

void lowerReduce(Codegen& cg, const ir::Op& op) {
  switch (op.opcode) {
    case ir::Opcode::Reduce: break;
    case ir::Opcode::ReduceCombine: return lowerReduceCombine(cg, op);
    case ir::Opcode::Scan: return lowerScan(cg, op);
    case ir::Opcode::Sort: return lowerSort(cg, op);
    default: codegenBug(op, "not a reduction");
  }
  const ir::Value* x = op.operand(0);
  const ir::Value* y = op.result(0);
  if (!x->type.layout) throw InternalError(op.loc, "reduce operand without a layout");
  const LinearLayout& l = *x->type.layout;
  const int axis = int(op.intAttr("axis"));
  const int rank = x->type.rank();
  if (axis < 0 || axis >= rank) throw InternalError(op.loc, "reduce axis out of range");
  Reducer red(cg, op);
  ptx::Entry& e = cg.e;
  layout::DimMasks masks = layout::reductionBits(l, axis);

  // Register bits: reduced ones, kept ones (result registers, in order) and duplicates (skipped).
  std::vector<int> reducedBits = setBits(masks.get(layout::kRegister)), keptBits;
  const int numRegBits = l.hasInDim(layout::kRegister) ? l.getInDimSizeLog2(layout::kRegister) : 0;
  for (int b = 0; b < numRegBits; ++b) {
    const layout::Basis& basis = l.basis(layout::kRegister, b);
    bool other = false;
    for (int j = 0; j < rank; ++j) other = other || (j != axis && basis[size_t(j)] != 0);
    if (other) keptBits.push_back(b);
  }
  const std::vector<Reg>& xr = cg.regs(x);
  Reg axisThread;
  if (red.isArg()) axisThread = threadPart(cg, l, axis);
  std::vector<std::vector<Reg>> factors;  // the contracted mul's operands
  if (const ir::Op* mul = red.contractedMul())
    for (const ir::Value* f : mul->operands) factors.push_back(cg.regs(f));
  auto factor = [&](size_t k, int32_t r) { return factors[k].size() == 1 ? factors[k][0] : factors[k].at(size_t(r)); };

  std::vector<Item> partials;
  for (int32_t s = 0; s < (int32_t(1) << keptBits.size()); ++s) {
    std::vector<Item> items;
    std::vector<Reducer::Product> products;
    for (int32_t j = 0; j < (int32_t(1) << reducedBits.size()); ++j) {
      int32_t r = deposit(s, keptBits) | deposit(j, reducedBits);
      if (!factors.empty()) products.push_back({factor(0, r), factor(1, r)});
      Reg index;
      if (red.isArg()) {
        int32_t c = registerPart(l, r, axis);
        index = axisThread;
        if (c != 0) {
          index = e.reg(RegClass::B32);
          e.inst("xor.b32", {index, axisThread, int64_t(c)});
        }
      }
      items.push_back(red.element(xr.at(size_t(r)), index));
    }
    partials.push_back(products.empty() ? red.tree(std::move(items)) : red.chain(items, products));
  }

  for (int b : setBits(masks.get(layout::kLane)))
    for (Item& p : partials) p = red.combine(p, red.shuffleXor(p, int32_t(1) << b));

  if (int32_t warpMask = masks.get(layout::kWarp)) {
    // Warp slot w (the warp's reduced bits, compacted) writes its partial of result element i to
    // [w * numel + i]; after a barrier every thread combines the slots of its elements in slot order.
    std::vector<int> warpBits = setBits(warpMask);
    const int32_t slots = int32_t(1) << warpBits.size();
    const int64_t numel = y->type.isTensor() ? y->type.numel() : 1;
    LinearLayout flat;
    Reg flatThread;
    int32_t flatMask = 0;
    if (y->type.isTensor()) {
      flat = layout::sliceLayout(l, axis).reshapeOuts({{std::string(layout::kOffset), int32_t(numel)}});
      flatThread = threadPart(cg, flat, 0);
      flatMask = threadMask(flat, 0);
    } else {
      flatThread = linearOf(cg, cg.lane(), {});
    }
    auto flatReg = [&](int32_t s) { return y->type.isTensor() ? int64_t(registerPart(flat, s, 0)) : 0; };
    std::vector<int32_t> slotColumns(size_t(l.getInDimSizeLog2(layout::kWarp)), 0);
    for (size_t i = 0; i < warpBits.size(); ++i) slotColumns[size_t(warpBits[i])] = int32_t(1) << i;
    Reg slot = linearOf(cg, cg.warp(), slotColumns);

    const int vb = memBytes(red.type());
    const int64_t valueBytes = (int64_t(slots) * numel * vb + 15) / 16 * 16;
    const Codegen::Scratch scratch = cg.scratch(op, valueBytes + (red.isArg() ? int64_t(slots) * numel * 4 : 0));
    Reg base = scratch.address;
    Reg idxBase;
    if (red.isArg()) {
      idxBase = e.reg(RegClass::B32);
      e.inst("add.u32", {idxBase, base, valueBytes});
    }
    auto slotBase = [&](Reg b, int bytes) {
      Reg r = e.reg(RegClass::B32);
      e.inst("mad.lo.u32", {r, slot, int64_t(numel) * bytes, b});
      return r;
    };
    e.comment("reduce across warps through shared memory");
    SharedAddresses storeV(cg, slotBase(base, vb), flatThread, flatMask, vb);
    std::optional<SharedAddresses> storeI;
    if (red.isArg()) storeI.emplace(cg, slotBase(idxBase, 4), flatThread, flatMask, 4);
    for (size_t s = 0; s < partials.size(); ++s) {
      auto a = storeV.at(flatReg(int32_t(s)));
      ptx::storeVector(e, ptx::Space::Shared, red.type(), std::span<const Reg>(&partials[s].v, 1), a.reg, a.offset);
      if (red.isArg()) {
        auto ai = storeI->at(flatReg(int32_t(s)));
        ptx::storeVector(e, ptx::Space::Shared, Scalar::I32, std::span<const Reg>(&partials[s].idx, 1), ai.reg, ai.offset);
      }
    }
    cg.barrier();
    SharedAddresses loadV(cg, base, flatThread, flatMask, vb);
    std::optional<SharedAddresses> loadI;
    if (red.isArg()) loadI.emplace(cg, idxBase, flatThread, flatMask, 4);
    for (size_t s = 0; s < partials.size(); ++s) {
      std::vector<Item> items;
      for (int32_t w = 0; w < slots; ++w) {
        Item it;
        it.v = e.reg(ptx::regClassOf(red.type()));
        auto a = loadV.at(w * numel + flatReg(int32_t(s)));
        ptx::loadVector(e, ptx::Space::Shared, red.type(), std::span<const Reg>(&it.v, 1), a.reg, a.offset);
        if (red.isArg()) {
          it.idx = e.reg(RegClass::B32);
          auto ai = loadI->at(w * numel + flatReg(int32_t(s)));
          ptx::loadVector(e, ptx::Space::Shared, Scalar::I32, std::span<const Reg>(&it.idx, 1), ai.reg, ai.offset);
        }
        items.push_back(it);
      }
      partials[s] = red.tree(std::move(items));
    }
  }

  std::vector<Reg> out;
  for (const Item& p : partials) out.push_back(red.finish(p));
  if (!y->type.isTensor() && out.size() != 1)
    throw InternalError(op.loc, "reduce to a scalar left " + std::to_string(out.size()) + " partial results");
  cg.bind(y, std::move(out));
}

}  // namespace kiln::lower
