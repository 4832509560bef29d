// How many operands read each value of a function, kept up to date while a GPU pass removes ops, with
// the removal of pure ops nothing reads any more (the address and mask slices a TMA copy replaced).
// Internal to the schedule passes.
#pragma once
#include <map>
#include <set>
#include <vector>

#include "ir/ir.h"

namespace kiln::schedule {

class ValueUses {
 public:
  explicit ValueUses(ir::Function& fn) {
    ir::walk(fn, [&](ir::Op& op) {
      for (const ir::Value* v : op.operands) ++count_[v];
    });
  }

  // Removes the pure op defining `v` when nothing reads its results any more, then its operands' likewise.
  // Removed values are remembered: an operand list may name one that another's removal took already.
  void eraseIfDead(ir::Value* v) {
    if (removed_.count(v)) return;
    ir::Op* def = v->def;
    if (!def || def->info().effect != ir::Effect::Pure || !def->regions.empty()) return;
    for (const auto& r : def->results)
      if (count_[r.get()] > 0) return;
    const std::vector<ir::Value*> operands = def->operands;
    for (ir::Value* o : operands) --count_[o];
    for (const auto& r : def->results) removed_.insert(r.get());
    def->parent->remove(def);
    for (ir::Value* o : operands) eraseIfDead(o);
  }

  // Drops reads of `operands` (by an op removed or rewritten) and what only they kept.
  void release(const std::vector<ir::Value*>& operands) {
    for (ir::Value* v : operands) --count_[v];
    for (ir::Value* v : operands) eraseIfDead(v);
  }

  int64_t reads(const ir::Value* v) const {
    auto it = count_.find(v);
    return it == count_.end() ? 0 : it->second;
  }
  void addRead(const ir::Value* v) { ++count_[v]; }  // an operand added after construction

 private:
  std::map<const ir::Value*, int64_t> count_;
  std::set<const ir::Value*> removed_;
};

}  // namespace kiln::schedule
