// dce: dead code elimination by liveness. Stores, asserts, volatile loads and `while` loops (which
// may not terminate) always stay, with the control flow around them; a value is live when such an
// op or a live value needs it. Everything else that is not live goes: pure ops and non-volatile
// loads (as in Triton), `for`/`if`/`reduce_combine`/`scan` ops left with no live result, and single
// loop-carried values of a kept `for` (its init, region argument, yield operand and result) or results
// of a kept `if`. A live reduce_combine or scan keeps its whole combine region.
#include <unordered_set>

#include "passes/effects.h"
#include "passes/passes.h"

namespace kiln::passes {

using ir::Opcode;
using ir::Value;

namespace {

class Dce {
 public:
  void run(ir::Function& fn) {
    for (auto& op : fn.body.ops) findKept(*op);
    for (const ir::Op* op : kept_) markRoots(*op);
    while (!work_.empty()) {
      const Value* v = work_.back();
      work_.pop_back();
      propagate(v);
    }
    sweep(fn.body);
  }

 private:
  std::unordered_set<const ir::Op*> kept_;  // ops that stay whatever becomes of their results
  std::unordered_set<const Value*> live_;
  std::vector<const Value*> work_;

  void markLive(Value* v) {
    if (live_.insert(v).second) work_.push_back(v);
  }
  bool isLive(const Value* v) const { return live_.count(v) != 0; }

  bool findKept(ir::Op& op) {
    Effect e = effectOf(op);
    bool keep = e == Effect::Write || op.opcode == Opcode::While || op.opcode == Opcode::Return;
    for (auto& r : op.regions)
      for (auto& child : r->ops)
        if (findKept(*child) && effectOf(*child) != Effect::Terminator) keep = true;
    if (keep) kept_.insert(&op);
    return keep;
  }

  void markAll(const std::vector<Value*>& vs) {
    for (Value* v : vs) markLive(v);
  }

  void markTerminators(const ir::Op& op) {
    for (auto& r : op.regions)
      if (const ir::Op* t = r->terminator()) markAll(t->operands);
  }

  void markBounds(const ir::Op& loop) {
    for (unsigned k = 0; k < 3 && k < loop.numOperands(); ++k) markLive(loop.operand(k));
  }

  void markRoots(const ir::Op& op) {
    switch (effectOf(op)) {
      case Effect::Write:
        markAll(op.operands);
        return;
      case Effect::Control:
        if (op.opcode == Opcode::For) markBounds(op);
        if (op.opcode == Opcode::If) markAll(op.operands);
        if (op.opcode == Opcode::While || op.opcode == Opcode::ReduceCombine || op.opcode == Opcode::Scan) {
          markAll(op.operands);
          markTerminators(op);
        }
        return;
      case Effect::Pure: case Effect::Read: case Effect::Terminator:
        return;
    }
  }

  // Loop-carried value k of a `for`: its init, region argument, yield operand and result live or die together.
  void markSlot(const ir::Op& loop, unsigned k) {
    markBounds(loop);
    const ir::Block& body = loop.region(0);
    if (3 + k < loop.numOperands()) markLive(loop.operand(3 + k));
    if (k + 1 < body.numArgs()) markLive(body.arg(k + 1));
    if (k < loop.numResults()) markLive(loop.result(k));
    const ir::Op* y = body.terminator();
    if (y && k < y->numOperands()) markLive(y->operand(k));
  }

  void propagate(const Value* v) {
    if (const ir::Op* def = v->def) {
      if (def->opcode == Opcode::For) {
        markSlot(*def, v->index);
      } else if (def->opcode == Opcode::If) {
        markAll(def->operands);
        for (auto& r : def->regions) {
          const ir::Op* y = r->terminator();
          if (y && v->index < y->numOperands()) markLive(y->operand(v->index));
        }
      } else {
        markAll(def->operands);
        markTerminators(*def);  // a reduce_combine or scan needs all of its combine region
      }
      return;
    }
    const ir::Op* parent = v->owner ? v->owner->parentOp : nullptr;
    if (parent && parent->opcode == Opcode::For) {
      markBounds(*parent);
      if (v->index > 0) markSlot(*parent, v->index - 1);
    }
  }

  bool isDead(const ir::Op& op) const {
    if (kept_.count(&op)) return false;
    switch (effectOf(op)) {
      case Effect::Write: case Effect::Terminator:
        return false;
      case Effect::Pure: case Effect::Read: case Effect::Control:
        for (const auto& r : op.results)
          if (isLive(r.get())) return false;
        return true;
    }
    return false;
  }

  // Backward, regions first, so that a loop's dead values are dropped after the ops of its body that
  // used them were marked; every dead op is freed at the end of its block, none is read after.
  void sweep(ir::Block& b) {
    std::vector<bool> dead(b.ops.size(), false);
    for (size_t i = b.ops.size(); i-- > 0;) {
      ir::Op* op = b.ops[i].get();
      if (isDead(*op)) {
        dead[i] = true;
        continue;
      }
      for (auto& r : op->regions) sweep(*r);
      if (op->opcode == Opcode::For) dropDeadLoopValues(*op);
      if (op->opcode == Opcode::If) dropDeadIfResults(*op);
    }
    eraseOps(b, dead);
  }

  static void renumber(std::vector<std::unique_ptr<Value>>& vs) {
    for (unsigned k = 0; k < vs.size(); ++k) vs[k]->index = k;
  }

  void dropDeadLoopValues(ir::Op& loop) {
    ir::Block& body = loop.region(0);
    ir::Op* y = body.terminator();
    unsigned n = loop.numResults();
    if (loop.numOperands() != 3 + n || body.numArgs() != n + 1 || !y || y->numOperands() != n) return;
    for (unsigned k = n; k-- > 0;) {
      if (isLive(loop.result(k))) continue;
      loop.operands.erase(loop.operands.begin() + 3 + k);
      body.args.erase(body.args.begin() + 1 + k);
      y->operands.erase(y->operands.begin() + k);
      loop.results.erase(loop.results.begin() + k);
    }
    renumber(body.args);
    renumber(loop.results);
  }

  void dropDeadIfResults(ir::Op& op) {
    unsigned n = op.numResults();
    for (auto& r : op.regions) {
      const ir::Op* y = r->terminator();
      if (!y || y->opcode != Opcode::Yield || y->numOperands() != n) return;
    }
    for (unsigned k = n; k-- > 0;) {
      if (isLive(op.result(k))) continue;
      for (auto& r : op.regions) r->terminator()->operands.erase(r->terminator()->operands.begin() + k);
      op.results.erase(op.results.begin() + k);
    }
    renumber(op.results);
  }
};

}  // namespace

void dce(ir::Function& fn) { Dce().run(fn); }

}  // namespace kiln::passes
