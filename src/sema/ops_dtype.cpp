// Attributes and predicates of dtypes as Triton exposes them: x.dtype.element_ty,
// x.dtype.primitive_bitwidth, x.dtype.is_fp16(), x.type.shape ... A block type (x.type) answers
// its own attributes; its predicates are those of Triton's block_type (only is_block() is true).
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Scalar;
using ir::Type;

namespace {

struct Predicate {
  const char* name;
  bool (*test)(const Type& t);  // t is a scalar or pointer type
};

bool isF8(const Type& t) { return t.isFloat() && ir::bitWidth(t.elem) == 8; }
bool isStdFloat(const Type& t) {
  return t.elem == Scalar::F16 || t.elem == Scalar::BF16 || t.elem == Scalar::F32 || t.elem == Scalar::F64;
}

constexpr Predicate kPredicates[] = {
    {"is_fp8", [](const Type& t) { return isF8(t); }},
    {"is_fp8e4nv", [](const Type& t) { return t.elem == Scalar::F8E4M3; }},
    {"is_fp8e5", [](const Type& t) { return t.elem == Scalar::F8E5M2; }},
    {"is_fp8e4b15", [](const Type& t) { return t.elem == Scalar::F8E4B15; }},
    {"is_fp8e4b8", [](const Type& t) { return t.elem == Scalar::F8E4B8; }},
    {"is_fp8e5b16", [](const Type& t) { return t.elem == Scalar::F8E5B16; }},
    {"is_fp16", [](const Type& t) { return t.elem == Scalar::F16; }},
    {"is_bf16", [](const Type& t) { return t.elem == Scalar::BF16; }},
    {"is_fp32", [](const Type& t) { return t.elem == Scalar::F32; }},
    {"is_fp64", [](const Type& t) { return t.elem == Scalar::F64; }},
    {"is_int1", [](const Type& t) { return t.elem == Scalar::I1; }},
    {"is_int8", [](const Type& t) { return t.elem == Scalar::I8; }},
    {"is_int16", [](const Type& t) { return t.elem == Scalar::I16; }},
    {"is_int32", [](const Type& t) { return t.elem == Scalar::I32; }},
    {"is_int64", [](const Type& t) { return t.elem == Scalar::I64; }},
    {"is_uint8", [](const Type& t) { return t.elem == Scalar::U8; }},
    {"is_uint16", [](const Type& t) { return t.elem == Scalar::U16; }},
    {"is_uint32", [](const Type& t) { return t.elem == Scalar::U32; }},
    {"is_uint64", [](const Type& t) { return t.elem == Scalar::U64; }},
    {"is_floating", [](const Type& t) { return t.isFloat(); }},
    {"is_standard_floating", [](const Type& t) { return isStdFloat(t); }},
    {"is_int_signed", [](const Type& t) { return ir::isSigned(t.elem); }},
    {"is_int_unsigned", [](const Type& t) { return t.isInt() && !ir::isSigned(t.elem); }},
    {"is_int", [](const Type& t) { return t.isInt(); }},
    {"is_integer_type", [](const Type& t) { return t.isInt(); }},
    {"is_bool", [](const Type& t) { return t.isBool(); }},
    {"is_ptr", [](const Type& t) { return t.isPtr(); }},
    {"is_block", [](const Type&) { return false; }},
    {"is_const", [](const Type&) { return false; }},
    {"is_void", [](const Type&) { return false; }},
};

const Predicate* findPredicate(const std::string& name) {
  for (const Predicate& p : kPredicates)
    if (name == p.name) return &p;
  return nullptr;
}

int mantissaBits(Scalar s) {
  switch (s) {
    case Scalar::F8E4M3: case Scalar::F8E4B15: case Scalar::F8E4B8: return 3;
    case Scalar::F8E5M2: case Scalar::F8E5B16: return 2;
    case Scalar::F16: return 10;
    case Scalar::BF16: return 7;
    case Scalar::F32: return 23;
    case Scalar::F64: return 52;
    default: return -1;
  }
}

int exponentBias(Scalar s) {
  switch (s) {
    case Scalar::F8E4M3: return 7;
    case Scalar::F8E4B8: return 8;
    case Scalar::F8E5B16: return 16;
    case Scalar::F8E4B15:
    case Scalar::F8E5M2:
    case Scalar::F16: return 15;
    case Scalar::BF16:
    case Scalar::F32: return 127;
    case Scalar::F64: return 1023;
    default: return -1;
  }
}

}  // namespace

SValue dtypeAttribute(const SValue& dt, const std::string& name, const SourceLoc& loc) {
  const Type& t = dt.type;
  auto none = [&]() -> SValue { fail(loc, dt.describe() + " has no attribute '" + name + "'"); };
  if (findPredicate(name)) return SValue::method(dt, name);
  if (name == "name") return SValue::string(t.isTensor() ? dtypeExpr(t) : tritonDtypeName(t));
  if (name == "scalar") return SValue::dtype(t.element());
  if (name == "element_ty") {
    if (t.isTensor()) return SValue::dtype(t.element());
    if (t.isPtr()) return SValue::dtype(Type::scalar(t.pointee));
    return none();
  }
  if (t.isTensor()) {
    if (name == "shape") {
      std::vector<SValue> dims;
      for (int64_t d : t.shape) dims.push_back(SValue::integer(d));
      return SValue::tuple(std::move(dims));
    }
    if (name == "numel") return SValue::integer(t.numel());
    return none();
  }
  if (name == "primitive_bitwidth") return SValue::integer(ir::bitWidth(t.elem));
  if (name == "int_bitwidth" && t.isInt()) return SValue::integer(ir::bitWidth(t.elem));
  if (name == "fp_mantissa_width" && t.isFloat()) return SValue::integer(mantissaBits(t.elem));
  if (name == "exponent_bias" && t.isFloat()) return SValue::integer(exponentBias(t.elem));
  return none();
}

SValue callDtypeMethod(const SValue& dt, const std::string& name, const std::vector<SValue>& args,
                       const SourceLoc& loc) {
  const Predicate* p = findPredicate(name);
  if (!p) fail(loc, dt.describe() + " has no method '" + name + "'");
  if (!args.empty()) fail(loc, "dtype." + name + "() takes no arguments");
  if (dt.type.isTensor()) return SValue::boolean(name == "is_block");
  return SValue::boolean(p->test(dt.type));
}

}  // namespace kiln::sema
