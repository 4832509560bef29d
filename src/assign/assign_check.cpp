// checkGpuContract: every rule of the GPU IR contract (docs/layouts.md) checked on a function, so
// layout assignment's output is checked where it is made and the lowering can rely on it.
#include <string>

#include "layout/axis_bits.h"
#include "layout/named_layouts.h"
#include "assign/assign_layouts.h"
#include "assign/assign_rules.h"
#include "assign/dot_layouts.h"
#include "support/diagnostic.h"

namespace kiln::lower {
namespace {

using assign::LayoutRule;
using assign::Layout;

bool isTile(const ir::Value* v) { return v && v->type.isTensor(); }

[[noreturn]] void broken(const ir::Op* op, const std::string& what) {
  std::string where = op ? std::string("'") + op->name() + "' " : std::string("a kernel parameter ");
  throw InternalError(op ? op->loc : SourceLoc{}, "GPU IR contract: " + where + what);
}

class Checker {
 public:
  Checker(int numWarps, const ptx::Target& target) : numWarps_(numWarps), target_(target) {
    while ((1 << warpBits_) < numWarps) ++warpBits_;
  }

  void block(const ir::Block& b) {
    for (const auto& a : b.args) value(a.get(), b.parentOp);
    for (const auto& op : b.ops) {
      for (const auto& r : op->results) value(r.get(), op.get());
      rules(*op);
      for (const auto& r : op->regions) block(*r);
    }
  }

 private:
  // A tile's layout: in dims register, lane (5 bits), warp (log2 numWarps bits); out dims its shape.
  void value(const ir::Value* v, const ir::Op* op) {
    const auto& l = v->type.layout;
    if (!isTile(v)) {
      if (l) broken(op, "gives a scalar a layout: " + v->type.str());
      return;
    }
    if (!l) broken(op, "leaves a tile without a layout: " + v->type.str());
    const auto& ins = l->ins();
    if (ins.size() != 3 || ins[0].name != layout::kRegister || ins[1].name != layout::kLane ||
        ins[2].name != layout::kWarp)
      broken(op, "has a layout whose inputs are not (register, lane, warp): " + v->type.str());
    if (ins[1].bases.size() != 5 || int(ins[2].bases.size()) != warpBits_)
      broken(op, "has a layout for another lane or warp count than 32 x " + std::to_string(numWarps_) + ": " +
                     v->type.str());
    const auto& outs = l->outs();
    bool fits = outs.size() == v->type.shape.size();
    for (size_t d = 0; fits && d < outs.size(); ++d)
      fits = outs[d].name == layout::dimName(int(d)) && outs[d].size == v->type.shape[d];
    if (!fits) broken(op, "has a layout that does not fit its shape: " + v->type.str());
  }

  void same(const ir::Op& op, const ir::Value* v, const Layout& want, const std::string& role) {
    if (*v->type.layout != want)
      broken(&op, "needs " + role + " in layout " + want.str() + ", got " + v->type.layout->str());
  }

  void rules(const ir::Op& op) {
    auto result = [&]() -> const Layout& { return *op.result()->type.layout; };
    switch (assign::layoutRuleOf(op.opcode)) {
      case LayoutRule::Elementwise: case LayoutRule::Load: case LayoutRule::Broadcast: case LayoutRule::ExpandDims:
      case LayoutRule::Reshape: case LayoutRule::Permute: case LayoutRule::Exchange:
        if (op.numResults() < 1 || !isTile(op.result())) return;
        for (unsigned i = 1; i < op.numResults(); ++i) same(op, op.result(i), result(), "every result in one layout");
        for (unsigned i = 0; i < op.numOperands(); ++i)
          if (auto want = assign::operandFromResult(op, i, result()))
            same(op, op.operand(i), *want, "operand #" + std::to_string(i));
        return;
      case LayoutRule::Store:
        if (!isTile(op.operand(0))) return;
        for (unsigned i = 1; i < op.numOperands(); ++i)  // the tiles (a TMA description's scalars have none)
          if (isTile(op.operand(i)))
            same(op, op.operand(i), *op.operand(0)->type.layout, "operand #" + std::to_string(i) + " in the pointer's layout");
        return;
      case LayoutRule::Reduce:
        if (isTile(op.result()))
          same(op, op.result(), layout::sliceLayout(*op.operand(0)->type.layout, int(op.intAttr("axis"))),
               "its result");
        return;
      case LayoutRule::Combine: {
        const Layout& l = *op.operand(0)->type.layout;
        if (!layout::axisBits(l, int(op.intAttr("axis"))))
          broken(&op, "needs its operands in a layout that holds the axis in order, got " + l.str());
        for (unsigned i = 0; i < op.numOperands(); ++i) same(op, op.operand(i), l, "every operand in one layout");
        for (unsigned i = 0; i < op.numResults(); ++i)
          if (isTile(op.result(i))) same(op, op.result(i), assign::combineResult(op, l), "result #" + std::to_string(i));
        return;
      }
      case LayoutRule::Dot: {
        const char* names[] = {"a", "b", "acc"};
        for (int i = 0; i < 3; ++i) same(op, op.operand(unsigned(i)), dotLayout(i, op, numWarps_, target_), names[i]);
        same(op, op.result(), *op.operand(2)->type.layout, "its result in the accumulator's layout");
        return;
      }
      case LayoutRule::ControlFlow:
        for (const assign::Tie& t : assign::tiesOf(const_cast<ir::Op&>(op))) {
          if (!isTile(t.defs[0])) continue;
          const Layout& l = *t.defs[0]->type.layout;
          for (const ir::Value* d : t.defs) same(op, d, l, "results and region arguments of one iteration value");
          for (size_t u = 0; u < t.users.size(); ++u)
            same(*t.users[u], t.users[u]->operand(t.operandIdx[u]), l, "the iteration value's layout");
        }
        return;
      case LayoutRule::Convert:
        if (!isTile(op.operand(0)) || !op.result()->type.sameShapeAndElement(op.operand(0)->type))
          broken(&op, "must keep the shape and element type of a tile");
        return;
      case LayoutRule::Source: case LayoutRule::Terminator: case LayoutRule::Free:
        return;
    }
  }

  int numWarps_;
  ptx::Target target_;
  int warpBits_ = 0;
};

}  // namespace

void checkGpuContract(const ir::Function& fn, int numWarps, const ptx::Target& target) {
  if (numWarps < 1 || numWarps > 32 || (numWarps & (numWarps - 1)))
    throw InternalError(fn.loc, "checkGpuContract: numWarps must be a power of two from 1 to 32");
  Checker(numWarps, target).block(fn.body);
}

}  // namespace kiln::lower
