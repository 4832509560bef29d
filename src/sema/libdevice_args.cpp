// Triton's extern_elementwise dispatch for the libdevice builtins, and the IR builders they share.
#include "sema/libdevice_args.h"

namespace kiln::sema::libdevice {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

namespace {

bool matches(const std::vector<ir::Value*>& v, ArgTypes sig) {
  if (sig.size() != v.size()) return false;
  size_t i = 0;
  for (Scalar s : sig)
    if (v[i++]->type.elem != s) return false;
  return true;
}

std::string tupleText(const std::vector<std::string>& names) {
  std::string r = "(";
  for (size_t i = 0; i < names.size(); ++i) r += (i ? ", " : "") + names[i];
  return r + ")";
}

}  // namespace

std::vector<ir::Value*> externArgs(CallArgs& a, std::initializer_list<ArgTypes> sigs, size_t* which) {
  Context& cx = *a.cx;
  const size_t n = sigs.begin()->size();
  std::vector<ir::Value*> v;
  for (size_t i = 0; i < n; ++i) v.push_back(toTensor(cx, a.at(i), a.loc, a.display + "'s argument"));
  auto find = [&]() -> std::optional<size_t> {
    size_t k = 0;
    for (ArgTypes s : sigs) {
      if (matches(v, s)) return k;
      ++k;
    }
    return std::nullopt;
  };
  if (n >= 2) {  // Triton: fold every argument into one broadcast value, then convert each against it
    BinaryRule rule;
    rule.arithmetic = !find();
    ir::Value* all = v[0];
    for (ir::Value* x : v) all = binaryOperands(cx, SValue::irValue(x), SValue::irValue(all), rule, a.display, a.loc).second;
    for (ir::Value*& x : v) x = binaryOperands(cx, SValue::irValue(x), SValue::irValue(all), rule, a.display, a.loc).first;
  }
  std::optional<size_t> k = find();
  if (!k) {
    std::vector<std::string> got;
    for (ir::Value* x : v) got.push_back(tritonDtypeName(x->type.element()));
    std::string list;
    size_t i = 0;
    for (ArgTypes s : sigs) {
      std::vector<std::string> names;
      for (Scalar t : s) names.push_back(tritonDtypeName(Type::scalar(t)));
      list += (i == 0 ? "" : i + 1 == sigs.size() ? " or " : ", ") + tupleText(names);
      ++i;
    }
    a.fail(a.display + "() takes " + list + " arguments, got " + tupleText(got));
  }
  if (which) *which = *k;
  return v;
}

std::vector<ir::Value*> externArgs(CallArgs& a, size_t n, Floats floats) {
  // one spelled-out table per case: the rows are initializer lists, which live for the call only
  if (floats == Floats::F32) {
    switch (n) {
      case 1: return externArgs(a, {{Scalar::F32}});
      case 2: return externArgs(a, {{Scalar::F32, Scalar::F32}});
      case 3: return externArgs(a, {{Scalar::F32, Scalar::F32, Scalar::F32}});
      default: return externArgs(a, {{Scalar::F32, Scalar::F32, Scalar::F32, Scalar::F32}});
    }
  }
  if (floats == Floats::F64) {
    switch (n) {
      case 1: return externArgs(a, {{Scalar::F64}});
      case 2: return externArgs(a, {{Scalar::F64, Scalar::F64}});
      case 3: return externArgs(a, {{Scalar::F64, Scalar::F64, Scalar::F64}});
      default: return externArgs(a, {{Scalar::F64, Scalar::F64, Scalar::F64, Scalar::F64}});
    }
  }
  switch (n) {
    case 1: return externArgs(a, {{Scalar::F32}, {Scalar::F64}});
    case 2: return externArgs(a, {{Scalar::F32, Scalar::F32}, {Scalar::F64, Scalar::F64}});
    case 3: return externArgs(a, {{Scalar::F32, Scalar::F32, Scalar::F32}, {Scalar::F64, Scalar::F64, Scalar::F64}});
    default:
      return externArgs(a, {{Scalar::F32, Scalar::F32, Scalar::F32, Scalar::F32},
                            {Scalar::F64, Scalar::F64, Scalar::F64, Scalar::F64}});
  }
}

ir::Value* num(CallArgs& a, double v, const Type& t) { return constantOf(*a.cx, SValue::real(v), t, a.loc); }
ir::Value* intNum(CallArgs& a, int64_t v, const Type& t) { return constantOf(*a.cx, SValue::integer(v), t, a.loc); }
ir::Value* op1(CallArgs& a, Opcode op, ir::Value* x) { return emit(*a.cx, op, {x}, x->type, a.loc); }
ir::Value* op2(CallArgs& a, Opcode op, ir::Value* x, ir::Value* y) { return emit(*a.cx, op, {x, y}, x->type, a.loc); }
ir::Value* cmp(CallArgs& a, const char* pred, ir::Value* x, ir::Value* y) {
  return emit(*a.cx, Opcode::Cmp, {x, y}, x->type.withElem(Scalar::I1), a.loc, {ir::Attr{"pred", std::string(pred)}});
}
ir::Value* select(CallArgs& a, ir::Value* c, ir::Value* x, ir::Value* y) {
  return emit(*a.cx, Opcode::Select, {c, x, y}, x->type, a.loc);
}
ir::Value* cast(CallArgs& a, ir::Value* x, Scalar to) { return castElem(*a.cx, x, Type::scalar(to), a.loc); }
ir::Value* bitcast(CallArgs& a, ir::Value* x, Scalar to) { return bitcastElem(*a.cx, x, Type::scalar(to), a.loc); }
ir::Value* bitsOf(CallArgs& a, ir::Value* x) {
  return bitcast(a, x, x->type.elem == Scalar::F64 ? Scalar::I64 : Scalar::I32);
}

}  // namespace kiln::sema::libdevice
