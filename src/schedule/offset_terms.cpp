// Offsets as sums of terms (offset_terms.h).
#include "schedule/offset_terms.h"

namespace kiln::schedule {

using ir::Opcode;
using ir::Value;

namespace {

bool isLayoutOnly(Opcode op) { return op == Opcode::ConvertLayout || ir::familyOf(op) == ir::Family::Hint; }

}  // namespace

const Value* throughLayouts(const Value* v) {
  while (v->def && isLayoutOnly(v->def->opcode)) v = v->def->operand(0);
  return v;
}

const Value* i32Param(const Value* v) {
  v = throughLayouts(v);
  return v->isBlockArg() && v->owner->parentFunc && v->type.elem == ir::Scalar::I32 && !v->type.isTensor() ? v : nullptr;
}

std::optional<std::vector<OffsetTerm>> OffsetTerms::terms(const Value* v) {
  while (v->def && isLayoutOnly(v->def->opcode)) v = v->def->operand(0);
  if (!v->type.isTensor() && v->type.elem == ir::Scalar::I64) return wide(v);
  if (!v->type.isTensor()) {
    if (v->def && v->def->opcode == Opcode::Mul) {  // a product of two forms: u * a stride parameter?
      std::optional<ScalarForm> a = form(v->def->operand(0)), b = form(v->def->operand(1));
      if (a && b && !a->isConstant() && !b->isConstant())
        if (std::optional<std::vector<OffsetTerm>> t = scaled(v->def->operand(0), v->def->operand(1))) return t;
    }
    std::optional<ScalarForm> f = scalarForm(v, loop_);  // (what it cannot see into is an atom)
    if (!f) return std::nullopt;
    return std::vector<OffsetTerm>{OffsetTerm{-1, 0, *f}};
  }
  if (v->type.elem != ir::Scalar::I32 || !v->def) return std::nullopt;
  const ir::Op& d = *v->def;
  switch (d.opcode) {
    case Opcode::Constant:
      return std::vector<OffsetTerm>{OffsetTerm{-1, 0, ScalarForm::of(d.intAttr("value"))}};
    case Opcode::Splat:
      return terms(d.operand(0));
    case Opcode::Arange:
      return std::vector<OffsetTerm>{OffsetTerm{0, d.intAttr("end") - d.intAttr("start"), ScalarForm::of(d.intAttr("start"))}};
    case Opcode::Broadcast:
      return terms(d.operand(0));
    case Opcode::ExpandDims: {
      std::optional<std::vector<OffsetTerm>> in = vector(d.operand(0));
      if (!in) return std::nullopt;
      for (OffsetTerm& t : *in)
        if (t.dim >= 0 && t.dim >= d.intAttr("axis")) ++t.dim;
      return in;
    }
    case Opcode::Add: {
      std::optional<std::vector<OffsetTerm>> a = terms(d.operand(0)), b = terms(d.operand(1));
      if (!a || !b) return std::nullopt;
      a->insert(a->end(), b->begin(), b->end());
      return a;
    }
    case Opcode::Mul:
      return scaled(d.operand(0), d.operand(1));
    case Opcode::Rem: {
      std::optional<std::vector<OffsetTerm>> a = vector(d.operand(0));
      const Value* m = scalarOf(d.operand(1));
      if (!a || !m || a->size() != 1 || (*a)[0].modulus || (*a)[0].stride || (*a)[0].strideValue != 1) return std::nullopt;
      (*a)[0].modulus = m;
      return a;
    }
    default:
      return std::nullopt;
  }
}

std::optional<std::vector<OffsetTerm>> OffsetTerms::wide(const Value* v) {
  v = throughLayouts(v);
  const ir::Op* d = v->def;
  if (!d) return std::nullopt;
  switch (d->opcode) {
    case Opcode::Constant:
      return std::vector<OffsetTerm>{OffsetTerm{-1, 0, ScalarForm::of(d->intAttr("value"))}};
    case Opcode::Cast:
      if (d->operand(0)->type.isTensor() || d->operand(0)->type.elem != ir::Scalar::I32) return std::nullopt;
      return terms(d->operand(0));
    case Opcode::Add: {
      std::optional<std::vector<OffsetTerm>> a = wide(d->operand(0)), b = wide(d->operand(1));
      if (!a || !b) return std::nullopt;
      a->insert(a->end(), b->begin(), b->end());
      return a;
    }
    case Opcode::Mul:
      for (int swap = 0; swap < 2; ++swap) {
        const Value* x = d->operand(swap), *y = d->operand(1 - swap);
        std::optional<std::vector<OffsetTerm>> a = wide(x);
        if (!a || a->size() != 1) continue;
        OffsetTerm t = (*a)[0];
        const Value* stride = extendedParam(y);
        if (stride && !t.stride && !t.start.isConstant()) {
          t.stride = stride;
          return std::vector<OffsetTerm>{t};
        }
        std::optional<std::vector<OffsetTerm>> k = wide(y);
        if (!k || k->size() != 1 || (*k)[0].stride || !(*k)[0].start.isConstant()) continue;
        t.start = t.start.scaled((*k)[0].start.constant);
        return std::vector<OffsetTerm>{t};
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

const Value* OffsetTerms::extendedParam(const Value* v) {
  v = throughLayouts(v);
  if (!v->def || v->def->opcode != Opcode::Cast) return nullptr;
  return i32Param(v->def->operand(0)) ? v->def->operand(0) : nullptr;
}

std::optional<std::vector<OffsetTerm>> OffsetTerms::vector(const Value* v) {
  std::optional<std::vector<OffsetTerm>> in = terms(v);
  if (!in) return std::nullopt;
  if (v->type.rank() != 1) return in;
  OffsetTerm out;
  for (const OffsetTerm& t : *in) {
    if (t.dim < 0) {
      if (t.stride || out.modulus || out.stride || out.strideValue != 1) return std::nullopt;
      out.start.add(t.start);
      continue;
    }
    if (out.dim >= 0) return std::nullopt;  // two aranges along one dim
    ScalarForm start = out.start;
    out = t;
    out.start.add(start);
  }
  if (out.dim < 0) return std::nullopt;
  return std::vector<OffsetTerm>{out};
}

const Value* OffsetTerms::scalarOf(const Value* v) {
  while (v->def && isLayoutOnly(v->def->opcode)) v = v->def->operand(0);
  if (!v->type.isTensor()) return v;
  return v->def && v->def->opcode == Opcode::Splat ? v->def->operand(0) : nullptr;
}

std::optional<std::vector<OffsetTerm>> OffsetTerms::scaled(const Value* a, const Value* b) {
  for (int swap = 0; swap < 2; ++swap, std::swap(a, b)) {
    const Value* s = scalarOf(b);
    std::optional<int64_t> c;
    if (const Value* u = b; u->def && u->def->opcode == Opcode::Constant && u->type.isInt()) c = u->def->intAttr("value");
    if (!s && !c) continue;
    std::optional<std::vector<OffsetTerm>> in = terms(a);
    if (!in) return std::nullopt;
    if (in->size() == 1 && (*in)[0].dim < 0) {  // a uniform product: its own form, or times a stride
      if ((*in)[0].stride) return std::nullopt;
      std::optional<ScalarForm> k = s ? scalarForm(s, loop_) : ScalarForm::of(*c);
      if (!k) return std::nullopt;
      if (!k->isConstant() && !(*in)[0].start.isConstant()) {
        if (!s || !i32Param(s)) continue;  // (the other way round, the parameter may be `a`)
        (*in)[0].stride = s;
        return in;
      }
      (*in)[0].start = k->isConstant() ? (*in)[0].start.scaled(k->constant) : k->scaled((*in)[0].start.constant);
      return in;
    }
    if (in->size() != 1 || (*in)[0].stride || (*in)[0].strideValue != 1) return std::nullopt;
    std::optional<ScalarForm> k = s ? scalarForm(s, loop_) : ScalarForm::of(*c);
    if (!k) return std::nullopt;
    if (k->isConstant()) (*in)[0].strideValue = k->constant;
    else (*in)[0].stride = s;
    return in;
  }
  return std::nullopt;
}

}  // namespace kiln::schedule
