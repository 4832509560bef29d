// Text form of the AST. The format is stable: golden tests and `--emit ast` depend on it.
#include "frontend/ast_dump.h"

#include <charconv>
#include <cstdio>

namespace kiln::frontend {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Shortest text that reads back as the same double, always with a '.' or exponent.
std::string floatText(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, end);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

class Dumper {
 public:
  std::string out;

  void line(int indent, const char* label, const std::string& text, const SourceLoc& loc) {
    out.append(size_t(indent) * 2, ' ');
    if (label) out += std::string(label) + ": ";
    out += text;
    if (loc.line > 0) out += " @" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
    out += '\n';
  }

  void expr(int indent, const char* label, const ast::Expr* e) {
    if (!e) return;
    std::string text;
    switch (e->kind) {
      case ast::ExprKind::Name: text = "Name " + e->name; break;
      case ast::ExprKind::Int: text = "Int " + std::to_string(e->intValue); break;
      case ast::ExprKind::Float: text = "Float " + floatText(e->floatValue); break;
      case ast::ExprKind::Str: text = "Str " + quoted(e->str); break;
      case ast::ExprKind::Bool: text = e->intValue ? "Bool True" : "Bool False"; break;
      case ast::ExprKind::NoneLit: text = "None"; break;
      case ast::ExprKind::Tuple: text = "Tuple"; break;
      case ast::ExprKind::List: text = "List"; break;
      case ast::ExprKind::BinOp: text = std::string("BinOp ") + ast::spelling(e->binOp); break;
      case ast::ExprKind::UnaryOp: text = std::string("UnaryOp ") + ast::spelling(e->unaryOp); break;
      case ast::ExprKind::BoolOp: text = e->boolOp == ast::BoolOp::And ? "BoolOp and" : "BoolOp or"; break;
      case ast::ExprKind::Compare:
        text = "Compare";
        for (ast::CmpOp op : e->cmpOps) text += std::string(" ") + ast::spelling(op);
        break;
      case ast::ExprKind::Call: text = "Call"; break;
      case ast::ExprKind::Attribute: text = "Attribute " + e->name; break;
      case ast::ExprKind::Subscript: text = "Subscript"; break;
      case ast::ExprKind::Slice: text = "Slice"; break;
      case ast::ExprKind::IfExp: text = "IfExp"; break;
      case ast::ExprKind::ListComp: text = "ListComp"; break;
      case ast::ExprKind::Starred: text = "Starred"; break;
    }
    line(indent, label, text, e->loc);
    if (e->kind == ast::ExprKind::Slice) {
      static const char* const kParts[] = {"lower", "upper", "step"};
      for (size_t i = 0; i < e->elts.size() && i < 3; ++i) expr(indent + 1, kParts[i], e->elts[i].get());
    } else if (e->kind == ast::ExprKind::IfExp && e->elts.size() == 3) {
      expr(indent + 1, "test", e->elts[0].get());
      expr(indent + 1, "body", e->elts[1].get());
      expr(indent + 1, "orelse", e->elts[2].get());
    } else if (e->kind == ast::ExprKind::ListComp && e->elts.size() == 3) {
      expr(indent + 1, "element", e->elts[0].get());
      expr(indent + 1, "target", e->elts[1].get());
      expr(indent + 1, "iterable", e->elts[2].get());
    } else {
      for (const ast::ExprPtr& c : e->elts) expr(indent + 1, nullptr, c.get());
    }
    for (const ast::Keyword& k : e->keywords) {
      line(indent + 1, nullptr, "Keyword " + k.name, k.loc);
      expr(indent + 2, nullptr, k.value.get());
    }
  }

  void body(int indent, const char* label, const ast::Body& b) {
    if (b.empty()) return;
    out.append(size_t(indent) * 2, ' ');
    out += std::string(label) + ":\n";
    for (const ast::StmtPtr& s : b) stmt(indent + 1, *s);
  }

  void stmt(int indent, const ast::Stmt& s) {
    std::string text;
    switch (s.kind) {
      case ast::StmtKind::ExprStmt: text = "Expr"; break;
      case ast::StmtKind::Assign: text = "Assign"; break;
      case ast::StmtKind::AugAssign: text = std::string("AugAssign ") + ast::spelling(s.augOp) + "="; break;
      case ast::StmtKind::AnnAssign: text = "AnnAssign"; break;
      case ast::StmtKind::If: text = "If"; break;
      case ast::StmtKind::For: text = "For"; break;
      case ast::StmtKind::While: text = "While"; break;
      case ast::StmtKind::Return: text = "Return"; break;
      case ast::StmtKind::Pass: text = "Pass"; break;
      case ast::StmtKind::Break: text = "Break"; break;
      case ast::StmtKind::Continue: text = "Continue"; break;
      case ast::StmtKind::Assert: text = "Assert"; break;
    }
    line(indent, nullptr, text, s.loc);
    bool isTest = s.kind == ast::StmtKind::If || s.kind == ast::StmtKind::While || s.kind == ast::StmtKind::Assert;
    for (const ast::ExprPtr& t : s.targets) expr(indent + 1, "target", t.get());
    expr(indent + 1, "annotation", s.annotation.get());
    expr(indent + 1, isTest ? "test" : s.kind == ast::StmtKind::For ? "iter" : "value", s.value.get());
    expr(indent + 1, "msg", s.msg.get());
    body(indent + 1, "body", s.body);
    body(indent + 1, "orelse", s.orelse);
  }

  void function(const ast::FunctionDef& fn) {
    line(0, nullptr, "FunctionDef " + fn.name, fn.loc);
    for (const ast::ExprPtr& d : fn.decorators) expr(1, "decorator", d.get());
    for (const ast::Param& p : fn.params) {
      line(1, nullptr, "Param " + p.name, p.loc);
      expr(2, "annotation", p.annotation.get());
      expr(2, "default", p.defaultValue.get());
    }
    expr(1, "returns", fn.returns.get());
    if (!fn.docstring.empty()) line(1, "docstring", quoted(fn.docstring), SourceLoc{});
    body(1, "body", fn.body);
  }
};

}  // namespace

std::string dump(const ast::FunctionDef& fn) {
  Dumper d;
  d.function(fn);
  return d.out;
}

std::string dump(const ast::Expr& e) {
  Dumper d;
  d.expr(0, nullptr, &e);
  return d.out;
}

std::string dump(const ast::Module& m) {
  Dumper d;
  for (const auto& [local, path] : m.aliases) d.line(0, nullptr, "Alias " + local + " = " + path, SourceLoc{});
  for (const ast::GlobalAssign& g : m.globals) {
    d.line(0, nullptr, "Global " + g.name + (g.value ? "" : " (skipped: " + g.skipReason + ")"), g.loc);
    d.expr(1, "annotation", g.annotation.get());
    d.expr(1, "value", g.value.get());
  }
  for (const auto& fn : m.functions) d.function(*fn);
  return d.out;
}

}  // namespace kiln::frontend
