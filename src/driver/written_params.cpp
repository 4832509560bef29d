// writtenParams (written_params.h): a forward data-flow over the kernel's Tile IR. Each value carries
// the set of parameters it may derive from; `store` and the atomics add their pointer operand's set to the answer.
// Structured control flow passes sets positionally (loop-carried values, branch results), iterated to
// a fixed point so a pointer advanced in a loop keeps its source.
#include "driver/written_params.h"

#include <cstdint>
#include <unordered_map>

namespace kiln {

namespace {

using ir::Opcode;

class Flow {
 public:
  explicit Flow(size_t params) : words_((params + 63) / 64), written_(words_, 0) {}

  void seed(const ir::Value* v, size_t param) { set(v)[param / 64] |= uint64_t(1) << (param % 64); }

  // One pass over the block; true when some set grew (run again until none does).
  bool walk(const ir::Block& b) {
    bool changed = false;
    for (const auto& opPtr : b.ops) changed |= visit(*opPtr);
    return changed;
  }

  bool written(size_t param) const { return (written_[param / 64] >> (param % 64)) & 1; }

 private:
  std::vector<uint64_t>& set(const ir::Value* v) {
    auto [it, inserted] = sets_.try_emplace(v);
    if (inserted) it->second.assign(words_, 0);
    return it->second;
  }

  // to |= from; true when `to` grew.
  bool flow(const ir::Value* from, const ir::Value* to) {
    auto it = sets_.find(from);
    if (it == sets_.end()) return false;
    const std::vector<uint64_t> src = it->second;  // a copy: set(to) may rehash the map
    std::vector<uint64_t>& dst = set(to);
    bool changed = false;
    for (size_t w = 0; w < words_; ++w) {
      uint64_t merged = dst[w] | src[w];
      changed |= merged != dst[w];
      dst[w] = merged;
    }
    return changed;
  }

  // Operand k of the block's terminator (yield or condition), or null when it has none.
  static const ir::Value* terminatorOperand(const ir::Block& b, size_t k) {
    const ir::Op* t = b.terminator();
    if (!t || (t->opcode != Opcode::Yield && t->opcode != Opcode::Condition) || k >= t->operands.size()) return nullptr;
    return t->operands[k];
  }

  bool flowIf(const ir::Value* from, const ir::Value* to) { return from && to && flow(from, to); }

  bool visit(const ir::Op& op) {
    // Not a switch over every op: only these four differ from the generic rule at the end.
    bool changed = false;
    if (op.opcode == Opcode::Load) return false;  // loaded values are data, not addresses derived from the pointer
    // Stores and atomics write through operand 0; an atomic's result is data, as a load's.
    if (op.opcode == Opcode::Store || op.opcode == Opcode::AtomicRmw || op.opcode == Opcode::AtomicCas) {
      if (auto it = sets_.find(op.operands.at(0)); it != sets_.end())
        for (size_t w = 0; w < words_; ++w) written_[w] |= it->second[w];
      return false;
    }
    if (op.opcode == Opcode::For) {  // operands (lower, upper, step, inits...); body args (iv, iters...)
      const ir::Block& body = op.region(0);
      for (size_t k = 0; k < 3 && k < op.operands.size(); ++k) changed |= flowIf(op.operands[k], body.args.at(0).get());
      for (size_t k = 0; k < op.results.size(); ++k) {
        const ir::Value* iter = body.args.at(k + 1).get();
        changed |= flowIf(op.operands.at(k + 3), iter);
        changed |= flowIf(terminatorOperand(body, k), iter);
      }
      changed |= walk(body);
      for (size_t k = 0; k < op.results.size(); ++k) {
        changed |= flowIf(terminatorOperand(body, k), body.args.at(k + 1).get());
        changed |= flow(body.args.at(k + 1).get(), op.results[k].get());
      }
      return changed;
    }
    if (op.opcode == Opcode::If) {
      for (const auto& region : op.regions) {
        changed |= walk(*region);
        for (size_t k = 0; k < op.results.size(); ++k)
          changed |= flowIf(terminatorOperand(*region, k), op.results[k].get());
      }
      return changed;
    }
    if (op.opcode == Opcode::While) {  // before: (args n) -> condition(cond, values m); after: (args m) -> yield n
      const ir::Block& before = op.region(0);
      const ir::Block& after = op.region(1);
      for (size_t k = 0; k < op.operands.size() && k < before.args.size(); ++k) {
        changed |= flow(op.operands[k], before.args[k].get());
        changed |= flowIf(terminatorOperand(after, k), before.args[k].get());
      }
      changed |= walk(before);
      for (size_t k = 0; k < after.args.size(); ++k)
        changed |= flowIf(terminatorOperand(before, k + 1), after.args[k].get());
      changed |= walk(after);
      for (size_t k = 0; k < op.results.size(); ++k)
        changed |= flowIf(terminatorOperand(before, k + 1), op.results[k].get());
      return changed;
    }
    // Every other op: each result may derive from each operand (bitcasts of pointers too).
    for (const ir::Value* in : op.operands)
      for (const auto& out : op.results) changed |= flow(in, out.get());
    for (const auto& region : op.regions) changed |= walk(*region);
    return changed;
  }

  size_t words_;
  std::vector<uint64_t> written_;
  std::unordered_map<const ir::Value*, std::vector<uint64_t>> sets_;
};

}  // namespace

std::vector<bool> writtenParams(const ir::Function& fn) {
  const size_t n = fn.body.args.size();
  Flow flow(n);
  for (size_t i = 0; i < n; ++i) flow.seed(fn.body.args[i].get(), i);
  while (flow.walk(fn.body)) {
  }
  std::vector<bool> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = flow.written(i);
  return out;
}

}  // namespace kiln
