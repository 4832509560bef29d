// Specialization as Triton does it: a @jit function's parameters (which are constexprs), and the
// signature a launch's arguments select, written in Triton's AOT syntax (tuples as "(*fp32:16, i32)");
// the cache key is built on it.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "driver/errors.h"
#include "driver/link.h"
#include "driver/specialize.h"
#include "frontend/parser.h"

namespace kiln {

namespace {

// Triton's ":16" for values (addresses) divisible by 16, and kiln's ":8" for those divisible by 8 only,
// so that f16 rows of 3000 elements still get 16-byte accesses.
// (string_views: the key is built on every launch, and appending a view needs no strlen.)
std::string_view divisibilityHint(uint64_t v) {
  using namespace std::string_view_literals;
  if (v % 16 == 0) return ":16"sv;
  if (v % 8 == 0) return ":8"sv;
  return {};
}

// The dotted path an annotation names with its first name resolved through the imports, kiln's own
// module names read as Triton's: `tl.constexpr` -> "triton.language.constexpr".
std::string annotationPath(const ast::Module& m, const ast::Expr& e) {
  std::string path;
  if (e.kind == ast::ExprKind::Str) {
    path = e.str;
  } else if (e.kind == ast::ExprKind::Name) {
    path = e.name;
  } else if (e.kind == ast::ExprKind::Attribute && !e.elts.empty() && e.elts[0]) {
    std::string base = annotationPath(m, *e.elts[0]);
    return base.empty() ? "" : base + "." + e.name;
  } else {
    return "";
  }
  size_t dot = path.find('.');
  auto it = m.aliases.find(path.substr(0, dot));
  if (it != m.aliases.end()) path = it->second + (dot == std::string::npos ? "" : path.substr(dot));
  if (path.rfind("kiln", 0) == 0 && (path.size() == 4 || path[4] == '.')) path = "triton" + path.substr(4);
  return path;
}

bool isConstexprAnnotation(const ast::Module& m, const ast::Expr* a) {
  if (!a) return false;
  std::string path = annotationPath(m, *a);
  return path == "triton.language.constexpr" || path == "triton.language.core.constexpr" || path == "constexpr";
}

// The scalar type a runtime parameter's annotation names, in signature spelling, as Triton (3.3+)
// reads it: `x: tl.float16`, `x: "bf16"`, `n: tl.int64`, `flag: "u1"`. Empty for anything else
// (pointer types, tl.constexpr, no annotation): the argument decides the type then.
std::string annotatedScalarType(const ast::Module& m, const ast::Expr* a) {
  if (!a) return "";
  std::string path = annotationPath(m, *a);
  for (std::string_view prefix : {"triton.language.core.", "triton.language.", "tl."})
    if (path.rfind(prefix, 0) == 0) {
      path = path.substr(prefix.size());
      break;
    }
  static constexpr struct {
    std::string_view annotation, type;
  } kTypes[] = {
      {"float16", "fp16"}, {"bfloat16", "bf16"}, {"float32", "fp32"}, {"float64", "fp64"},
      {"float8e4nv", "fp8e4nv"}, {"float8e5", "fp8e5"}, {"float8e4b15", "fp8e4b15"}, {"float8e4b8", "fp8e4b8"},
      {"float8e5b16", "fp8e5b16"}, {"int1", "i1"}, {"u1", "i1"},
      {"int8", "i8"}, {"int16", "i16"}, {"int32", "i32"}, {"int64", "i64"},
      {"uint8", "u8"}, {"uint16", "u16"}, {"uint32", "u32"}, {"uint64", "u64"},
      {"fp16", "fp16"}, {"bf16", "bf16"}, {"fp32", "fp32"}, {"fp64", "fp64"}, {"fp8e4nv", "fp8e4nv"},
      {"fp8e5", "fp8e5"}, {"fp8e4b15", "fp8e4b15"}, {"fp8e4b8", "fp8e4b8"}, {"fp8e5b16", "fp8e5b16"},
      {"i1", "i1"}, {"i8", "i8"}, {"i16", "i16"}, {"i32", "i32"}, {"i64", "i64"},
      {"u8", "u8"}, {"u16", "u16"}, {"u32", "u32"}, {"u64", "u64"},
  };
  for (const auto& t : kTypes)
    if (t.annotation == path) return std::string(t.type);
  return "";
}

// The signature entry of argument `a` for a runtime parameter annotated with scalar type `type`, as
// Triton does it: floats and bools are not specialized on their value; integers keep their
// divisibility hint (never the constant 1) and must fit the type.
std::optional<std::string> appendAnnotated(std::string& out, const std::string& type, const LaunchArg& a,
                                           bool specialize) {
  using K = LaunchArg::Kind;
  const bool isFloat = type[0] == 'f' || type[0] == 'b';
  const bool integral = a.kind == K::Int || a.kind == K::UInt || a.kind == K::Bool;
  if (!integral && !(isFloat && a.kind == K::Float)) {
    const char* what = a.kind == K::Float     ? "is a float"
                       : a.kind == K::Pointer ? "is a tensor (a pointer)"
                                              : "is a string";
    return std::string(what) + ", but the parameter is annotated " + type;
  }
  if (isFloat || type == "i1") {
    out += type;
    return std::nullopt;
  }
  const int bits = std::stoi(type.substr(1));
  const bool isUnsigned = type[0] == 'u';
  const uint64_t u = uint64_t(a.i);
  bool fits;
  if (a.kind == K::UInt) fits = isUnsigned && bits == 64;
  else if (isUnsigned) fits = a.i >= 0 && (bits == 64 || u < (uint64_t(1) << bits));
  else fits = bits == 64 || (a.i >= -(int64_t(1) << (bits - 1)) && a.i < (int64_t(1) << (bits - 1)));
  if (!fits)
    return "is " + (a.kind == K::UInt ? std::to_string(u) : std::to_string(a.i)) +
           ", which does not fit the parameter's annotated type " + type;
  out += type;
  if (specialize) out += divisibilityHint(u);
  return std::nullopt;
}

void appendQuoted(std::string& out, std::string_view s) {
  out += '\'';
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\0': out += "\\0"; break;
      default: out += c; break;
    }
  }
  out += '\'';
}

void appendInt(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// The shortest text that reads back as the same double, always with a '.', an exponent or "inf"/"nan"
// so the signature parser takes it for a float.
void appendFloat(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string_view text(buf, size_t(r.ptr - buf));
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

}  // namespace

std::vector<KernelParameter> parametersOf(const ast::Module& m, std::string_view kernel) {
  const ast::FunctionDef* fn = m.findFunction(std::string(kernel));
  if (!fn) {
    std::string msg = "no @jit function named '" + std::string(kernel) + "' in " + m.file->name;
    if (!m.functions.empty()) {
      msg += " (its @jit functions: ";
      for (size_t i = 0; i < m.functions.size(); ++i) msg += (i ? ", " : "") + m.functions[i]->name;
      msg += ")";
    }
    throw CompileError(SourceLoc{m.file, 0, 0}, msg);
  }
  std::vector<KernelParameter> out;
  for (const ast::Param& p : fn->params)
    out.push_back(KernelParameter{p.name, isConstexprAnnotation(m, p.annotation.get()), p.defaultValue != nullptr,
                                  annotatedScalarType(m, p.annotation.get())});
  return out;
}

Result<std::vector<KernelParameter>> kernelParameters(const Source& source, std::string_view kernel,
                                                      const ModuleImports* imports) {
  return guarded<std::vector<KernelParameter>>([&] {
    std::unique_ptr<ast::Module> m = frontend::parseModule(makeSource(source.name, source.text, source.block));
    if (imports && !imports->empty()) linkImports(*m, kernel, *imports);
    return parametersOf(*m, kernel);
  });
}

namespace {

std::optional<std::string> appendTuple(std::string& out, const LaunchArg& a, bool constexprParam);

// A constexpr's entry: its literal value ("1024", "'relu'", "None", "tl.fp16", "(2, 4)").
std::optional<std::string> appendConstexpr(std::string& out, const LaunchArg& a) {
  using K = LaunchArg::Kind;
  switch (a.kind) {
    case K::Int: appendInt(out, a.i); return std::nullopt;
    case K::Float: appendFloat(out, a.f); return std::nullopt;
    case K::Bool: out += a.i ? "True" : "False"; return std::nullopt;
    case K::None: out += "None"; return std::nullopt;
    case K::String: appendQuoted(out, a.s); return std::nullopt;
    case K::Signature: out += a.s; return std::nullopt;
    case K::Tuple: return appendTuple(out, a, true);
    case K::UInt: return "is a constexpr, and " + std::to_string(uint64_t(a.i)) + " does not fit in 64-bit signed";
    case K::Pointer: return "is a constexpr, but got a tensor (a pointer argument)";
  }
  return "has an argument of an unknown kind";
}

// A runtime argument's entry by its own kind (no annotation): "*fp32:16", "i32", "1", "fp32", "None".
std::optional<std::string> appendRuntime(std::string& out, const LaunchArg& a, bool specialize) {
  using K = LaunchArg::Kind;
  switch (a.kind) {
    case K::Pointer:
      out += '*';
      out += a.dtype;
      if (specialize) out += divisibilityHint(a.address);
      return std::nullopt;
    case K::Int:
      if (specialize && a.i == 1) {
        out += '1';
        return std::nullopt;
      }
      out += a.i >= INT32_MIN && a.i <= INT32_MAX ? std::string_view("i32", 3) : std::string_view("i64", 3);
      if (specialize) out += divisibilityHint(uint64_t(a.i));
      return std::nullopt;
    case K::UInt:
      out += "u64";
      if (specialize) out += divisibilityHint(uint64_t(a.i));
      return std::nullopt;
    case K::Float:
      if (a.dtype.empty()) out += "fp32";
      else out += a.dtype;
      return std::nullopt;
    case K::Bool: out += "i1"; return std::nullopt;
    case K::Signature: out += a.s; return std::nullopt;
    case K::None:  // as in Triton, None specializes the parameter: it compiles as a constexpr None
      out += "None";
      return std::nullopt;
    case K::Tuple: return appendTuple(out, a, false);
    case K::String: return "got a string, which only a tl.constexpr parameter can take";
  }
  return "has an argument of an unknown kind";
}

// A tuple's entry, Triton's tuple specialization: "(e0, e1)", "(e0,)", "()", or for a NamedTuple
// "Class(field=e0, ...)". Each element of a runtime tuple specializes as an argument of its own
// would (always, as Triton's specialize_impl does for elements: do_not_specialize is for the whole
// parameter); a tl.constexpr(v) element, and every element of a constexpr parameter's tuple, is a
// literal.
std::optional<std::string> appendTuple(std::string& out, const LaunchArg& a, bool constexprParam) {
  std::string_view named = a.s, cls = named.substr(0, named.find(' '));
  if (!named.empty()) named.remove_prefix(std::min(named.size(), cls.size() + 1));
  out += cls;
  out += '(';
  for (uint32_t i = 0; i < a.count; ++i) {
    if (i) out.append(", ", 2);
    if (!cls.empty()) {  // the next field name
      std::string_view field = named.substr(0, named.find(' '));
      named.remove_prefix(std::min(named.size(), field.size() + 1));
      out += field;
      out += '=';
    }
    const LaunchArg& e = a.elems[i];
    std::optional<std::string> why =
        constexprParam || e.isConstexpr ? appendConstexpr(out, e) : appendRuntime(out, e, true);
    if (why) {
      std::string at = "element [" + std::to_string(i) + "]";
      if (why->rfind("element [", 0) == 0) return at + why->substr(8);  // nested: "element [1][2] ..."
      // A runtime parameter's message says "got a string": an element's says "is a string".
      if (why->rfind("got ", 0) == 0) return at + " is " + why->substr(4) + " (or pass tl.constexpr(...))";
      return at + " " + *why;
    }
  }
  if (cls.empty() && a.count == 1) out += ',';
  out += ')';
  return std::nullopt;
}

}  // namespace

std::optional<std::string> appendSignatureEntry(std::string& out, const KernelParameter& p, const LaunchArg& a,
                                                bool specialize) {
  using K = LaunchArg::Kind;
  if (p.isConstexpr) return appendConstexpr(out, a);
  // An annotated type decides the entry; None still specializes and a signature string is taken as is.
  if (!p.type.empty() && a.kind == K::Tuple) return "is a tuple, but the parameter is annotated " + p.type;
  if (!p.type.empty() && a.kind != K::None && a.kind != K::Signature)
    return appendAnnotated(out, p.type, a, specialize);
  return appendRuntime(out, a, specialize);
}

}  // namespace kiln
