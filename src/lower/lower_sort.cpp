// sort (tl.sort, tl.topk) on the GPU: the interpreter's bitonic network (interp/sort.cpp), one
// compare-exchange round at a time on the partners along one bit of the axis. The operand's layout holds
// each axis bit in one register, lane or warp bit (layout/axis_bits.h), so the partner is another
// register of the thread, the lane that shfl.bfly reaches, or another warp's element through shared
// memory. A top k keeps the whole line: each halving leaves the max (min) of both partners in both of
// them, so every copy holds the same k elements and the result layout (layout::truncateDim) reads one.
#include <bit>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "layout/axis_bits.h"
#include "layout/named_layouts.h"
#include "lower/codegen.h"
#include "lower/linear_emit.h"
#include "schedule/scratch_size.h"
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

enum class Place { Register, Lane, Warp };

// Where coordinate bit j of the axis lies: places[j].
struct AxisPlace {
  Place place;
  int bit;
};

std::vector<AxisPlace> placesOf(const layout::AxisBits& b) {
  std::vector<AxisPlace> out;
  for (int r : b.regLow) out.push_back({Place::Register, r});
  for (int i = 0; i < b.lanes; ++i) out.push_back({Place::Lane, b.laneFirst + i});
  for (int i = 0; i < b.warps; ++i) out.push_back({Place::Warp, b.warpFirst + i});
  for (int r : b.regHigh) out.push_back({Place::Register, r});
  return out;
}

// One bit of an element's position: known when it is a register bit, else a .pred of this thread.
struct PosBit {
  bool known = true;
  bool value = false;
  Reg pred;
};

class SortEmitter {
 public:
  SortEmitter(Codegen& cg, const ir::Op& op, const LinearLayout& l, const layout::AxisBits& bits)
      : cg_(cg), e_(cg.e), op_(op), l_(l), t_(op.operand(0)->type.elem), axis_(int(op.intAttr("axis"))),
        descending_(op.intAttrOr("descending", 0) != 0), places_(placesOf(bits)), v_(cg.regs(op.operand(0))) {
    const std::vector<int64_t>& shape = op.operand(0)->type.shape;
    for (size_t d = size_t(axis_) + 1; d < shape.size(); ++d) innerBits_ += std::countr_zero(uint64_t(shape[d]));
  }

  // The interpreter's Line::sortTop, round by round.
  void run(int logK) {
    const int logN = int(places_.size());
    for (int s = 1; s <= logK; ++s) merge(s, s < logN ? s : -1);
    for (int i = logK + 1; i <= logN; ++i) {
      halve(i - 1);  // the line's bit logK in the interpreter's shrinking index is bit i - 1 here
      merge(logK, i < logN ? i : -1);
    }
  }

  const std::vector<Reg>& values() const { return v_; }

 private:
  void merge(int stage, int flipBit) {
    for (int j = stage - 1; j >= 0; --j) exchange(j, flipBit);
  }

  // Every element takes its partner along bit j where (x > y) differs from "this place wants the larger
  // one" (flip XOR its own bit j); flipBit < 0: the requested order everywhere.
  void exchange(int j, int flipBit) {
    e_.comment("sort: compare-exchange on axis bit " + std::to_string(j));
    const std::vector<Reg> partner = partners(j);
    std::vector<Reg> out(v_.size());
    for (int32_t r = 0; r < int32_t(v_.size()); ++r) {
      const PosBit flip = flipBit < 0 ? PosBit{true, descending_, {}} : positionBit(flipBit, r);
      const PosBit wantsLarger = exclusiveOr(flip, positionBit(j, r));
      const Reg x = v_[size_t(r)], y = partner[size_t(r)];
      const Reg gt = compare(x, y);
      if (wantsLarger.known) {
        out[size_t(r)] = wantsLarger.value ? select(gt, x, y) : select(gt, y, x);
      } else {
        Reg take = e_.reg(RegClass::Pred);
        e_.inst("xor.pred", {take, gt, wantsLarger.pred});
        out[size_t(r)] = select(take, y, x);
      }
    }
    v_ = std::move(out);
  }

  // Both partners along bit j keep max(x, y) (descending) or min(x, y).
  void halve(int j) {
    e_.comment("sort: top-k halving on axis bit " + std::to_string(j));
    const AxisPlace p = places_.at(size_t(j));
    const std::vector<Reg> partner = partners(j);
    const ir::Opcode pick = descending_ ? ir::Opcode::Max : ir::Opcode::Min;
    std::vector<Reg> out(v_.size());
    for (size_t r = 0; r < v_.size(); ++r) {
      if (out[r].valid()) continue;  // the register partner's, computed with it
      Reg d = e_.reg(ptx::regClassOf(t_));
      Reg src[] = {v_[r], partner[r]};  // a register pair: the lower one first, as the interpreter
      ptx::selectElementwise(e_, ptx::ElementOp{pick, t_, ptx::CmpPred::Eq, false, false, op_.loc}, d, src);
      out[r] = d;
      if (p.place == Place::Register) out[r ^ (size_t(1) << p.bit)] = d;
    }
    v_ = std::move(out);
  }

  // The value of each register's partner along axis bit j.
  std::vector<Reg> partners(int j) {
    const AxisPlace p = places_.at(size_t(j));
    std::vector<Reg> out(v_.size());
    switch (p.place) {
      case Place::Register:
        for (size_t r = 0; r < v_.size(); ++r) out[r] = v_[r ^ (size_t(1) << p.bit)];
        return out;
      case Place::Lane:
        for (size_t r = 0; r < v_.size(); ++r) {
          out[r] = e_.reg(ptx::regClassOf(t_));
          ptx::shuffle(e_, ptx::ShflMode::Bfly, t_, out[r], v_[r], ptx::Operand(int64_t(1) << p.bit));
        }
        return out;
      case Place::Warp: return throughShared(j);
    }
    throw InternalError(op_.loc, "sort: unknown axis place");
  }

  // Every thread stores its elements at their row-major offsets; after a barrier it loads the partners
  // (offset with the axis bit flipped). Copies of an element store the same value. A small tile
  // alternates between the two halves of the op's scratch (schedule/scratch_size.h), so a round need not
  // wait for the previous round's reads (its own barrier came after the round before that read this
  // half); a larger one waits for them.
  std::vector<Reg> throughShared(int j) {
    const int64_t numel = op_.operand(0)->type.numel();
    const LinearLayout flat = l_.reshapeOuts({{std::string(layout::kOffset), int32_t(numel)}});
    const Reg thread = threadPart(cg_, flat, 0);
    const int32_t mask = threadMask(flat, 0);
    const int bytes = memBytes(t_);
    const bool twoHalves = numel * bytes <= schedule::kSortDoubleBufferBytes;
    const int64_t half = (numel * bytes + 15) / 16 * 16;
    if (!twoHalves && rounds_ > 0) cg_.barrier();
    const Codegen::Scratch scratch = cg_.scratch(op_, twoHalves ? 2 * half : numel * bytes);
    Reg base = scratch.address;
    if (twoHalves && rounds_ % 2 == 1) {
      base = e_.reg(RegClass::B32);
      e_.inst("add.u32", {base, scratch.address, half});
    }
    ++rounds_;
    SharedAddresses addresses(cg_, base, thread, mask, bytes);
    std::set<int64_t> stored;
    for (int32_t r = 0; r < int32_t(v_.size()); ++r) {
      const int64_t off = registerPart(flat, r, 0);
      if (!stored.insert(off).second) continue;
      auto a = addresses.at(off);
      ptx::storeVector(e_, ptx::Space::Shared, t_, std::span<const Reg>(&v_[size_t(r)], 1), a.reg, a.offset);
    }
    cg_.barrier();
    std::vector<Reg> out(v_.size());
    for (int32_t r = 0; r < int32_t(v_.size()); ++r) {
      out[size_t(r)] = e_.reg(ptx::regClassOf(t_));
      auto a = addresses.at(registerPart(flat, r, 0) ^ (int64_t(1) << (j + innerBits_)));
      ptx::loadVector(e_, ptx::Space::Shared, t_, std::span<const Reg>(&out[size_t(r)], 1), a.reg, a.offset);
    }
    return out;
  }

  // Bit j of the axis coordinate of register r's element in this thread.
  PosBit positionBit(int j, int32_t r) {
    const AxisPlace p = places_.at(size_t(j));
    if (p.place == Place::Register) return {true, (r >> p.bit & 1) != 0, {}};
    auto key = std::make_pair(p.place == Place::Lane, p.bit);
    auto it = threadBits_.find(key);
    if (it == threadBits_.end()) {
      Reg masked = e_.reg(RegClass::B32), pred = e_.reg(RegClass::Pred);
      e_.inst("and.b32", {masked, p.place == Place::Lane ? cg_.lane() : cg_.warp(), int64_t(1) << p.bit});
      e_.inst("setp.ne.u32", {pred, masked, int64_t(0)});
      it = threadBits_.emplace(key, pred).first;
    }
    return {false, false, it->second};
  }

  // a XOR b; each predicate it computes once per op (an invalid second one: NOT of the first).
  PosBit exclusiveOr(const PosBit& a, const PosBit& b) {
    if (a.known && b.known) return {true, a.value != b.value, {}};
    const PosBit& k = a.known ? a : b;
    const PosBit& u = a.known ? b : a;
    if (k.known && !k.value) return u;
    const Reg other = k.known ? Reg{} : k.pred;
    auto key = std::make_pair(u.pred.id, other.id);
    auto it = combined_.find(key);
    if (it == combined_.end()) {
      Reg x = e_.reg(RegClass::Pred);
      if (other.valid()) e_.inst("xor.pred", {x, u.pred, other});
      else e_.inst("not.pred", {x, u.pred});
      it = combined_.emplace(key, x).first;
    }
    return {false, false, it->second};
  }

  Reg compare(Reg x, Reg y) {
    Reg d = e_.reg(RegClass::Pred);
    Reg src[] = {x, y};
    ptx::selectElementwise(e_, ptx::ElementOp{ir::Opcode::Cmp, t_, ptx::CmpPred::Gt, false, false, op_.loc}, d, src);
    return d;
  }

  Reg select(Reg p, Reg a, Reg b) {
    Reg d = e_.reg(ptx::regClassOf(t_));
    Reg src[] = {p, a, b};
    ptx::selectElementwise(e_, ptx::ElementOp{ir::Opcode::Select, t_, ptx::CmpPred::Eq, false, false, op_.loc}, d, src);
    return d;
  }

  Codegen& cg_;
  ptx::Entry& e_;
  const ir::Op& op_;
  const LinearLayout& l_;
  Scalar t_;
  int axis_;
  bool descending_;
  std::vector<AxisPlace> places_;
  std::vector<Reg> v_;
  int innerBits_ = 0;  // the row-major offset bits below the axis
  int rounds_ = 0;     // the rounds through shared memory so far
  std::map<std::pair<bool, int>, Reg> threadBits_;   // (lane?, bit) -> that bit of the lane or warp index
  std::map<std::pair<int, int>, Reg> combined_;      // exclusiveOr's predicates by register ids
};

}  // namespace

void lowerSort(Codegen& cg, const ir::Op& op) {
  const ir::Value* x = op.operand(0);
  if (!x->type.layout) throw InternalError(op.loc, "sort operand without a layout");
  const LinearLayout& l = *x->type.layout;
  const int axis = int(op.intAttr("axis"));
  const std::optional<layout::AxisBits> bits = layout::axisBits(l, axis);
  if (!bits) throw InternalError(op.loc, "sort operand's layout does not hold the axis in order: " + l.str());
  const int64_t n = x->type.shape.at(size_t(axis)), k = op.result()->type.shape.at(size_t(axis));
  SortEmitter sorter(cg, op, l, *bits);
  sorter.run(std::countr_zero(uint64_t(k)));
  const std::vector<Reg>& v = sorter.values();
  if (k == n) return cg.bind(op.result(), v);
  // The result's registers are the operand's with the dropped register bits 0 (truncateDim's order).
  std::vector<int> kept;
  const int regBits = l.hasInDim(layout::kRegister) ? l.getInDimSizeLog2(layout::kRegister) : 0;
  for (int b = 0; b < regBits; ++b)
    if (layout::keepsRegisterBit(l, axis, int32_t(k), b)) kept.push_back(b);
  std::vector<Reg> out;
  for (int32_t r = 0; r < (int32_t(1) << kept.size()); ++r) {
    int32_t full = 0;
    for (size_t i = 0; i < kept.size(); ++i)
      if (r >> i & 1) full |= int32_t(1) << kept[i];
    out.push_back(v.at(size_t(full)));
  }
  cg.bind(op.result(), std::move(out));
}

}  // namespace kiln::lower
