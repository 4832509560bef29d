// Layout propagation: anchors first (dot accumulators, then loads and stores), each followed by
// backward (users -> operands) and forward (operands -> results) propagation to a fixed point, then
// defaults for what nothing reached. Tiers keep a loop's accumulator in its dot layout even when code
// after the loop would like another one, so conversions land outside loops.
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "assign/assign_rules.h"
#include "assign/dot_layouts.h"
#include "support/diagnostic.h"

namespace kiln::lower::assign {
namespace {

bool isTile(const ir::Value* v) { return v && v->type.isTensor(); }

// Disjoint sets of values (union by size, path halving).
class ValueSets {
 public:
  const ir::Value* root(const ir::Value* v) const {
    for (;;) {
      auto it = parent_.find(v);
      if (it == parent_.end() || it->second == v) return v;
      auto up = parent_.find(it->second);
      if (up != parent_.end()) it->second = up->second;  // halve the path
      v = it->second;
    }
  }
  void unite(const ir::Value* a, const ir::Value* b) {
    const ir::Value *ra = root(a), *rb = root(b);
    if (ra == rb) return;
    if (size(ra) < size(rb)) std::swap(ra, rb);
    parent_[rb] = ra;
    size_[ra] += size(rb);
  }

 private:
  size_t size(const ir::Value* r) const {
    auto it = size_.find(r);
    return it == size_.end() ? 1 : it->second;
  }
  mutable std::unordered_map<const ir::Value*, const ir::Value*> parent_;
  std::unordered_map<const ir::Value*, size_t> size_;
};

class Propagation {
 public:
  Propagation(ir::Function& fn, const analysis::AxisInfoAnalysis& axis, int numWarps, const ptx::Target& target,
              LayoutPool& pool)
      : fn_(fn), axis_(axis), numWarps_(numWarps), target_(target), pool_(pool) {
    collect(fn.body);
  }

  Choice run() {
    // Tier 1: dots. Their results are fixed; the accumulator operand (often a loop-carried value) is an
    // anchor. The a and b operands are not: they are converted just before the dot, like Triton does.
    for (ir::Op* op : ops_) {
      if (op->opcode != ir::Opcode::Dot) continue;
      std::vector<LayoutRef>& d = choice_.dotLayouts[op];
      for (int i = 0; i < 3; ++i) d.push_back(pool_.intern(dotLayout(i, *op, numWarps_, target_)));
      define(op->result(), d[2]);
      assign(op->operand(2), *d[2]);
    }
    propagate();
    // Tier 2: loads and atomics (result and operands) and the pointer and mask of stores.
    for (ir::Op* op : ops_) {
      const LayoutRule rule = layoutRuleOf(op->opcode);
      if ((rule != LayoutRule::Load && rule != LayoutRule::Store) || !isTile(op->operand(0))) continue;
      LayoutRef l = pool_.intern(coalescedLayout(op->operand(0), axis_, numWarps_));
      if (rule == LayoutRule::Load) {
        define(op->result(), l);
        for (ir::Value* v : op->operands) assign(v, *l);
      } else {
        choice_.storeLayouts[op] = l;
        assign(op->operand(0), *l);
        if (op->numOperands() > 2) assign(op->operand(2), *l);
      }
    }
    propagate();
    // Tier 3: stored values nothing else decided take the store's layout.
    for (ir::Op* op : ops_)
      if (auto it = choice_.storeLayouts.find(op); it != choice_.storeLayouts.end()) assign(op->operand(1), *it->second);
    propagate();
    // Tier 4: defaults, in program order, each propagated before the next in its group. No rule
    // connects values of different groups, so each round seeds the first unassigned value of every
    // group and one propagation serves them all: the same result as one value at a time, in linear
    // rather than quadratic time when many independent tiles are left (unrolled reductions).
    for (bool seeded = true; seeded;) {
      seeded = false;
      std::unordered_set<const ir::Value*> groups;
      for (const ir::Value* v : values_)
        if (isTile(v) && !get(v) && !fixed_.count(v) && groups.insert(groups_.root(v)).second)
          seeded |= assign(v, defaultLayout(v->type.shape, numWarps_));
      if (seeded) propagate();
    }
    for (const ir::Value* v : values_) {
      if (!isTile(v)) continue;
      const LayoutRef* l = find(v);
      if (!l) throw InternalError(v->def ? v->def->loc : SourceLoc{}, "layout assignment left a tile without a layout");
      choice_.layouts[v] = *l;
    }
    return std::move(choice_);
  }

 private:
  // ---- program order, fixed values and control-flow groups
  void collect(ir::Block& b) {
    for (const auto& a : b.args) values_.push_back(a.get());
    for (const auto& op : b.ops) {
      ops_.push_back(op.get());
      for (const auto& r : op->results) values_.push_back(r.get());
      switch (layoutRuleOf(op->opcode)) {
        case LayoutRule::Load: case LayoutRule::Dot: case LayoutRule::Reduce: case LayoutRule::Combine: case LayoutRule::Convert:
          for (const auto& r : op->results) fixed_.insert(r.get());
          break;
        case LayoutRule::ControlFlow:
          for (const Tie& t : tiesOf(*op)) {
            for (size_t i = 1; i < t.defs.size(); ++i) tied_.unite(t.defs[0], t.defs[i]);
            for (const ir::Value* d : t.defs) groups_.unite(t.defs[0], d);
            for (size_t u = 0; u < t.users.size(); ++u) groups_.unite(t.defs[0], t.users[u]->operand(t.operandIdx[u]));
          }
          break;
        case LayoutRule::Elementwise:  // several results (inline_asm's) share one layout, the first's
          for (size_t i = 1; i < op->results.size(); ++i) tied_.unite(op->result(0), op->result(unsigned(i)));
          break;
        case LayoutRule::Source: case LayoutRule::Broadcast: case LayoutRule::ExpandDims:
        case LayoutRule::Reshape: case LayoutRule::Permute: case LayoutRule::Exchange: case LayoutRule::Store:
        case LayoutRule::Terminator: case LayoutRule::Free:
          break;
      }
      // Propagation only ever flows between the tiles of one op (and along ties): group them.
      const ir::Value* first = nullptr;
      auto group = [&](const ir::Value* v) {
        if (!isTile(v)) return;
        if (first) groups_.unite(first, v);
        else first = v;
      };
      for (const ir::Value* v : op->operands) group(v);
      for (const auto& r : op->results) group(r.get());
      for (const auto& r : op->regions) collect(*r);
    }
  }

  const ir::Value* root(const ir::Value* v) const { return tied_.root(v); }
  const LayoutRef* find(const ir::Value* v) const {
    auto it = layouts_.find(root(v));
    return it == layouts_.end() ? nullptr : &it->second;
  }
  const Layout* get(const ir::Value* v) const {
    const LayoutRef* l = find(v);
    return l ? l->get() : nullptr;
  }
  // A propagated layout: taken only by a tile that has none yet and whose layout its op does not fix.
  bool assign(const ir::Value* v, const Layout& l) {
    if (!isTile(v) || fixed_.count(v) || get(v)) return false;
    layouts_[root(v)] = pool_.intern(l);
    return true;
  }
  // The layout a value's own op fixes (load, dot, reduce results).
  bool define(const ir::Value* v, LayoutRef l) {
    if (get(v)) return false;
    layouts_[root(v)] = std::move(l);
    return true;
  }

  // ---- propagation
  void propagate() {
    // Each round that reports a change assigns at least one more value, so this ends.
    for (size_t round = 0; round <= values_.size() + 1; ++round) {
      while (backward(fn_.body)) {
      }
      if (!forward(fn_.body)) return;
    }
  }

  bool tieBackward(ir::Op& op) {
    bool changed = false;
    for (const Tie& t : tiesOf(op))
      if (const Layout* l = get(t.defs[0]))
        for (size_t u = 0; u < t.users.size(); ++u) changed |= assign(t.users[u]->operand(t.operandIdx[u]), *l);
    return changed;
  }

  // Reverse program order: an operand takes the layout its op needs given the op's result layout.
  bool backward(ir::Block& b) {
    bool changed = false;
    for (size_t k = b.ops.size(); k-- > 0;) {
      ir::Op& op = *b.ops[k];
      LayoutRule rule = layoutRuleOf(op.opcode);
      if (rule == LayoutRule::ControlFlow) changed |= tieBackward(op);
      for (size_t r = op.regions.size(); r-- > 0;) changed |= backward(*op.regions[r]);
      switch (rule) {
        case LayoutRule::Elementwise: case LayoutRule::Load: case LayoutRule::Broadcast: case LayoutRule::ExpandDims:
        case LayoutRule::Reshape: case LayoutRule::Permute: case LayoutRule::Exchange:
          if (const Layout* l = op.numResults() >= 1 ? get(op.result()) : nullptr)
            for (unsigned i = 0; i < op.numOperands(); ++i)
              if (auto want = operandFromResult(op, i, *l)) changed |= assign(op.operand(i), *want);
          break;
        case LayoutRule::Dot:
          changed |= assign(op.operand(2), *choice_.dotLayouts.at(&op)[2]);
          break;
        case LayoutRule::ControlFlow:
          changed |= tieBackward(op);
          break;
        case LayoutRule::Source: case LayoutRule::Reduce: case LayoutRule::Combine: case LayoutRule::Store: case LayoutRule::Convert:
        case LayoutRule::Terminator: case LayoutRule::Free:
          break;
      }
    }
    return changed;
  }

  // A value whose layout can be recomputed anywhere for free is a poor guide for its users' layout.
  static bool isCheap(const ir::Value* v) { return v->def && layoutRuleOf(v->def->opcode) == LayoutRule::Source; }

  // Program order: a result nobody asked for takes the layout its operands give it.
  bool forward(ir::Block& b) {
    bool changed = false;
    for (const auto& opPtr : b.ops) {
      ir::Op& op = *opPtr;
      switch (layoutRuleOf(op.opcode)) {
        case LayoutRule::Elementwise: case LayoutRule::ExpandDims: case LayoutRule::Reshape: case LayoutRule::Permute:
        case LayoutRule::Exchange: {
          if (op.numResults() < 1 || !isTile(op.result()) || get(op.result())) break;
          int pick = -1;
          for (unsigned i = 0; i < op.numOperands(); ++i)
            if (isTile(op.operand(i)) && get(op.operand(i)) && (pick < 0 || (isCheap(op.operand(unsigned(pick))) &&
                                                                             !isCheap(op.operand(i)))))
              pick = int(i);
          if (pick >= 0)
            if (auto l = resultFromOperand(op, unsigned(pick), *get(op.operand(unsigned(pick)))))
              changed |= assign(op.result(), *l);
          break;
        }
        case LayoutRule::Reduce:
          if (isTile(op.result()) && !get(op.result()) && get(op.operand(0)))
            changed |= define(op.result(), pool_.intern(*resultFromOperand(op, 0, *get(op.operand(0)))));
          break;
        case LayoutRule::Combine:
          if (const Layout* first = get(op.operand(0))) {
            const Layout l = combineOperand(op, *first);
            for (const auto& r : op.results)
              if (isTile(r.get()) && !get(r.get())) changed |= define(r.get(), pool_.intern(combineResult(op, l)));
          }
          break;
        case LayoutRule::ControlFlow:
          for (const auto& r : op.regions) changed |= forward(*r);
          // A loop-carried value follows what the body yields before what flows in.
          for (const Tie& t : tiesOf(op)) {
            if (!isTile(t.defs[0]) || get(t.defs[0])) continue;
            for (int pass = 0; pass < 2 && !get(t.defs[0]); ++pass)
              for (size_t u = 0; u < t.users.size(); ++u) {
                if ((t.users[u] == &op) != (pass == 1)) continue;
                if (const Layout* l = get(t.users[u]->operand(t.operandIdx[u]))) {
                  changed |= assign(t.defs[0], *l);
                  break;
                }
              }
          }
          break;
        case LayoutRule::Source: case LayoutRule::Broadcast: case LayoutRule::Dot: case LayoutRule::Load: case LayoutRule::Store:
        case LayoutRule::Convert: case LayoutRule::Terminator: case LayoutRule::Free:
          break;
      }
    }
    return changed;
  }

  ir::Function& fn_;
  const analysis::AxisInfoAnalysis& axis_;
  int numWarps_;
  ptx::Target target_;
  LayoutPool& pool_;
  std::vector<ir::Op*> ops_;             // every op, program order (pre-order)
  std::vector<const ir::Value*> values_;  // every value, program order
  std::unordered_set<const ir::Value*> fixed_;
  ValueSets tied_;   // values that share one layout (control-flow ties)
  ValueSets groups_;  // values propagation may connect
  std::unordered_map<const ir::Value*, LayoutRef> layouts_;        // by union-find root
  Choice choice_;
};

}  // namespace

Choice chooseLayouts(ir::Function& fn, const analysis::AxisInfoAnalysis& axis, int numWarps,
                     const ptx::Target& target, LayoutPool& pool) {
  return Propagation(fn, axis, numWarps, target, pool).run();
}

}  // namespace kiln::lower::assign
