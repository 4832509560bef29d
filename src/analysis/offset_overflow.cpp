// offsetOverflowWarnings: where program ids and runtime arguments flow (forward closures over the
// values each value is computed from, ir/value_sources.h), the i32/u32 multiplies that meet both, and
// whether the product reaches a ptr_add's offset.
#include "analysis/offset_overflow.h"

#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analysis/axis_info.h"
#include "ir/value_sources.h"

namespace kiln::analysis {

namespace {

using ir::Opcode;
using ir::Value;

class Flow {
 public:
  explicit Flow(const ir::Function& fn) {
    for (const auto& a : fn.body.args) visit(a.get());
    std::vector<const ir::Block*> blocks{&fn.body};
    while (!blocks.empty()) {
      const ir::Block* b = blocks.back();
      blocks.pop_back();
      for (const auto& op : b->ops) {
        ops.push_back(op.get());
        for (const auto& r : op->regions) {
          for (const auto& a : r->args) visit(a.get());
          blocks.push_back(r.get());
        }
        for (const auto& v : op->results) visit(v.get());
      }
    }
  }

  std::vector<const ir::Op*> ops;  // every op, regions included

  // Every value reachable from `from` along data flow (from included).
  std::unordered_set<const Value*> reach(const std::vector<const Value*>& from) const {
    std::unordered_set<const Value*> seen(from.begin(), from.end());
    std::vector<const Value*> work(from.begin(), from.end());
    while (!work.empty()) {
      const Value* v = work.back();
      work.pop_back();
      auto it = uses_.find(v);
      if (it == uses_.end()) continue;
      for (const Value* u : it->second)
        if (seen.insert(u).second) work.push_back(u);
    }
    return seen;
  }

 private:
  std::unordered_map<const Value*, std::vector<const Value*>> uses_;  // source -> values computed from it

  void visit(const Value* v) {
    ir::forEachSource(*v, [&](const Value* s) { uses_[s].push_back(v); });
  }
};

bool intOf32Bits(const Value* v) { return v->type.elem == ir::Scalar::I32 || v->type.elem == ir::Scalar::U32; }

}  // namespace

std::vector<CompilerWarning> offsetOverflowWarnings(const ir::Function& fn) {
  Flow flow(fn);
  std::vector<const Value*> pids, offsets;
  for (const ir::Op* op : flow.ops) {
    if (op->opcode == Opcode::ProgramId) pids.push_back(op->result());
    if (op->opcode == Opcode::PtrAdd && op->numOperands() == 2) offsets.push_back(op->operand(1));
  }
  if (pids.empty() || offsets.empty()) return {};
  const std::unordered_set<const Value*> fromPid = flow.reach(pids);
  // For each value, the first runtime integer argument it is computed from (its name for the message).
  std::unordered_map<const Value*, const Value*> fromArg;
  for (const auto& a : fn.body.args) {
    if (!a->type.isInt()) continue;
    for (const Value* v : flow.reach({a.get()})) fromArg.emplace(v, a.get());
  }
  const std::unordered_set<const Value*> offsetSet(offsets.begin(), offsets.end());
  std::unique_ptr<AxisInfoAnalysis> axis;  // made when a candidate needs it
  std::set<std::tuple<const void*, int, int>> warned;
  std::vector<CompilerWarning> out;
  for (const ir::Op* op : flow.ops) {
    if (op->opcode != Opcode::Mul || op->numOperands() != 2 || !intOf32Bits(op->result())) continue;
    const Value* a = op->operand(0);
    const Value* b = op->operand(1);
    const Value* arg = nullptr;
    if (fromPid.count(a) && fromArg.count(b)) arg = fromArg.at(b);
    else if (fromPid.count(b) && fromArg.count(a)) arg = fromArg.at(a);
    if (!arg) continue;
    if (!axis) axis = std::make_unique<AxisInfoAnalysis>(fn);
    if (axis->get(a).constant || axis->get(b).constant) continue;  // a bound the compiler knows
    bool feedsAddress = false;
    for (const Value* v : flow.reach({op->result()}))
      if (offsetSet.count(v)) feedsAddress = true;
    if (!feedsAddress) continue;
    if (!warned.emplace(op->loc.file.get(), op->loc.line, op->loc.col).second) continue;
    out.push_back(CompilerWarning{
        op->loc,
        "this " + std::string(ir::name(op->result()->type.elem)) +
            " product of a program id and the runtime argument '" + arg->name +
            "' is an offset that passes 2^31 - 1 once the tensor has 2^31 elements, and then wraps: compute it "
            "in 64 bits (.to(tl.int64) on an operand) if the tensor can be that large"});
  }
  return out;
}

}  // namespace kiln::analysis
