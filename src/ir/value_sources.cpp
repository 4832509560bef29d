// forEachSource: one rule per op family, and the region arguments and results of for, if and while.
#include "ir/value_sources.h"

namespace kiln::ir {

namespace {

using Visit = std::function<void(const Value*)>;

// Operand k of the terminator of `b` (a yield, or a while's condition).
void terminatorOperand(const Block& b, size_t k, const Visit& f) {
  const Op* t = b.terminator();
  if (t && k < t->numOperands()) f(t->operand(unsigned(k)));
}

void resultSources(const Op& op, unsigned result, const Visit& f) {
  switch (op.info().family) {
    case Family::Shape: case Family::Cast: case Family::Arith: case Family::Bitwise: case Family::Pointer:
    case Family::Hint: case Family::Layout:
      for (const Value* v : op.operands) f(v);
      return;
    case Family::Compare:
      if (op.opcode != Opcode::Select) {
        for (const Value* v : op.operands) f(v);
      } else if (op.numOperands() == 3) {  // the condition chooses; the result is one of the values
        f(op.operand(1));
        f(op.operand(2));
      }
      return;
    case Family::Exchange:  // a gather's elements are src's; a histogram counts
      if (op.opcode == Opcode::Gather) f(op.operand(0));
      return;
    case Family::Control:
      if (op.regions.empty()) return;
      if (op.opcode == Opcode::For) {  // the last iteration's yield, or the init after no iteration
        if (result + 3 < op.numOperands()) f(op.operand(result + 3));
        terminatorOperand(*op.regions[0], result, f);
      } else if (op.opcode == Opcode::If) {
        for (const auto& r : op.regions) terminatorOperand(*r, result, f);
      } else if (op.opcode == Opcode::While) {  // the condition's values after its flag
        terminatorOperand(*op.regions[0], size_t(result) + 1, f);
      }
      return;
    case Family::Constant: case Family::Index: case Family::Math: case Family::Memory: case Family::Reduce:
    case Family::Dot: case Family::Terminator: case Family::Assert: case Family::Asm: case Family::Shared: case Family::Async:
    case Family::Sync: case Family::Mma: case Family::Partition:
      return;  // taken from elsewhere
  }
}

void argumentSources(const Value& a, const Visit& f) {
  const Op* owner = a.owner ? a.owner->parentOp : nullptr;
  if (!owner || owner->regions.empty()) return;  // a kernel parameter
  if (owner->opcode == Opcode::For) {
    if (a.index == 0) {  // the induction variable: lb, lb + step, ...
      if (owner->numOperands() >= 3) f(owner->operand(0)), f(owner->operand(2));
      return;
    }
    if (a.index + 2 < owner->numOperands()) f(owner->operand(a.index + 2));
    terminatorOperand(*owner->regions[0], a.index - 1, f);
  } else if (owner->opcode == Opcode::While && owner->regions.size() == 2) {
    if (a.owner == owner->regions[0].get()) {  // before: the inits, then the after region's yield
      if (a.index < owner->numOperands()) f(owner->operand(a.index));
      terminatorOperand(*owner->regions[1], a.index, f);
    } else {  // after: the condition's values
      terminatorOperand(*owner->regions[0], size_t(a.index) + 1, f);
    }
  }
}

}  // namespace

void forEachSource(const Value& v, const std::function<void(const Value*)>& f) {
  if (v.def)
    resultSources(*v.def, v.index, f);
  else
    argumentSources(v, f);
}

}  // namespace kiln::ir
