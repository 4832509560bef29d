// Specialization as Triton does it: a @jit function's parameters (which are constexprs), and the
// signature a launch's arguments select, written in Triton's AOT syntax; the cache key is built on it.
#include <charconv>
#include <cmath>

#include "driver/errors.h"
#include "driver/specialize.h"
#include "frontend/parser.h"

namespace kiln {

namespace {

// Triton's ":16" for values (addresses) divisible by 16, and kiln's ":8" for those divisible by 8 only,
// so that f16 rows of 3000 elements still get 16-byte accesses.
const char* divisibilityHint(uint64_t v) {
  if (v % 16 == 0) return ":16";
  if (v % 8 == 0) return ":8";
  return "";
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
    out.push_back(KernelParameter{p.name, isConstexprAnnotation(m, p.annotation.get()), p.defaultValue != nullptr});
  return out;
}

Result<std::vector<KernelParameter>> kernelParameters(const Source& source, std::string_view kernel) {
  return guarded<std::vector<KernelParameter>>([&] {
    std::unique_ptr<ast::Module> m = frontend::parseModule(makeSource(source.name, source.text));
    return parametersOf(*m, kernel);
  });
}

std::optional<std::string> appendSignatureEntry(std::string& out, const KernelParameter& p, const LaunchArg& a,
                                                bool specialize) {
  using K = LaunchArg::Kind;
  if (p.isConstexpr) {
    switch (a.kind) {
      case K::Int: appendInt(out, a.i); return std::nullopt;
      case K::Float: appendFloat(out, a.f); return std::nullopt;
      case K::Bool: out += a.i ? "True" : "False"; return std::nullopt;
      case K::None: out += "None"; return std::nullopt;
      case K::String: appendQuoted(out, a.s); return std::nullopt;
      case K::Signature: out += a.s; return std::nullopt;
      case K::UInt: return "is a constexpr, and " + std::to_string(uint64_t(a.i)) + " does not fit in 64-bit signed";
      case K::Pointer: return "is a constexpr, but got a tensor (a pointer argument)";
    }
    return "has an argument of an unknown kind";
  }
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
      out += a.i >= INT32_MIN && a.i <= INT32_MAX ? "i32" : "i64";
      if (specialize) out += divisibilityHint(uint64_t(a.i));
      return std::nullopt;
    case K::UInt:
      out += "u64";
      if (specialize) out += divisibilityHint(uint64_t(a.i));
      return std::nullopt;
    case K::Float: out += "fp32"; return std::nullopt;
    case K::Bool: out += "i1"; return std::nullopt;
    case K::Signature: out += a.s; return std::nullopt;
    case K::None:  // as in Triton, None specializes the parameter: it compiles as a constexpr None
      out += "None";
      return std::nullopt;
    case K::String: return "got a string, which only a tl.constexpr parameter can take";
  }
  return "has an argument of an unknown kind";
}

}  // namespace kiln
