#include "ir/constant_zero.h"

#include <cmath>

#include "ir/scalar_eval.h"

namespace kiln::ir {

bool isConstantZero(const Value* v, SignedZero zeros) {
  while (v->def && (v->def->opcode == Opcode::Splat || v->def->opcode == Opcode::Broadcast)) v = v->def->operand(0);
  const Op* d = v->def;
  if (!d || d->opcode != Opcode::Constant) return false;
  const AttrValue* a = d->findAttr("value");
  if (const int64_t* i = a ? std::get_if<int64_t>(a) : nullptr)  // an integer spelling: +0 for floats
    return v->type.isInt() ? normalize(v->type.elem, intElem(*i)).i == 0 : *i == 0;
  if (const double* f = a ? std::get_if<double>(a) : nullptr)
    return v->type.isFloat() && *f == 0.0 && (zeros == SignedZero::Either || !std::signbit(*f));
  return false;
}

std::optional<int64_t> scalarIntConstant(const Value* v) {
  if (!v->def || v->def->opcode != Opcode::Constant || v->type.isTensor()) return std::nullopt;
  const AttrValue* a = v->def->findAttr("value");
  if (const int64_t* i = a ? std::get_if<int64_t>(a) : nullptr) return *i;
  return std::nullopt;
}

}  // namespace kiln::ir
