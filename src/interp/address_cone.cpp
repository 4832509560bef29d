// valuesFeedingAddresses: a backward closure from the pointer operands of loads and stores over the
// values each is computed from (ir/value_sources.h).
#include "interp/address_cone.h"

#include <vector>

#include "ir/value_sources.h"

namespace kiln::interp {

std::unordered_set<const ir::Value*> valuesFeedingAddresses(const ir::Function& fn) {
  std::unordered_set<const ir::Value*> cone;
  std::vector<const ir::Value*> work;
  auto add = [&](const ir::Value* v) {
    if (v && (v->type.isInt() || v->type.isPtr()) && cone.insert(v).second) work.push_back(v);
  };
  // The roots: every load's and store's pointer (a worklist over blocks: regions nest as deep as the
  // source does).
  std::vector<const ir::Block*> blocks{&fn.body};
  while (!blocks.empty()) {
    const ir::Block* b = blocks.back();
    blocks.pop_back();
    for (const auto& op : b->ops) {
      if ((op->opcode == ir::Opcode::Load || op->opcode == ir::Opcode::Store) && op->numOperands() > 0)
        add(op->operand(0));
      for (const auto& r : op->regions) blocks.push_back(r.get());
    }
  }
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    ir::forEachSource(*v, add);
  }
  return cone;
}

}  // namespace kiln::interp
