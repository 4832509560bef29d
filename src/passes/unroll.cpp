// unroll: `tl.range(..., loop_unroll_factor=k)` (Triton's hint) as a loop transformation. A `for` loop
// with loop_unroll_factor = k > 1 and a constant step becomes a main loop that runs k iterations of
// the body per trip, and the original loop, left in place, which runs the rest one at a time:
//
//   for %i = %lb to %ub step s iter(%x) { body }
//     ->
//   %mainUb = %ub - (k-1)s            (INT_MIN of the type where that wraps: then no trip runs)
//   %m..., %next = for %i = %lb to %mainUb step k*s iter(%x, %lb) {
//     body(%i), body(%i + s), ..., body(%i + (k-1)s)   the values each copy yields feed the next
//     yield ..., (%i + ks, or %ub where that wraps)
//   }
//   for %i = %next to %ub step s iter(%m...) { body }  at most k - 1 trips
//
// Each trip of the main loop runs only when all k of its iterations are below %ub, so the loops
// together run exactly the original iterations in the original order: the results are the same. A
// loop whose step is not a constant (or whose k x step overflows) stays as it was.
#include <limits>
#include <optional>
#include <unordered_map>

#include "passes/passes.h"

namespace kiln::passes {

using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

std::optional<int64_t> constantInt(const Value* v) {
  if (!v->def || v->def->opcode != Opcode::Constant) return std::nullopt;
  const ir::AttrValue* a = v->def->findAttr("value");
  const int64_t* i = a ? std::get_if<int64_t>(a) : nullptr;
  return i ? std::optional<int64_t>(*i) : std::nullopt;
}

int64_t typeMin(const Type& t) {
  return t.elem == ir::Scalar::I64 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min();
}

bool fits(const Type& t, int64_t v) {
  return t.elem == ir::Scalar::I64 || (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max());
}

std::vector<ir::Attr> withoutUnrollFactor(const std::vector<ir::Attr>& attrs) {
  std::vector<ir::Attr> out;
  for (const ir::Attr& a : attrs)
    if (a.name != "loop_unroll_factor") out.push_back(a);
  return out;
}

void unrollLoop(ir::Op& loop, int64_t k) {
  const std::optional<int64_t> step = constantInt(loop.operand(2));
  const Type ivType = loop.operand(0)->type;
  int64_t span = 0, mainStep = 0;
  if (!step || *step <= 0 || __builtin_mul_overflow(*step, k - 1, &span) || __builtin_mul_overflow(*step, k, &mainStep) ||
      !fits(ivType, mainStep))
    return;
  ir::Block& body = loop.region(0);
  const size_t n = loop.numOperands() - 3;  // iteration values
  const SourceLoc& loc = loop.loc;
  ir::Builder b;
  b.setInsertionPointBefore(&loop);

  // The main loop's bound: %ub - (k-1)s, or the type's minimum where the subtraction wraps.
  Value* ub = loop.operand(1);
  Value* lowered = b.create1(Opcode::Sub, {ub, b.intConst(span, ivType, loc)}, ivType, {}, loc);
  Value* wrapped = b.create1(Opcode::Cmp, {lowered, ub}, Type::scalar(ir::Scalar::I1), {ir::Attr{"pred", std::string("gt")}}, loc);
  Value* mainUb = b.create1(Opcode::Select, {wrapped, b.intConst(typeMin(ivType), ivType, loc), lowered}, ivType, {}, loc);
  Value* mainStepValue = b.intConst(mainStep, ivType, loc);

  std::vector<Value*> operands{loop.operand(0), mainUb, mainStepValue};
  std::vector<Type> results;
  for (size_t i = 0; i < n; ++i) {
    operands.push_back(loop.operand(unsigned(3 + i)));
    results.push_back(loop.result(unsigned(i))->type);
  }
  operands.push_back(loop.operand(0));  // where the remainder starts
  results.push_back(ivType);
  ir::Op* main = b.create(Opcode::For, operands, results, withoutUnrollFactor(loop.attrs), loc);
  ir::Block& mainBody = main->regions.empty() ? main->addRegion() : main->region(0);
  Value* iv = mainBody.addArg(ivType, body.arg(0)->name);
  std::vector<Value*> carried;
  for (size_t i = 0; i < n; ++i) carried.push_back(mainBody.addArg(body.arg(unsigned(1 + i))->type, body.arg(unsigned(1 + i))->name));
  mainBody.addArg(ivType);  // the remainder's start, only yielded

  ir::Builder inner(mainBody);
  for (int64_t copy = 0; copy < k; ++copy) {
    Value* at = iv;
    inner.setInsertionPointToEnd(mainBody);
    if (copy > 0) at = inner.create1(Opcode::Add, {iv, inner.intConst(copy * *step, ivType, loc)}, ivType, {}, loc);
    std::unordered_map<const Value*, Value*> map{{body.arg(0), at}};
    for (size_t i = 0; i < n; ++i) map[body.arg(unsigned(1 + i))] = carried[i];
    for (size_t i = 0; i + 1 < body.ops.size(); ++i) ir::cloneOpInto(*body.ops[i], mainBody, mainBody.ops.size(), map);
    const ir::Op& yield = *body.terminator();
    for (size_t i = 0; i < n; ++i) {
      auto it = map.find(yield.operand(unsigned(i)));
      carried[i] = it == map.end() ? yield.operand(unsigned(i)) : it->second;
    }
  }
  inner.setInsertionPointToEnd(mainBody);
  Value* next = inner.create1(Opcode::Add, {iv, inner.intConst(mainStep, ivType, loc)}, ivType, {}, loc);
  Value* past = inner.create1(Opcode::Cmp, {next, iv}, Type::scalar(ir::Scalar::I1), {ir::Attr{"pred", std::string("lt")}}, loc);
  next = inner.create1(Opcode::Select, {past, ub, next}, ivType, {}, loc);
  std::vector<Value*> yielded = carried;
  yielded.push_back(next);
  inner.create(Opcode::Yield, yielded, {}, {}, loc);

  // The original loop runs what is left, from the main loop's values.
  loop.operands[0] = main->result(unsigned(n));
  for (size_t i = 0; i < n; ++i) loop.operands[3 + i] = main->result(unsigned(i));
  loop.attrs = withoutUnrollFactor(loop.attrs);
}

void block(ir::Block& b) {
  std::vector<ir::Op*> ops;
  for (const auto& op : b.ops) ops.push_back(op.get());
  for (ir::Op* op : ops) {
    for (const auto& r : op->regions) block(*r);  // inner loops first: their copies then multiply
    if (op->opcode == Opcode::For && op->intAttrOr("loop_unroll_factor", 1) > 1)
      unrollLoop(*op, op->intAttrOr("loop_unroll_factor", 1));
  }
}

}  // namespace

void unroll(ir::Function& fn) { block(fn.body); }

}  // namespace kiln::passes
