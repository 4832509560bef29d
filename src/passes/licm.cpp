// licm: loop-invariant code motion. Every pure op at the top level of a `for` body or a `while`
// region whose operands are all defined outside the loop moves, in order, to just before the loop.
// Inner loops are done first, so an op invariant in several nested loops climbs out of all of them;
// a loop marked disable_licm (tl.range(..., disable_licm=True), `while tl.condition(c,
// disable_licm=True)`) keeps its regions' ops, so they climb no further than that loop.
// Loads, stores, asserts, control flow and ops that may trap (integer div/rem by a value not known
// to be non-zero) stay: a loop may run zero times, so a hoisted op runs when the original did not.
#include "passes/effects.h"
#include "passes/passes.h"

namespace kiln::passes {

using ir::Opcode;

namespace {

// Whether `v` is defined inside `loop`: as an argument of one of its regions or by an op nested
// in them. Walks up from the defining block; the depth is the nesting depth of the IR.
bool definedInside(const ir::Value* v, const ir::Op* loop) {
  const ir::Block* b = v->def ? v->def->parent : v->owner;
  while (b) {
    const ir::Op* owner = b->parentOp;
    if (!owner) return false;
    if (owner == loop) return true;
    b = owner->parent;
  }
  return false;
}

bool hoistable(const ir::Op& op, const ir::Op& loop) {
  if (!isPure(op) || !op.regions.empty() || mayTrap(op)) return false;
  for (const ir::Value* v : op.operands)
    if (definedInside(v, &loop)) return false;
  return true;
}

// Moves the invariant ops of `loop`'s regions before it; returns how many moved.
size_t hoistFrom(ir::Op& loop) {
  ir::Block& outer = *loop.parent;
  size_t moved = 0;
  for (auto& region : loop.regions) {
    ir::Block& body = *region;
    for (size_t i = 0; i < body.ops.size();) {
      ir::Op* op = body.ops[i].get();
      if (!hoistable(*op, loop)) {
        ++i;
        continue;
      }
      outer.insert(outer.indexOf(&loop), body.remove(op));
      ++moved;
    }
  }
  return moved;
}

void runBlock(ir::Block& b) {
  for (size_t i = 0; i < b.ops.size(); ++i) {
    ir::Op* op = b.ops[i].get();
    for (auto& r : op->regions) runBlock(*r);
    const bool keep = op->intAttrOr("disable_licm", 0) != 0;
    if ((op->opcode == Opcode::For || op->opcode == Opcode::While) && !keep) i += hoistFrom(*op);
  }
}

}  // namespace

void licm(ir::Function& fn) { runBlock(fn.body); }

}  // namespace kiln::passes
