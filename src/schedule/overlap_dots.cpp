// overlap_dots: on sm_90a, a loop whose body chains two wgmma dots through element-wise work
// (attention: S = Q K_j^T, the online softmax of S, acc = acc * alpha + P V_j) is rotated by one
// iteration, as FlashAttention-3 does within a warpgroup, so that the second dot of iteration j runs
// on the tensor cores while the softmax of iteration j + 1 runs on the other units:
//
//   before:  K_j; S_j = Q K_j^T; softmax_j -> P_j, acc * alpha_j; V_j; acc = P_j V_j + acc
//   after:   if lb < ub:
//              K_0; S_0; softmax_0 -> P_0, acc0 * alpha_0                        (prologue)
//              for j = lb + step ..: K_j; S_j = Q K_j^T                          (first dot of j)
//                                    V_{j-1}; acc = P_{j-1} V_{j-1} + acc'       (second dot of j - 1)
//                                    softmax_j -> P_j, acc' = acc * alpha_j      (waits for S_j only)
//              V_last; acc = P_last V_last + acc'                                (epilogue)
//
// The values the second dot reads from the first one's chain (P in f16, the rescaled accumulator) are
// carried from one iteration to the next instead of the accumulator. Its other operands (V's load and
// address) are cloned for iteration j - 1: from the induction variable minus the step, or from an
// argument the loop advances by a fixed amount minus that amount, so the pipeline still copies V ahead.
// defer_mma_waits then lets the first dot's wait pass the second dot, which is what overlaps them.
// Left alone: other arches (mma.sync is synchronous: nothing would overlap), a step that is not a
// positive constant, bodies with regions, and any chain the split above does not describe.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "assign/dot_layouts.h"
#include "ir/constant_zero.h"
#include "schedule/schedule.h"
#include "schedule/value_uses.h"

namespace kiln::schedule {

namespace {

using ir::Op;
using ir::Opcode;
using ir::Type;
using ir::Value;

bool onWgmma(const Op& dot, const GpuContext& ctx) {
  std::optional<lower::MmaConfig> cfg = lower::mmaConfig(dot, ctx.numWarps, ctx.target);
  return cfg && cfg->wgmma && dot.operand(2)->type.elem != ir::Scalar::F16;
}

struct Plan {
  Op* loop = nullptr;
  Op *first = nullptr, *second = nullptr;
  unsigned acc = 0;                    // the body argument the second dot accumulates into
  std::set<const Op*> part2;           // the second dot's operand slices that do not depend on the first dot
  std::set<const Op*> only2;           // of those, the ops nothing else reads (moved, not shared)
  std::vector<const Value*> crossing;  // values of the first dot's chain the second dot's part reads
  std::map<unsigned, Value*> advancing;  // body argument -> its fixed step, for those part 2 reads
};

std::optional<Plan> plan(Op& loop, const GpuContext& ctx) {
  Plan p;
  p.loop = &loop;
  ir::Block& body = loop.region(0);
  std::vector<Op*> dots;
  for (const auto& op : body.ops) {
    if (!op->regions.empty()) return std::nullopt;
    if (op->opcode == Opcode::Dot) dots.push_back(op.get());
  }
  if (dots.size() != 2 || !onWgmma(*dots[0], ctx) || !onWgmma(*dots[1], ctx)) return std::nullopt;
  p.first = dots[0];
  p.second = dots[1];
  std::optional<int64_t> step = ir::scalarIntConstant(loop.operand(2));
  if (!step || *step <= 0) return std::nullopt;
  // The second dot's result is the accumulator the loop carries, and only that.
  const Op* yield = body.terminator();
  const Value* result = p.second->result(0);
  for (const auto& op : body.ops)
    if (op.get() != yield && std::count(op->operands.begin(), op->operands.end(), result)) return std::nullopt;
  auto slot = std::find(yield->operands.begin(), yield->operands.end(), result);
  if (slot == yield->operands.end() || std::count(yield->operands.begin(), yield->operands.end(), result) != 1)
    return std::nullopt;
  p.acc = unsigned(slot - yield->operands.begin()) + 1;
  // The accumulator is read only after the first dot (in the rotated loop it comes from the second dot
  // of the iteration before, issued right after the first).
  const size_t firstAt = body.indexOf(p.first);
  for (size_t i = 0; i <= firstAt; ++i)
    if (std::count(body.ops[i]->operands.begin(), body.ops[i]->operands.end(), body.arg(p.acc))) return std::nullopt;

  // What depends on the first dot.
  std::set<const Value*> fromFirst{p.first->result(0)};
  for (const auto& op : body.ops)
    if (std::any_of(op->operands.begin(), op->operands.end(), [&](const Value* v) { return fromFirst.count(v); }))
      for (const auto& r : op->results) fromFirst.insert(r.get());
  if (!fromFirst.count(p.second->operand(0))) return std::nullopt;  // not a chain
  if (fromFirst.count(p.second->operand(1))) return std::nullopt;
  // Part 2: the second dot's operands back to the chain (crossing values) and the loop's arguments.
  std::vector<const Value*> work(p.second->operands.begin(), p.second->operands.end());
  std::set<const Value*> seen;
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (fromFirst.count(v)) {
      p.crossing.push_back(v);
      continue;
    }
    if (v->isBlockArg()) {
      if (v->owner != &body || v->index == 0) continue;
      if (v->index == p.acc) return std::nullopt;  // read outside the rescaled accumulator
      const Value* next = yield->operand(v->index - 1);  // advanced by a fixed step: arg + c
      if (!next->def || next->def->parent != &body || next->def->opcode != (v->type.isPtr() ? Opcode::PtrAdd : Opcode::Add) ||
          next->def->operand(0) != v || (next->def->operand(1)->def && next->def->operand(1)->def->parent == &body))
        return std::nullopt;
      p.advancing[v->index] = next->def->operand(1);
      continue;
    }
    if (v->def->parent != &body) continue;  // defined before the loop
    p.part2.insert(v->def);
    work.insert(work.end(), v->def->operands.begin(), v->def->operands.end());
  }
  if (p.crossing.empty()) return std::nullopt;
  std::sort(p.crossing.begin(), p.crossing.end(), [](const Value* a, const Value* b) {
    return a->def->parent->indexOf(a->def) < b->def->parent->indexOf(b->def) || (a->def == b->def && a->index < b->index);
  });
  // Ops of part 2 that nothing outside it reads move; the others (shared index math) are cloned.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Op* op : p.part2) {
      if (p.only2.count(op)) continue;
      bool only = true;
      for (const auto& r : op->results)
        for (const auto& user : body.ops)
          if (std::count(user->operands.begin(), user->operands.end(), r.get()) && user.get() != p.second &&
              !p.only2.count(user.get()))
            only = false;
      if (only) p.only2.insert(op), changed = true;
    }
  }
  for (const Op* op : p.part2)
    if (op->info().effect != ir::Effect::Pure && !p.only2.count(op)) return std::nullopt;  // a shared load
  return p;
}

class Rotate {
 public:
  explicit Rotate(Plan p) : p_(std::move(p)), loop_(*p_.loop), body_(loop_.region(0)) {}

  void run() {
    ir::Block& outer = *loop_.parent;
    ir::Builder b(outer, outer.indexOf(&loop_));
    const SourceLoc& loc = loop_.loc;
    Value *lb = loop_.operand(0), *ub = loop_.operand(1), *step = loop_.operand(2);
    Value* runs = b.create1(Opcode::Cmp, {lb, ub}, Type::scalar(ir::Scalar::I1), {ir::Attr{"pred", std::string("lt")}}, loc);
    std::vector<Type> types;
    for (const auto& r : loop_.results) types.push_back(r->type);
    Op* guard = b.create(Opcode::If, {runs}, types, {}, loc);

    // Prologue: part 1 of iteration lb.
    ir::Block& then = guard->region(0);
    Map m0{{body_.arg(0), lb}};
    for (unsigned k = 1; k < body_.numArgs(); ++k) m0[body_.arg(k)] = loop_.operand(3 + k - 1);
    for (const auto& op : body_.ops)
      if (partOne(*op)) ir::cloneOpInto(*op, then, then.ops.size(), m0);

    // The rotated loop: part 1 of iteration j, part 2 of iteration j - 1.
    ir::Builder tb(then);
    Value* from = tb.create1(Opcode::Add, {lb, step}, lb->type, {}, loc);
    std::vector<Value*> operands{from, ub, step};
    std::vector<Type> carried;
    for (unsigned k = 1; k < body_.numArgs(); ++k)
      if (k != p_.acc) operands.push_back(m0.at(yieldOf(k))), carried.push_back(body_.arg(k)->type);
    for (const Value* x : p_.crossing) operands.push_back(m0.at(x)), carried.push_back(x->type);
    operands.push_back(lb);  // the induction variable of the last iteration run, for the epilogue
    carried.push_back(lb->type);
    Op* rotated = tb.create(Opcode::For, operands, carried, loop_.attrs, loc);
    ir::Block& nb = rotated->region(0);
    Value* iv = nb.addArg(body_.arg(0)->type);
    Map m1{{body_.arg(0), iv}};
    for (unsigned k = 1; k < body_.numArgs(); ++k)
      if (k != p_.acc) m1[body_.arg(k)] = nb.addArg(body_.arg(k)->type);
    Map m2;
    for (const Value* x : p_.crossing) m2[x] = nb.addArg(x->type);
    nb.addArg(lb->type);
    ir::Builder nbb(nb);
    m2[body_.arg(0)] = nbb.create1(Opcode::Sub, {iv, step}, iv->type, {}, loc);
    for (const auto& [k, by] : p_.advancing) m2[body_.arg(k)] = previous(nbb, m1.at(body_.arg(k)), by);
    for (const auto& op : body_.ops) {
      if (partOne(*op)) ir::cloneOpInto(*op, nb, nb.ops.size(), m1);
      if (op.get() == p_.first) m1[body_.arg(p_.acc)] = partTwo(nb, m2);
    }
    std::vector<Value*> next;
    for (unsigned k = 1; k < body_.numArgs(); ++k)
      if (k != p_.acc) next.push_back(m1.at(yieldOf(k)));
    for (const Value* x : p_.crossing) next.push_back(m1.at(x));
    next.push_back(iv);
    ir::Builder(nb).create(Opcode::Yield, next, {}, {}, loc);

    // Epilogue: part 2 of the last iteration, from the rotated loop's results.
    Map me;
    unsigned r = 0;
    std::map<unsigned, Value*> finals;
    for (unsigned k = 1; k < body_.numArgs(); ++k)
      if (k != p_.acc) finals[k] = rotated->result(r++);
    for (const Value* x : p_.crossing) me[x] = rotated->result(r++);
    me[body_.arg(0)] = rotated->result(r);
    ir::Builder eb(then);
    for (const auto& [k, by] : p_.advancing) me[body_.arg(k)] = previous(eb, finals.at(k), by);
    Value* acc = partTwo(then, me);
    std::vector<Value*> results;
    for (unsigned k = 1; k < body_.numArgs(); ++k) results.push_back(k == p_.acc ? acc : finals.at(k));
    ir::Builder(then).create(Opcode::Yield, results, {}, {}, loc);
    std::vector<Value*> inits(loop_.operands.begin() + 3, loop_.operands.end());
    ir::Builder(guard->region(1)).create(Opcode::Yield, inits, {}, {}, loc);

    for (unsigned k = 0; k < loop_.numResults(); ++k) ir::replaceAllUses(outer, loop_.result(k), guard->result(k));
    outer.remove(&loop_);
  }

 private:
  using Map = std::unordered_map<const Value*, Value*>;

  bool partOne(const Op& op) const {
    return &op != p_.second && !p_.only2.count(&op) && op.opcode != Opcode::Yield;
  }
  const Value* yieldOf(unsigned arg) const { return body_.terminator()->operand(arg - 1); }

  // The value an advancing argument had one iteration before `now`.
  static Value* previous(ir::Builder& b, Value* now, Value* by) {
    if (now->type.isPtr()) {
      Value* back = b.create1(Opcode::Neg, {by}, by->type);
      return b.create1(Opcode::PtrAdd, {now, back}, now->type);
    }
    return b.create1(Opcode::Sub, {now, by}, now->type);
  }

  // Part 2 (the second dot and its operands' slices) into `dst`, with `m` mapping the crossing values,
  // the induction variable and the advancing arguments to their values for that iteration.
  Value* partTwo(ir::Block& dst, Map m) {
    for (const auto& op : body_.ops)
      if (p_.part2.count(op.get())) ir::cloneOpInto(*op, dst, dst.ops.size(), m);
    return ir::cloneOpInto(*p_.second, dst, dst.ops.size(), m)->result(0);
  }

  Plan p_;
  Op& loop_;
  ir::Block& body_;
};

}  // namespace

void overlapDots(ir::Function& fn, const GpuContext& ctx) {
  if (!ctx.target.archSpecific || ctx.target.sm < 90) return;
  std::vector<Op*> loops;
  ir::walk(fn, [&](Op& op) {
    if (op.opcode == Opcode::For) loops.push_back(&op);
  });
  for (Op* loop : loops)  // a loop the pipeline leaves alone keeps its dots synchronous: nothing to overlap
    if (loop->intAttrOr("num_stages", ctx.numStages) >= 2)
      if (std::optional<Plan> p = plan(*loop, ctx)) Rotate(std::move(*p)).run();
}

}  // namespace kiln::schedule
