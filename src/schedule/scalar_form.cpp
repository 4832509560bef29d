// Linear forms of integer scalars (scalar_form.h).
#include "schedule/scalar_form.h"

#include <algorithm>

namespace kiln::schedule {

using ir::Opcode;
using ir::Value;

namespace {

// i32 arithmetic: forms keep their numbers in the range of the type they stand for.
int64_t wrap32(int64_t v) { return int64_t(int32_t(uint32_t(uint64_t(v)))); }

std::optional<int64_t> intConstant(const Value* v) {
  v = unhinted(v);
  if (!v->def || v->def->opcode != Opcode::Constant || !v->type.isInt()) return std::nullopt;
  return v->def->intAttr("value");
}

}  // namespace

const Value* unhinted(const Value* v) {
  while (v->def && ir::familyOf(v->def->opcode) == ir::Family::Hint) v = v->def->operand(0);
  return v;
}

ScalarForm& ScalarForm::add(const ScalarForm& o, int64_t scale) {
  constant = wrap32(constant + wrap32(o.constant * scale));
  for (const auto& term : o.terms) {
    const auto& [atom, k] = term;
    auto it = std::find_if(terms.begin(), terms.end(), [&](const auto& t) { return t.first == term.first; });
    if (it == terms.end()) {
      if (wrap32(k * scale) != 0) terms.emplace_back(atom, wrap32(k * scale));
      continue;
    }
    it->second = wrap32(it->second + wrap32(k * scale));
    if (it->second == 0) terms.erase(it);
  }
  return *this;
}

ScalarForm ScalarForm::scaled(int64_t k) const { return ScalarForm{}.add(*this, k); }

int64_t ScalarForm::coefficient(const Value* atom) const {
  for (const auto& [a, k] : terms)
    if (a == atom) return k;
  return 0;
}

ScalarForm ScalarForm::without(const Value* atom) const {
  ScalarForm out = *this;
  std::erase_if(out.terms, [&](const auto& t) { return t.first == atom; });
  return out;
}

const Value* ScalarForm::soleAtom() const {
  return constant == 0 && terms.size() == 1 && terms[0].second == 1 ? terms[0].first : nullptr;
}

bool ScalarForm::operator==(const ScalarForm& o) const {
  if (constant != o.constant || terms.size() != o.terms.size()) return false;
  for (const auto& [a, k] : terms)
    if (o.coefficient(a) != k) return false;
  return true;
}

std::optional<ScalarForm> scalarForm(const Value* v, const ir::Op* loop) {
  if (v->type.isTensor() || v->type.elem != ir::Scalar::I32) return std::nullopt;
  v = unhinted(v);
  if (std::optional<int64_t> c = intConstant(v)) return ScalarForm::of(wrap32(*c));
  if (loop && v == loop->region(0).arg(0)) {  // iv = lower bound + step * n
    std::optional<int64_t> step = intConstant(loop->operand(2));
    std::optional<ScalarForm> lower = scalarForm(loop->operand(0));
    if (!step || !lower) return std::nullopt;  // (the atom n stands for the iteration count only)
    return lower->add(ScalarForm::atom(v), *step);
  }
  const ir::Op* d = v->def;
  if (d && (d->opcode == Opcode::Add || d->opcode == Opcode::Sub || d->opcode == Opcode::Mul)) {
    std::optional<ScalarForm> a = scalarForm(d->operand(0), loop), b = scalarForm(d->operand(1), loop);
    if (a && b && d->opcode == Opcode::Add) return a->add(*b);
    if (a && b && d->opcode == Opcode::Sub) return a->add(*b, -1);
    if (a && b && b->isConstant()) return a->scaled(b->constant);
    if (a && b && a->isConstant()) return b->scaled(a->constant);
  }
  return ScalarForm::atom(v);
}

Value* emitForm(ir::Builder& b, const ScalarForm& f, const ir::Op* loop, Value* iv, const SourceLoc& loc) {
  const ir::Type i32 = ir::Type::scalar(ir::Scalar::I32);
  Value* sum = nullptr;
  for (const auto& [atom, coefficient] : f.terms) {
    Value* x = const_cast<Value*>(atom);
    int64_t k = coefficient;
    if (loop && atom == loop->region(0).arg(0)) {  // n = (iv - lower bound) / step
      x = iv;
      if (intConstant(loop->operand(0)).value_or(1) != 0) x = b.create1(Opcode::Sub, {iv, loop->operand(0)}, i32, {}, loc);
      const int64_t step = intConstant(loop->operand(2)).value_or(0);
      if (step != 0 && k % step == 0) {
        k /= step;  // k * n = (k / step) * (iv - lower bound): no division (a box advanced by the step)
      } else if (step != 1) {
        x = b.create1(Opcode::Div, {x, loop->operand(2)}, i32, {}, loc);
      }
    }
    if (k != 1) x = b.create1(Opcode::Mul, {x, b.intConst(k, i32, loc)}, i32, {}, loc);
    sum = sum ? b.create1(Opcode::Add, {sum, x}, i32, {}, loc) : x;
  }
  if (!sum) return b.intConst(f.constant, i32, loc);
  return f.constant ? b.create1(Opcode::Add, {sum, b.intConst(f.constant, i32, loc)}, i32, {}, loc) : sum;
}

}  // namespace kiln::schedule
