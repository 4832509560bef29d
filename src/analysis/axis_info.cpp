// The axis-info solver: a forward walk over the function that applies the transfer rules and, at
// `for` and `while`, iterates the loop body until the loop-carried facts stop shrinking (facts
// only ever decrease under the join, so this terminates; a bound falls back to all ones anyway).
#include "analysis/axis_info.h"

#include <algorithm>
#include <limits>

#include "analysis/axis_lattice.h"
#include "analysis/axis_rules.h"
#include "support/diagnostic.h"

namespace kiln::analysis {

namespace {

constexpr int kMaxLoopIterations = 64;     // per loop visit; the lattice is shallow, 2-4 is typical
constexpr int64_t kWorkBudget = 1'000'000;  // op visits for the whole function (nested loops multiply)
constexpr int kMaxDepth = 256;             // region nesting (the IR parser allows 200)

class Solver {
 public:
  explicit Solver(std::unordered_map<const ir::Value*, AxisInfo>& facts) : facts_(facts) {}

  void function(const ir::Function& fn) {
    for (const auto& a : fn.body.args) set(a.get(), argument(*a));
    block(fn.body, 0);
  }

 private:
  std::unordered_map<const ir::Value*, AxisInfo>& facts_;
  int64_t budget_ = kWorkBudget;

  // Kernel parameters: integers know nothing; pointers are aligned to their element (natural
  // alignment, which every PTX access needs anyway). `multiple_of` ops carry the ":16" hints.
  static AxisInfo argument(const ir::Value& a) { return lattice::conservative(a.type); }

  const AxisInfo& info(const ir::Value* v) const {
    auto it = facts_.find(v);
    if (it == facts_.end()) throw InternalError({}, "axis info: a value is used before it is analysed");
    return it->second;
  }
  void set(const ir::Value* v, AxisInfo x) {
    lattice::finish(x, v->type);
    facts_[v] = std::move(x);
  }

  void block(const ir::Block& b, int depth) {
    for (const auto& op : b.ops) this->op(*op, depth);
  }

  void op(const ir::Op& op, int depth) {
    --budget_;
    if (op.opcode == ir::Opcode::For) return forLoop(op, depth);
    if (op.opcode == ir::Opcode::If) return ifOp(op, depth);
    if (op.opcode == ir::Opcode::While) return whileLoop(op, depth);
    if (op.opcode == ir::Opcode::WarpPartition) {  // each partition runs its region once
      enter(op, depth);
      for (const auto& r : op.regions) block(*r, depth + 1);
      return;
    }
    if (op.opcode == ir::Opcode::ReduceCombine || op.opcode == ir::Opcode::Scan) {
      // The combine region is a function of its arguments, which may be any elements: nothing is known
      // of them or of the results.
      enter(op, depth);
      for (const auto& a : op.region(0).args) set(a.get(), lattice::conservative(a->type));
      block(op.region(0), depth + 1);
      for (const auto& r : op.results) set(r.get(), lattice::conservative(r->type));
      return;
    }
    if (op.opcode == ir::Opcode::InlineAsm) {  // the user's PTX may compute anything, result by result
      for (const auto& r : op.results) set(r.get(), lattice::conservative(r->type));
      return;
    }
    if (op.opcode == ir::Opcode::MmaWait) {  // the same values, once the tensor cores are done
      for (unsigned i = 0; i < op.numResults(); ++i) set(op.result(i), info(op.operand(i)));
      return;
    }
    if (op.numResults() == 0) return;  // store, yield, condition, return, assert, the schedule's effects
    std::vector<const AxisInfo*> in;
    for (const ir::Value* v : op.operands) in.push_back(&info(v));
    set(op.result(0), rules::transfer(op, in));
  }

  void enter(const ir::Op& op, int depth) const {
    if (depth + 1 > kMaxDepth) fail(op.loc, "control flow is nested too deeply (more than 256 regions)");
  }

  const ir::Op& terminator(const ir::Block& b, ir::Opcode want, size_t minOperands, const ir::Op& owner) const {
    const ir::Op* t = b.terminator();
    if (!t || t->opcode != want || t->numOperands() < minOperands)
      throw InternalError(owner.loc, std::string("axis info: malformed region of '") + owner.name() + "'");
    return *t;
  }

  // Joins the facts of `values` (from offset `first`) into `state`; true when anything shrank.
  bool joinInto(std::vector<AxisInfo>& state, const ir::Op& from, size_t first, const std::vector<ir::Type>& types) {
    bool changed = false;
    for (size_t i = 0; i < state.size(); ++i) {
      AxisInfo j = lattice::join(state[i], info(from.operand(unsigned(first + i))), types[i]);
      if (j != state[i]) state[i] = std::move(j), changed = true;
    }
    return changed;
  }

  // Whether to iterate again; past the bounds, `state` becomes all ones (true of anything). Once
  // the work budget is spent, loops entered afterwards take all ones at once and walk their body
  // a single time, so the rest of the function costs one pass however deep the nesting.
  bool again(int iteration, std::vector<AxisInfo>& state, const std::vector<ir::Type>& types) {
    if (iteration + 1 < kMaxLoopIterations && budget_ > 0) return true;
    for (size_t i = 0; i < state.size(); ++i) state[i] = lattice::conservative(types[i]);
    return false;
  }
  bool exhausted(std::vector<AxisInfo>& state, const std::vector<ir::Type>& types) {
    return budget_ <= 0 && !again(kMaxLoopIterations, state, types);
  }

  void forLoop(const ir::Op& op, int depth) {
    enter(op, depth);
    const ir::Block& body = op.region(0);
    if (op.numOperands() < 3 || body.numArgs() != op.numOperands() - 2 || op.numResults() != op.numOperands() - 3)
      throw InternalError(op.loc, "axis info: malformed 'for'");
    // The induction variable is lb + k*step: divisible by what divides both.
    const AxisInfo &lb = info(op.operand(0)), &step = info(op.operand(2));
    AxisInfo iv = lattice::conservative(body.arg(0)->type);
    iv.divisibility[0] = std::min(lb.divisibility[0], step.divisibility[0]);
    iv.nonNegative = lb.nonNegative && step.nonNegative;

    std::vector<ir::Type> types;
    std::vector<AxisInfo> state;
    for (unsigned i = 3; i < op.numOperands(); ++i) {
      types.push_back(op.operand(i)->type);
      state.push_back(info(op.operand(i)));
    }
    bool giveUp = exhausted(state, types);
    for (int it = 0;; ++it) {
      set(body.arg(0), iv);
      for (size_t i = 0; i < state.size(); ++i) set(body.arg(unsigned(i + 1)), state[i]);
      block(body, depth + 1);
      const ir::Op& yield = terminator(body, ir::Opcode::Yield, state.size(), op);
      if (giveUp || !joinInto(state, yield, 0, types)) break;
      giveUp = !again(it, state, types);  // then one last pass with all ones, a fixed point
    }
    // Zero trips give the initial values, otherwise the last yield: the join covers both.
    for (size_t i = 0; i < state.size(); ++i) set(op.result(unsigned(i)), state[i]);
  }

  void ifOp(const ir::Op& op, int depth) {
    enter(op, depth);
    const AxisInfo& cond = info(op.operand(0));
    block(op.region(0), depth + 1);
    block(op.region(1), depth + 1);
    const ir::Op& yThen = terminator(op.region(0), ir::Opcode::Yield, op.numResults(), op);
    const ir::Op& yElse = terminator(op.region(1), ir::Opcode::Yield, op.numResults(), op);
    for (unsigned i = 0; i < op.numResults(); ++i) {
      const AxisInfo &a = info(yThen.operand(i)), &b = info(yElse.operand(i));
      if (cond.constant)
        set(op.result(i), *cond.constant ? a : b);
      else
        set(op.result(i), lattice::join(a, b, op.result(i)->type));
    }
  }

  void whileLoop(const ir::Op& op, int depth) {
    enter(op, depth);
    const ir::Block &before = op.region(0), &after = op.region(1);
    if (before.numArgs() != op.numOperands() || after.numArgs() != op.numResults())
      throw InternalError(op.loc, "axis info: malformed 'while'");
    std::vector<ir::Type> types;
    std::vector<AxisInfo> state;
    for (const ir::Value* v : op.operands) {
      types.push_back(v->type);
      state.push_back(info(v));
    }
    auto pass = [&]() -> const ir::Op& {
      for (size_t i = 0; i < state.size(); ++i) set(before.arg(unsigned(i)), state[i]);
      block(before, depth + 1);
      const ir::Op& cond = terminator(before, ir::Opcode::Condition, 1 + after.numArgs(), op);
      for (unsigned i = 0; i < after.numArgs(); ++i) set(after.arg(i), info(cond.operand(i + 1)));
      block(after, depth + 1);
      return cond;
    };
    const ir::Op* cond = nullptr;
    bool giveUp = exhausted(state, types);
    for (int it = 0;; ++it) {
      cond = &pass();
      const ir::Op& yield = terminator(after, ir::Opcode::Yield, state.size(), op);
      if (giveUp || !joinInto(state, yield, 0, types)) break;
      giveUp = !again(it, state, types);
    }
    // The loop leaves with the values the last `condition` passes on.
    for (unsigned i = 0; i < op.numResults(); ++i) set(op.result(i), info(cond->operand(i + 1)));
  }
};

}  // namespace

AxisInfoAnalysis::AxisInfoAnalysis(const ir::Function& fn) { Solver(facts_).function(fn); }

const AxisInfo& AxisInfoAnalysis::get(const ir::Value* v) const {
  auto it = facts_.find(v);
  if (it == facts_.end()) throw InternalError({}, "axis info asked about a value outside the analysed function");
  return it->second;
}

int64_t AxisInfoAnalysis::vectorElements(const ir::Value* ptr, int dim) const {
  const AxisInfo& x = get(ptr);
  if (!ptr->type.isPtr()) throw InternalError({}, "vectorElements needs a pointer, got " + ptr->type.str());
  if (!ptr->type.isTensor()) return 1;
  if (dim < 0 || dim >= x.dims()) throw InternalError({}, "vectorElements: dim " + std::to_string(dim) + " out of range");
  int64_t unit = lattice::unitOf(ptr->type);
  int64_t aligned = std::max<int64_t>(1, x.divisibility[size_t(dim)] / unit);
  int64_t widest = std::max<int64_t>(1, 16 / unit);
  return std::max<int64_t>(1, std::min({x.contiguity[size_t(dim)], aligned, widest}));
}

int64_t AxisInfoAnalysis::maskConstancy(const ir::Value* mask, int dim) const {
  // No mask, or one predicate for the whole tile (the pipeline's "this iteration exists"): constant.
  if (!mask || !mask->type.isTensor()) return std::numeric_limits<int64_t>::max();
  const AxisInfo& x = get(mask);
  if (dim < 0 || dim >= x.dims()) throw InternalError({}, "maskConstancy: dim " + std::to_string(dim) + " out of range");
  return x.constancy[size_t(dim)];
}

}  // namespace kiln::analysis
