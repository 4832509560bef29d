// SValue helpers: descriptions for messages, Python's repr/str of constexprs, truth values, and the
// IR type a value would have.
#include <charconv>
#include <cmath>

#include "sema/ops_common.h"

namespace kiln::sema {

using K = SValue::Kind;

bool SValue::allConstexpr() const {
  if (kind != Kind::Tuple) return isConstexpr();
  for (const SValue& e : elts)
    if (!e.isConstexpr()) return false;
  return true;
}

std::string blockTypeName(const BlockFacts& b) {
  return std::string(b.descriptor ? "tensor_descriptor<" : "block_ptr<") + tritonDtypeName(ir::Type::scalar(b.elem)) +
         shapeStr(b.blockShape) + ">";
}

std::string shapeStr(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

static const char* tritonScalarName(ir::Scalar s) {
  switch (s) {
    case ir::Scalar::I1: return "int1";
    case ir::Scalar::I8: return "int8";
    case ir::Scalar::I16: return "int16";
    case ir::Scalar::I32: return "int32";
    case ir::Scalar::I64: return "int64";
    case ir::Scalar::U8: return "uint8";
    case ir::Scalar::U16: return "uint16";
    case ir::Scalar::U32: return "uint32";
    case ir::Scalar::U64: return "uint64";
    case ir::Scalar::F8E4M3: return "float8e4nv";
    case ir::Scalar::F8E5M2: return "float8e5";
    case ir::Scalar::F8E4B15: return "float8e4b15";
    case ir::Scalar::F8E4B8: return "float8e4b8";
    case ir::Scalar::F8E5B16: return "float8e5b16";
    case ir::Scalar::F16: return "float16";
    case ir::Scalar::BF16: return "bfloat16";
    case ir::Scalar::F32: return "float32";
    case ir::Scalar::F64: return "float64";
    case ir::Scalar::Ptr: return "pointer_type";
  }
  return "?";
}

std::string dtypeExpr(const ir::Type& t) {
  std::string e = t.isPtr() ? "tl.pointer_type(tl." + std::string(tritonScalarName(t.pointee)) + ")"
                            : "tl." + std::string(tritonScalarName(t.elem));
  if (t.isTensor()) return "block_type(" + e + ", " + shapeStr(t.shape) + ")";
  return e;
}

std::string tritonDtypeName(const ir::Type& t) {
  auto one = [](ir::Scalar s) -> std::string {
    switch (s) {
      case ir::Scalar::F8E4M3: return "fp8e4nv";
      case ir::Scalar::F8E5M2: return "fp8e5";
      case ir::Scalar::F8E4B15: return "fp8e4b15";
      case ir::Scalar::F8E4B8: return "fp8e4b8";
      case ir::Scalar::F8E5B16: return "fp8e5b16";
      case ir::Scalar::F16: return "fp16";
      case ir::Scalar::BF16: return "bf16";
      case ir::Scalar::F32: return "fp32";
      case ir::Scalar::F64: return "fp64";
      default: return tritonScalarName(s);
    }
  };
  return t.isPtr() ? "pointer<" + one(t.pointee) + ">" : one(t.elem);
}

const char* pyTypeName(const SValue& v) {
  switch (v.kind) {
    case K::IR: return "tensor";
    case K::Int: return "int";
    case K::Float: return "float";
    case K::Bool: return "bool";
    case K::Str: return "str";
    case K::None: return "NoneType";
    case K::Dtype: return "dtype";
    case K::Tuple: return "tuple";
    case K::Function: return "function";
    case K::Namespace: return "module";
    case K::Builtin: return "builtin_function_or_method";
    case K::Method: return "method";
    case K::Slice: return "slice";
    case K::Block: return v.block->descriptor ? "tensor_descriptor" : "block_ptr";
    case K::TupleClass: return "type";
  }
  return "?";
}

std::string floatRepr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

static std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + "'";
}

// The display name of a qualified builtin name: "triton.language.load" -> "tl.load".
static std::string builtinDisplay(const std::string& q) {
  const std::string tl = "triton.language.";
  if (q.compare(0, tl.size(), tl) == 0) return "tl." + q.substr(tl.size());
  return q;
}

std::string pyRepr(const SValue& v) {
  switch (v.kind) {
    case K::Int: return v.u64 ? std::to_string(uint64_t(v.i)) : std::to_string(v.i);
    case K::Float: return floatRepr(v.f);
    case K::Bool: return v.i ? "True" : "False";
    case K::Str: return quote(v.str);
    case K::None: return "None";
    case K::Dtype: return dtypeExpr(v.type);
    case K::Tuple: {
      if (!v.fields.empty() && v.fields.size() == v.elts.size()) {  // a NamedTuple, as Python shows it
        std::string s = v.str + "(";
        for (size_t i = 0; i < v.elts.size(); ++i) s += (i ? ", " : "") + v.fields[i] + "=" + pyRepr(v.elts[i]);
        return s + ")";
      }
      std::string s = "(";
      for (size_t i = 0; i < v.elts.size(); ++i) s += (i ? ", " : "") + pyRepr(v.elts[i]);
      return s + (v.elts.size() == 1 ? ",)" : ")");
    }
    case K::IR: return v.ir ? v.ir->type.str() : "<null>";
    case K::Function: return v.fn ? "<jit function " + v.fn->name + ">" : "<jit function>";
    case K::Namespace: return "<module '" + v.str + "'>";
    case K::Builtin: return "<built-in function " + builtinDisplay(v.str) + ">";
    case K::Method: return "<method " + v.str + ">";
    case K::TupleClass: return "<class '" + v.str + "'>";
    case K::Slice: {  // elts: lo, hi, step when the subscript wrote any bound
      std::string s = "slice(";
      for (size_t i = 0; i < 3; ++i) s += (i ? ", " : "") + (i < v.elts.size() ? pyRepr(v.elts[i]) : "None");
      return s + ")";
    }
    case K::Block: return blockTypeName(*v.block);
  }
  return "?";
}

std::string pyStr(const SValue& v) { return v.kind == K::Str ? v.str : pyRepr(v); }

std::string SValue::describe() const {
  switch (kind) {
    case Kind::IR:
      if (!ir) return "a null value";
      return ir->type.isTensor() ? "a " + ir->type.str() : "a scalar of type " + ir->type.str();
    case Kind::Int:
    case Kind::Float:
    case Kind::Bool:
    case Kind::Str: return "the constexpr " + pyRepr(*this);
    case Kind::None: return "None";
    case Kind::Dtype: return dtypeExpr(type);
    case Kind::Tuple: return "the tuple " + pyRepr(*this);
    case Kind::Function: return fn ? "the @jit function " + fn->name : "a @jit function";
    case Kind::Namespace: return "the module " + str;
    case Kind::Builtin: return "the builtin " + builtinDisplay(str);
    case Kind::Method: return "the method ." + str + (elts.empty() ? "" : " of " + elts[0].describe());
    case Kind::Slice: return "the slice " + pyRepr(*this);
    case Kind::TupleClass: return "the NamedTuple class " + str;
    case Kind::Block: return (block->descriptor ? "the tensor descriptor " : "the block pointer ") + blockTypeName(*block);
  }
  return "?";
}

bool pyTruth(const SValue& v) {
  switch (v.kind) {
    case K::Int:
    case K::Bool: return v.i != 0;
    case K::Float: return v.f != 0.0;
    case K::Str: return !v.str.empty();
    case K::None: return false;
    case K::Tuple: return !v.elts.empty();
    case K::IR:  // callers reject IR values before asking
    case K::Dtype:
    case K::Function:
    case K::Namespace:
    case K::Builtin:
    case K::Method:
    case K::Slice:
    case K::TupleClass:
    case K::Block: return true;
  }
  return true;
}

bool constexprTruth(const SValue& v, const SourceLoc& loc, std::string_view what) {
  if (v.isIR())
    fail(loc, std::string(what) + " must be a constexpr, but it is " + v.describe() +
                  " whose value is only known when the kernel runs");
  if (v.kind == K::Tuple && !v.allConstexpr())
    return !v.elts.empty();  // Python: a non-empty tuple is true whatever it holds
  return pyTruth(v);
}

ir::Type typeOf(const SValue& v) {
  if (v.isIR()) return v.ir->type;
  if (v.isNumber()) return literalType(v);
  throw CompileError(SourceLoc{}, v.describe() + " has no IR type (it is not a number or a tensor)");
}

std::vector<std::string> characters(const std::string& utf8) {
  std::vector<std::string> out;
  for (unsigned char c : utf8)
    if ((c & 0xC0) != 0x80 || out.empty()) out.emplace_back(1, char(c));  // a lead byte starts a character
    else out.back() += char(c);
  return out;
}

}  // namespace kiln::sema
