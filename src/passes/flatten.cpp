// flatten: `tl.range(..., flatten=True)` (Triton's hint) as a loop transformation. A `for` loop marked
// flatten whose body is a prologue P of pure ops, one inner `for` and an epilogue S becomes one loop
// over every (outer, inner) pair of iterations, so that what schedules a loop (the pipeline's copies
// ahead) runs across the outer iterations: a persistent kernel loads its next tile's first blocks
// while it finishes this one, instead of waiting for them after its epilogue.
//
//   for %t = lo to hi step s iter(%a) {         if nk >= 1 and nt * nk <= INT32_MAX {
//     P(%t, %a)                                   for %i = 0 to nt * nk step 1 iter(%a, %b = B0) {
//     %r = for %k = klo to khi step ks             %q = %i / nk, %j = %i % nk
//            iter(%b = B0) {             ->         %t = lo + %q * s, %k = klo + %j * ks
//       body(%k, %b)                                 P(%t, %a)
//     }                                              %b' = body(%k, select(%j == 0, B0, %b))
//     S(%t, %a, %r)                                  %a' = if %j == nk - 1 { S(%t, %a, %b') } else { %a }
//     yield A'                                       yield %a', %b'
//   }                                              }
//                                                } else { the two loops as they were }
//
// nt and nk are the trip counts (64-bit, so no bound overflows them). P runs again in every iteration
// from the same %t: it is pure, and it ran with that %t whenever the inner body did (nk >= 1), so it
// traps no more than before. The loops flatten when both steps are positive constants, both induction
// variables are i32, the inner bounds and B0 are defined outside the outer loop, and P has no regions
// and no effects. Other loop nests run as written: flatten is a hint, as in Triton (docs/passes.md).
#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "passes/effects.h"
#include "passes/passes.h"

namespace kiln::passes {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using ir::Value;

namespace {

std::optional<int64_t> positiveConstant(const Value* v) {
  if (!v->def || v->def->opcode != Opcode::Constant) return std::nullopt;
  const ir::AttrValue* a = v->def->findAttr("value");
  const int64_t* i = a ? std::get_if<int64_t>(a) : nullptr;
  return i && *i > 0 ? std::optional<int64_t>(*i) : std::nullopt;
}

bool definedInside(const Value* v, const ir::Op& loop) {
  for (const ir::Block* b = v->def ? v->def->parent : v->owner; b; b = b->parentOp ? b->parentOp->parent : nullptr)
    if (b->parentOp == &loop) return true;
  return false;
}

// The single inner `for` of `outer`'s body, when the loops have the shape the pass flattens.
ir::Op* innerLoop(ir::Op& outer) {
  if (!positiveConstant(outer.operand(2)) || outer.operand(0)->type != Type::scalar(Scalar::I32)) return nullptr;
  ir::Op* inner = nullptr;
  for (const auto& op : outer.region(0).ops) {
    if (op->opcode == Opcode::For) {
      if (inner) return nullptr;  // two inner loops
      inner = op.get();
    } else if (!inner && (!op->regions.empty() || !isPure(*op))) {
      return nullptr;  // P must be recomputable in every iteration
    }
  }
  if (!inner || !positiveConstant(inner->operand(2)) || inner->operand(0)->type != Type::scalar(Scalar::I32)) return nullptr;
  for (unsigned i = 0; i < inner->numOperands(); ++i)
    if (i != 2 && definedInside(inner->operand(i), outer)) return nullptr;  // bounds and B0
  return inner;
}

class Flattener {
 public:
  Flattener(ir::Op& outer, ir::Op& inner) : outer_(outer), inner_(inner), loc_(outer.loc) {}

  void run() {
    ir::Block& parent = *outer_.parent;
    ir::Builder b;
    b.setInsertionPointBefore(&outer_);
    // The trip counts, in 64 bits, and whether the flattened loop can run.
    Value* nt = tripCount(b, outer_);
    Value* nk = tripCount(b, inner_);
    Value* total = b.create1(Opcode::Mul, {nt, nk}, i64(), {}, loc_);
    Value* cond = b.create1(Opcode::And,
                            {cmp(b, "ge", nk, b.intConst(1, i64(), loc_)),
                             cmp(b, "le", total, b.intConst(std::numeric_limits<int32_t>::max(), i64(), loc_))},
                            i1(), {}, loc_);
    cond = b.create1(Opcode::And, {cond, cmp(b, "le", nk, b.intConst(std::numeric_limits<int32_t>::max(), i64(), loc_))},
                     i1(), {}, loc_);
    std::vector<Type> types;
    for (const auto& r : outer_.results) types.push_back(r->type);
    ir::Op* branch = b.create(Opcode::If, {cond}, types, {}, loc_);
    ir::Block& flat = regionOf(*branch, 0);
    ir::Block& nested = regionOf(*branch, 1);
    for (unsigned i = 0; i < outer_.numResults(); ++i) ir::replaceAllUses(parent, outer_.result(i), branch->result(i));

    ir::Builder fb(flat);
    Value* nk32 = fb.create1(Opcode::Cast, {nk}, i32(), {}, loc_);
    Value* total32 = fb.create1(Opcode::Cast, {total}, i32(), {}, loc_);
    std::vector<Value*> flatResults = flattenedLoop(fb, nk32, total32);
    fb.create(Opcode::Yield, flatResults, {}, {}, loc_);

    // The loops as they were, for the launches the flattened loop cannot serve.
    std::unique_ptr<ir::Op> original = parent.remove(&outer_);
    ir::Op* kept = nested.insert(0, std::move(original));
    kept->attrs.erase(std::remove_if(kept->attrs.begin(), kept->attrs.end(), [](const ir::Attr& a) { return a.name == "flatten"; }),
                      kept->attrs.end());
    std::vector<Value*> keptResults;
    for (const auto& r : kept->results) keptResults.push_back(r.get());
    ir::Builder(nested).create(Opcode::Yield, keptResults, {}, {}, loc_);
  }

 private:
  ir::Op& outer_;
  ir::Op& inner_;
  SourceLoc loc_;

  static Type i1() { return Type::scalar(Scalar::I1); }
  static Type i32() { return Type::scalar(Scalar::I32); }
  static Type i64() { return Type::scalar(Scalar::I64); }
  Value* cmp(ir::Builder& b, const char* pred, Value* x, Value* y) {
    return b.create1(Opcode::Cmp, {x, y}, i1(), {ir::Attr{"pred", std::string(pred)}}, loc_);
  }

  // max(0, ceil((ub - lb) / step)) of a loop, as i64.
  Value* tripCount(ir::Builder& b, const ir::Op& loop) {
    Value* lb = b.create1(Opcode::Cast, {loop.operand(0)}, i64(), {}, loc_);
    Value* ub = b.create1(Opcode::Cast, {loop.operand(1)}, i64(), {}, loc_);
    const int64_t step = *positiveConstant(loop.operand(2));
    Value* span = b.create1(Opcode::Sub, {ub, lb}, i64(), {}, loc_);
    Value* up = b.create1(Opcode::Add, {span, b.intConst(step - 1, i64(), loc_)}, i64(), {}, loc_);
    Value* n = b.create1(Opcode::Div, {up, b.intConst(step, i64(), loc_)}, i64(), {}, loc_);
    return b.create1(Opcode::Select, {cmp(b, "gt", span, b.intConst(0, i64(), loc_)), n, b.intConst(0, i64(), loc_)},
                     i64(), {}, loc_);
  }

  // The flattened loop in `fb`'s block; returns its results for the outer loop's.
  std::vector<Value*> flattenedLoop(ir::Builder& fb, Value* nk32, Value* total32) {
    const ir::Block& outerBody = outer_.region(0);
    const ir::Block& innerBody = inner_.region(0);
    const unsigned na = outer_.numOperands() - 3, nb = inner_.numOperands() - 3;
    std::vector<Value*> operands{fb.intConst(0, i32(), loc_), total32, fb.intConst(1, i32(), loc_)};
    std::vector<Type> types;
    for (unsigned i = 0; i < na; ++i) {
      operands.push_back(outer_.operand(3 + i));
      types.push_back(outer_.result(i)->type);
    }
    for (unsigned i = 0; i < nb; ++i) {
      operands.push_back(inner_.operand(3 + i));
      types.push_back(inner_.result(i)->type);
    }
    std::vector<ir::Attr> attrs;
    for (const ir::Attr& a : inner_.attrs) attrs.push_back(a);  // num_stages and the like: the loop that runs
    for (const ir::Attr& a : outer_.attrs)
      if (a.name != "flatten" && std::none_of(attrs.begin(), attrs.end(), [&](const ir::Attr& x) { return x.name == a.name; }))
        attrs.push_back(a);
    ir::Op* loop = fb.create(Opcode::For, operands, types, attrs, loc_);
    ir::Block& body = regionOf(*loop, 0);
    Value* i = body.addArg(i32(), outerBody.arg(0)->name);
    std::vector<Value*> a, bArgs;
    for (unsigned k = 0; k < na; ++k) a.push_back(body.addArg(outerBody.arg(1 + k)->type, outerBody.arg(1 + k)->name));
    for (unsigned k = 0; k < nb; ++k) bArgs.push_back(body.addArg(innerBody.arg(1 + k)->type, innerBody.arg(1 + k)->name));

    ir::Builder b(body);
    Value* q = b.create1(Opcode::Div, {i, nk32}, i32(), {}, loc_);
    Value* j = b.create1(Opcode::Rem, {i, nk32}, i32(), {}, loc_);
    Value* t = b.create1(Opcode::Add, {outer_.operand(0), b.create1(Opcode::Mul, {q, outer_.operand(2)}, i32(), {}, loc_)}, i32(), {}, loc_);
    Value* k = b.create1(Opcode::Add, {inner_.operand(0), b.create1(Opcode::Mul, {j, inner_.operand(2)}, i32(), {}, loc_)}, i32(), {}, loc_);
    std::unordered_map<const Value*, Value*> map{{outerBody.arg(0), t}, {innerBody.arg(0), k}};
    for (unsigned x = 0; x < na; ++x) map[outerBody.arg(1 + x)] = a[x];
    size_t at = 0;
    for (; outerBody.ops[at].get() != &inner_; ++at) ir::cloneOpInto(*outerBody.ops[at], body, body.ops.size(), map);
    // The inner body, its carried values starting again from B0 at each outer iteration's first.
    b.setInsertionPointToEnd(body);
    Value* first = cmp(b, "eq", j, b.intConst(0, i32(), loc_));
    for (unsigned x = 0; x < nb; ++x)
      map[innerBody.arg(1 + x)] = b.create1(Opcode::Select, {first, inner_.operand(3 + x), bArgs[x]}, bArgs[x]->type, {}, loc_);
    for (size_t o = 0; o + 1 < innerBody.ops.size(); ++o) ir::cloneOpInto(*innerBody.ops[o], body, body.ops.size(), map);
    std::vector<Value*> bNext;
    for (Value* v : innerBody.terminator()->operands) bNext.push_back(lookup(map, v));
    for (unsigned x = 0; x < nb; ++x) map[inner_.result(x)] = bNext[x];

    // S at each outer iteration's last: the outer carried values change only there.
    b.setInsertionPointToEnd(body);
    Value* nkm1 = b.create1(Opcode::Sub, {nk32, b.intConst(1, i32(), loc_)}, i32(), {}, loc_);
    std::vector<Type> aTypes;
    for (Value* v : a) aTypes.push_back(v->type);
    ir::Op* epilogue = b.create(Opcode::If, {cmp(b, "eq", j, nkm1)}, aTypes, {}, loc_);
    ir::Block& then = regionOf(*epilogue, 0);
    ir::Block& otherwise = regionOf(*epilogue, 1);
    for (++at; at + 1 < outerBody.ops.size(); ++at) ir::cloneOpInto(*outerBody.ops[at], then, then.ops.size(), map);
    std::vector<Value*> aNext;
    for (Value* v : outerBody.terminator()->operands) aNext.push_back(lookup(map, v));
    ir::Builder(then).create(Opcode::Yield, aNext, {}, {}, loc_);
    ir::Builder(otherwise).create(Opcode::Yield, a, {}, {}, loc_);

    std::vector<Value*> yielded;
    for (unsigned x = 0; x < na; ++x) yielded.push_back(epilogue->result(x));
    yielded.insert(yielded.end(), bNext.begin(), bNext.end());
    b.setInsertionPointToEnd(body);
    b.create(Opcode::Yield, yielded, {}, {}, loc_);
    std::vector<Value*> out;
    for (unsigned x = 0; x < na; ++x) out.push_back(loop->result(x));
    return out;
  }

  // Region k of an op just created (the builder may have made its regions already).
  static ir::Block& regionOf(ir::Op& op, size_t k) {
    while (op.regions.size() <= k) op.addRegion();
    return op.region(unsigned(k));
  }

  static Value* lookup(const std::unordered_map<const Value*, Value*>& map, Value* v) {
    auto it = map.find(v);
    return it == map.end() ? v : it->second;
  }
};

void block(ir::Block& b) {
  std::vector<ir::Op*> ops;
  for (const auto& op : b.ops) ops.push_back(op.get());
  for (ir::Op* op : ops) {
    for (const auto& r : op->regions) block(*r);
    if (op->opcode != Opcode::For || op->intAttrOr("flatten", 0) == 0) continue;
    if (ir::Op* inner = innerLoop(*op)) Flattener(*op, *inner).run();
  }
}

}  // namespace

void flatten(ir::Function& fn) { block(fn.body); }

}  // namespace kiln::passes
