// canonicalize: constant folding (fold.cpp), algebraic simplification (simplify.cpp), and control
// flow with constant conditions or trip counts, repeated to a fixed point; then unused pure ops go.
#include <memory>
#include <unordered_map>
#include <vector>

#include "passes/effects.h"
#include "passes/passes.h"
#include "passes/rewrite.h"
#include "support/diagnostic.h"

namespace kiln::passes {

using ir::Opcode;
using ir::Value;

namespace {

constexpr int kMaxRounds = 100;         // a round only runs again when the last one changed something
constexpr int kMaxRewritesPerOp = 32;   // in-place rewrites shorten a chain or fix order: few suffice

// One forward walk over the function. A replaced result is recorded in `map_` and every operand is
// looked up there when its op is visited: definitions precede uses in structured control flow, so
// each use is rewritten before the walk leaves the function. Replaced ops wait in `graveyard_`
// until the walk ends so that no freed Value address can be reused while `map_` still names it.
// A replaced op leaves a null slot in its block, and each block drops its null slots in one pass
// when its walk ends: erasing each op on its own was quadratic in the number of ops removed.
class Canonicalizer {
 public:
  explicit Canonicalizer(ir::Function& fn) : fn_(fn) {}

  bool round() {
    changed_ = false;
    runBlock(fn_.body);
    map_.clear();
    graveyard_.clear();
    return changed_;
  }

 private:
  ir::Function& fn_;
  bool changed_ = false;
  std::unordered_map<const Value*, Value*> map_;
  std::vector<std::unique_ptr<ir::Op>> graveyard_;

  Value* resolve(Value* v) const {
    for (auto it = map_.find(v); it != map_.end(); it = map_.find(v)) v = it->second;
    return v;
  }

  void runBlock(ir::Block& b) {
    for (size_t i = 0; i < b.ops.size();) {
      ir::Op* op = b.ops[i].get();
      if (!op) {  // replaced earlier in this walk
        ++i;
        continue;
      }
      for (Value*& v : op->operands) v = resolve(v);
      if (rewrite(b, i)) {
        changed_ = true;  // op is gone; what now stands at i (new or inlined ops) is visited next
        continue;
      }
      for (auto& r : op->regions) runBlock(*r);
      ++i;
    }
    std::erase_if(b.ops, [](const std::unique_ptr<ir::Op>& o) { return !o; });
  }

  // Replaces op's results by `values` and takes op out of `b`, leaving a null slot. op stood at
  // b.ops[i] before the rewrite inserted its new ops there, so it is at most those few slots on.
  void replace(ir::Block& b, size_t i, ir::Op* op, const std::vector<Value*>& values) {
    if (values.size() != op->numResults()) throw InternalError(op->loc, "canonicalize: wrong replacement count");
    for (unsigned k = 0; k < op->numResults(); ++k) {
      if (values[k]->type != op->result(k)->type)
        throw InternalError(op->loc, std::string("canonicalize: replacement of '") + op->name() +
                                         "' has type " + values[k]->type.str() + ", expected " +
                                         op->result(k)->type.str());
      map_[op->result(k)] = values[k];
    }
    while (i < b.ops.size() && b.ops[i].get() != op) ++i;
    if (i == b.ops.size()) throw InternalError(op->loc, "canonicalize: replaced op is not in its block");
    op->parent = nullptr;
    graveyard_.push_back(std::move(b.ops[i]));
  }

  // Moves the ops of `region` except its terminator into `b` at `pos`.
  static void inlineRegion(ir::Block& region, ir::Block& b, size_t pos) {
    size_t n = region.ops.size() - 1;
    for (size_t k = 0; k < n; ++k) b.insert(pos + k, std::move(region.ops[k]));
    region.ops.erase(region.ops.begin(), region.ops.begin() + std::ptrdiff_t(n));
  }

  static bool endsWithYield(const ir::Block& region, size_t numValues) {
    const ir::Op* t = region.terminator();
    return t && t->opcode == Opcode::Yield && t->numOperands() == numValues;
  }

  // true when the op at b.ops[i] was replaced (removed from b).
  bool rewrite(ir::Block& b, size_t i) {
    ir::Op* op = b.ops[i].get();
    if (op->opcode == Opcode::If) return rewriteIf(b, i);
    if (op->opcode == Opcode::For) return rewriteFor(b, i);
    if (op->numResults() != 1 || !isPure(*op)) return false;
    for (int attempt = 0; attempt < kMaxRewritesPerOp; ++attempt) {
      ir::Builder builder(b, i);  // only a successful rewrite inserts ops, so op stays at i until then
      bool modified = false;
      Value* v = foldConstant(*op, builder);
      if (!v) v = simplify(*op, builder, modified);
      if (v) {
        replace(b, i, op, {v});
        return true;
      }
      if (!modified) return false;
      changed_ = true;
    }
    return false;
  }

  // if on a constant condition: the taken region's ops move before the if, its yield values
  // become the results.
  bool rewriteIf(ir::Block& b, size_t i) {
    ir::Op* op = b.ops[i].get();
    std::optional<ir::Elem> c = op->numOperands() == 1 ? constantElem(op->operand(0)) : std::nullopt;
    if (!c || op->regions.size() != 2) return false;
    ir::Block& taken = op->region(c->i != 0 ? 0 : 1);
    if (!endsWithYield(taken, op->numResults())) return false;
    std::vector<Value*> values = taken.terminator()->operands;
    inlineRegion(taken, b, i);
    replace(b, i, op, values);
    return true;
  }

  // for with constant bounds: no trip -> the results are the inits; one trip -> the body runs
  // once in place, with the induction variable = lb and the iteration values = the inits.
  bool rewriteFor(ir::Block& b, size_t i) {
    ir::Op* op = b.ops[i].get();
    if (op->numOperands() < 3 || op->regions.size() != 1) return false;
    unsigned numIters = op->numOperands() - 3;
    ir::Block& body = op->region(0);
    if (op->numResults() != numIters || body.numArgs() != numIters + 1 || !endsWithYield(body, numIters))
      return false;
    const ir::Type& ivType = op->operand(0)->type;
    std::optional<ir::Elem> lb = constantElem(op->operand(0)), ub = constantElem(op->operand(1)),
                            step = constantElem(op->operand(2));
    if (!lb || !ub || !step || !ivType.isInt()) return false;
    // Elements are extended by the signedness of their type, so i64 compares them right and
    // u64 gets them back from the bits; __int128 keeps ub - lb exact.
    bool isSigned = ir::isSigned(ivType.elem);
    auto wide = [&](ir::Elem e) { return isSigned ? __int128(e.i) : __int128(e.u); };
    __int128 l = wide(*lb), u = wide(*ub), s = wide(*step);
    if (s <= 0) return false;
    std::vector<Value*> inits(op->operands.begin() + 3, op->operands.end());
    if (l >= u) {
      replace(b, i, op, inits);
      return true;
    }
    if (u - l > s || body.arg(0)->type != ivType) return false;
    for (unsigned k = 0; k < numIters; ++k)
      if (body.arg(k + 1)->type != inits[k]->type) return false;
    map_[body.arg(0)] = op->operand(0);
    for (unsigned k = 0; k < numIters; ++k) map_[body.arg(k + 1)] = inits[k];
    std::vector<Value*> values = body.terminator()->operands;
    inlineRegion(body, b, i);
    replace(b, i, op, values);
    return true;
  }
};

}  // namespace

void canonicalize(ir::Function& fn) {
  Canonicalizer c(fn);
  for (int round = 0; round < kMaxRounds && c.round(); ++round) {
  }
  removeUnusedPureOps(fn);
}

}  // namespace kiln::passes
