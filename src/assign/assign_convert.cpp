// Layout assignment, second half: writes the chosen layouts into the types and inserts the
// convert_layout ops the contract needs; then removes the conversions that are not worth their cost.
#include <functional>
#include <map>
#include <unordered_set>

#include "layout/conversions.h"
#include "assign/assign_rules.h"
#include "support/diagnostic.h"

namespace kiln::lower::assign {
namespace {

bool isTile(const ir::Value* v) { return v && v->type.isTensor(); }

void walkValues(ir::Block& b, const std::function<void(ir::Value*)>& fn) {
  for (const auto& a : b.args) fn(a.get());
  for (const auto& op : b.ops) {
    for (const auto& r : op->results) fn(r.get());
    for (const auto& reg : op->regions) walkValues(*reg, fn);
  }
}

// Where operand `i` of `op` must be in another layout than it has: the layout it needs.
struct Need {
  ir::Op* op;
  unsigned idx;
  LayoutRef layout;
};

void collectNeeds(ir::Op& op, const Choice& choice, LayoutPool& pool, std::vector<Need>& out) {
  auto need = [&](ir::Op* user, unsigned i, const LayoutRef& l) {
    const ir::Value* v = user->operand(i);
    if (isTile(v) && *v->type.layout != *l) out.push_back(Need{user, i, l});
  };
  switch (layoutRuleOf(op.opcode)) {
    case LayoutRule::Elementwise: case LayoutRule::Load: case LayoutRule::Broadcast: case LayoutRule::ExpandDims:
    case LayoutRule::Reshape: case LayoutRule::Permute: case LayoutRule::Exchange:
      if (op.numResults() >= 1 && isTile(op.result()))
        for (unsigned i = 0; i < op.numOperands(); ++i)
          if (auto want = operandFromResult(op, i, *op.result()->type.layout)) need(&op, i, pool.intern(*want));
      break;
    case LayoutRule::Store:
      if (auto it = choice.storeLayouts.find(&op); it != choice.storeLayouts.end())
        for (unsigned i = 0; i < op.numOperands(); ++i) need(&op, i, it->second);
      break;
    case LayoutRule::Dot: {
      const std::vector<LayoutRef>& d = choice.dotLayouts.at(&op);
      for (unsigned i = 0; i < 3; ++i) need(&op, i, d[i]);
      break;
    }
    case LayoutRule::ControlFlow:
      for (const Tie& t : tiesOf(op))
        if (isTile(t.defs[0]))
          for (size_t u = 0; u < t.users.size(); ++u) need(t.users[u], t.operandIdx[u], t.defs[0]->type.layout);
      break;
    case LayoutRule::Combine: {
      LayoutRef l = pool.intern(combineOperand(op, *op.operand(0)->type.layout));
      for (unsigned i = 0; i < op.numOperands(); ++i) need(&op, i, l);
      break;
    }
    case LayoutRule::Source: case LayoutRule::Reduce: case LayoutRule::Convert: case LayoutRule::Terminator: case LayoutRule::Free:
      break;
  }
  for (const auto& r : op.regions)
    for (const auto& inner : r->ops) collectNeeds(*inner, choice, pool, out);
}

ir::Value* convertAfterDef(ir::Value* v, const LayoutRef& l, const SourceLoc& loc) {
  ir::Builder b;
  if (v->def)
    b.setInsertionPointAfter(v->def);
  else
    b.setInsertionPoint(*v->owner, 0);
  return b.create1(ir::Opcode::ConvertLayout, {v}, v->type.withLayout(l), {}, v->def ? v->def->loc : loc);
}

// ---- rematerialization: recompute a cheap value in another layout instead of moving data

constexpr int kMaxRematOps = 16;

bool rematerializable(const ir::Op& op) {
  switch (layoutRuleOf(op.opcode)) {
    case LayoutRule::Source: case LayoutRule::Elementwise: case LayoutRule::Broadcast: case LayoutRule::ExpandDims:
    case LayoutRule::Reshape: case LayoutRule::Permute:
      return op.numResults() == 1 && op.opcode != ir::Opcode::InlineAsm;  // the user's asm runs where it stands
    case LayoutRule::Load: case LayoutRule::Store: case LayoutRule::Reduce: case LayoutRule::Combine: case LayoutRule::Dot:
    case LayoutRule::Exchange: case LayoutRule::Convert: case LayoutRule::ControlFlow: case LayoutRule::Terminator:
    case LayoutRule::Free:
      return false;
  }
  return false;
}

class Remat {
 public:
  explicit Remat(LayoutPool& pool) : pool_(pool) {}

  // The number of ops recomputing `v` in layout `l` takes, or -1 when it cannot be (a load, a loop value,
  // a reduction, ... in another layout) or takes more than kMaxRematOps. Memoised within one query only:
  // between queries conversions are erased and their storage reused.
  int costOf(ir::Value* v, const LayoutRef& l) {
    cost_.clear();
    return cost(v, l, 0);
  }

  // Recomputes `v` in layout `l` at `b` (costOf(v, l) >= 0); the originals it copies are recorded. Copies
  // are shared within one call only: they stand where `b` inserts.
  ir::Value* cloneAt(ir::Value* v, const LayoutRef& l, ir::Builder& b, std::vector<ir::Op*>& copied) {
    made_.clear();
    return clone(v, l, b, copied);
  }

 private:
  int cost(ir::Value* v, const LayoutRef& l, int depth) {
    if (!isTile(v) || *v->type.layout == *l) return 0;
    if (depth > kMaxRematOps) return -1;  // a longer chain has more ops than that anyway
    auto key = std::make_pair(v, l.get());
    if (auto it = cost_.find(key); it != cost_.end()) return it->second;
    int total = -1;
    if (v->def && rematerializable(*v->def)) {
      total = 1;
      for (unsigned i = 0; i < v->def->numOperands() && total >= 0 && total <= kMaxRematOps; ++i) {
        ir::Value* o = v->def->operand(i);
        if (!isTile(o)) continue;
        auto want = operandFromResult(*v->def, i, *l);
        int c = want ? cost(o, pool_.intern(*want), depth + 1) : -1;
        total = c < 0 ? -1 : total + c;
      }
      if (total > kMaxRematOps) total = -1;
    }
    cost_[key] = total;
    return total;
  }

  ir::Value* clone(ir::Value* v, const LayoutRef& l, ir::Builder& b, std::vector<ir::Op*>& copied) {
    if (!isTile(v) || *v->type.layout == *l) return v;
    auto key = std::make_pair(v, l.get());
    if (auto it = made_.find(key); it != made_.end()) return it->second;
    ir::Op& op = *v->def;
    std::vector<ir::Value*> operands;
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      ir::Value* o = op.operand(i);
      auto want = isTile(o) ? operandFromResult(op, i, *l) : std::nullopt;
      operands.push_back(want ? clone(o, pool_.intern(*want), b, copied) : o);
    }
    ir::Value* r = b.create1(op.opcode, operands, v->type.withLayout(l), op.attrs, op.loc);
    copied.push_back(&op);
    made_[key] = r;
    return r;
  }

  LayoutPool& pool_;
  std::map<std::pair<ir::Value*, const Layout*>, int> cost_;
  std::map<std::pair<ir::Value*, const Layout*>, ir::Value*> made_;
};

void collectConverts(ir::Block& b, std::vector<ir::Op*>& out) {
  for (const auto& op : b.ops) {
    if (op->opcode == ir::Opcode::ConvertLayout) out.push_back(op.get());
    for (const auto& r : op->regions) collectConverts(*r, out);
  }
}

void countUses(ir::Block& b, std::unordered_map<const ir::Value*, int>& uses) {
  for (const auto& op : b.ops) {
    for (const ir::Value* v : op->operands) ++uses[v];
    for (const auto& r : op->regions) countUses(*r, uses);
  }
}

void erase(ir::Op* op) { op->parent->remove(op); }

}  // namespace

void insertConversions(ir::Function& fn, const Choice& choice) {
  walkValues(fn.body, [&](ir::Value* v) {
    if (!isTile(v)) {
      v->type.layout = nullptr;
      return;
    }
    auto it = choice.layouts.find(v);
    if (it == choice.layouts.end()) throw InternalError({}, "layout assignment: a tile has no chosen layout");
    v->type.layout = it->second;
  });
  LayoutPool pool;  // interns the needs, so one value converts once per distinct layout
  std::vector<Need> needs;
  for (const auto& op : fn.body.ops) collectNeeds(*op, choice, pool, needs);
  std::map<std::pair<ir::Value*, const Layout*>, ir::Value*> made;
  for (const Need& n : needs) {
    ir::Value* v = n.op->operand(n.idx);
    ir::Value*& c = made[{v, n.layout.get()}];
    if (!c) c = convertAfterDef(v, n.layout, n.op->loc);
    n.op->operands[n.idx] = c;
  }
}

void removeRedundantConversions(ir::Function& fn, LayoutPool& pool) {
  std::vector<ir::Op*> converts;
  collectConverts(fn.body, converts);
  std::vector<ir::Op*> dead;  // ops that may have lost their last user
  Remat remat(pool);
  for (ir::Op* c : converts) {
    ir::Value* src = c->operand(0);
    // convert(convert(x)) -> convert(x)
    while (src->def && src->def->opcode == ir::Opcode::ConvertLayout) {
      dead.push_back(src->def);
      src = src->def->operand(0);
    }
    c->operands[0] = src;
    LayoutRef target = pool.intern(*c->result()->type.layout);
    ir::Value* replacement = nullptr;
    if (*src->type.layout == *target) {
      replacement = src;
    } else {
      int cost = remat.costOf(src, target);
      bool single = cost == 1 && layoutRuleOf(src->def->opcode) == LayoutRule::Source;
      if (cost > 0 && (single || !layout::needsNoDataMovement(*src->type.layout, *target))) {
        ir::Builder b;
        b.setInsertionPointBefore(c);
        std::vector<ir::Op*> copied;
        replacement = remat.cloneAt(src, target, b, copied);
        dead.insert(dead.end(), copied.begin(), copied.end());
      }
    }
    if (!replacement) continue;
    ir::replaceAllUses(fn.body, c->result(), replacement);
    dead.push_back(src->def ? src->def : nullptr);
    erase(c);
  }
  // Drop the originals that nothing uses any more (pure ops only: remat never copies anything else).
  std::unordered_set<ir::Op*> erased;
  for (bool progress = true; progress;) {
    progress = false;
    std::unordered_map<const ir::Value*, int> uses;
    countUses(fn.body, uses);
    for (ir::Op* op : dead) {
      if (!op || erased.count(op) || (!rematerializable(*op) && op->opcode != ir::Opcode::ConvertLayout)) continue;
      bool used = false;
      for (const auto& r : op->results) used |= uses[r.get()] > 0;
      if (used) continue;
      erased.insert(op);
      erase(op);
      progress = true;
    }
  }
}

}  // namespace kiln::lower::assign
