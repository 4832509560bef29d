// Types in Tile IR and GPU IR text (docs/ir.md, docs/gpu-ir.md), read character by character:
// i32, ptr<f16>, tensor<64x32xf16[, LAYOUT]>, shared<64x32xf16[, slots=N][, LAYOUT]>.
#include <cctype>

#include "ir/text_lexer.h"
#include "layout/linear_layout.h"
#include "layout/named_layouts.h"
#include "support/diagnostic.h"

namespace kiln::ir {

namespace {

constexpr int64_t kMaxDim = int64_t(1) << 31;
constexpr int64_t kMaxNumel = int64_t(1) << 32;
constexpr int64_t kMaxSlots = 64;  // pipelines are a few stages deep

// Forward declarations: the readers call each other in text order.
layout::LinearLayout rowMajorShared(const std::vector<int64_t>& shape);
int64_t slotsAt(const Lexer& lex, size_t& p);

std::string wordAt(const Lexer& lex, size_t& p) {
  const std::string& s = lex.text();
  size_t start = p;
  while (p < s.size() && std::isalnum(static_cast<unsigned char>(s[p]))) ++p;
  return s.substr(start, p - start);
}

void charAt(const Lexer& lex, size_t& p, char c, const char* context) {
  const std::string& s = lex.text();
  if (p >= s.size() || s[p] != c) lex.error(p, std::string("expected '") + c + "' " + context);
  ++p;
}

Type elementAt(const Lexer& lex, size_t& p) {
  size_t start = p;
  std::string w = wordAt(lex, p);
  if (w == "ptr") {
    charAt(lex, p, '<', "after 'ptr'");
    size_t s2 = p;
    std::string pointee = wordAt(lex, p);
    auto sc = scalarFromName(pointee);
    if (!sc) lex.error(s2, "expected a scalar pointee type in 'ptr<...>'");
    charAt(lex, p, '>', "to close 'ptr<'");
    return Type::ptr(*sc);
  }
  auto sc = scalarFromName(w);
  if (!sc) lex.error(start, w.empty() ? "expected a type" : "unknown type '" + w + "'");
  return Type::scalar(*sc);
}

// A GPU IR layout, `{ins...} -> [outs...]` (docs/layouts.md), after a tensor type's element type.
std::shared_ptr<const layout::LinearLayout> layoutAt(const Lexer& lex, size_t& p) {
  const std::string& s = lex.text();
  while (p < s.size() && s[p] == ' ') ++p;
  size_t start = p;
  auto skipBalanced = [&](char open, char close) {
    if (p >= s.size() || s[p] != open) lex.error(p, std::string("expected '") + open + "' in a layout");
    int depth = 0;
    for (; p < s.size() && s[p] != '\n'; ++p) {
      if (s[p] == open) ++depth;
      if (s[p] == close && --depth == 0) {
        ++p;
        return;
      }
    }
    lex.error(start, "unterminated layout");
  };
  skipBalanced('{', '}');
  while (p < s.size() && s[p] == ' ') ++p;
  if (s.compare(p, 2, "->") != 0) lex.error(p, "expected '->' in a layout");
  p += 2;
  while (p < s.size() && s[p] == ' ') ++p;
  skipBalanced('[', ']');
  try {
    return std::make_shared<const layout::LinearLayout>(layout::LinearLayout::parse(s.substr(start, p - start)));
  } catch (const CompileError& e) {
    lex.error(start, e.diag().message);
  } catch (const InternalError& e) {
    lex.error(start, e.diag().message);
  }
}

Type typeAt(const Lexer& lex, size_t& p) {
  const std::string& s = lex.text();
  size_t start = p;
  const std::string kind = wordAt(lex, p);
  if (kind != "tensor" && kind != "shared") {
    p = start;
    return elementAt(lex, p);
  }
  const bool shared = kind == "shared";
  const std::string close = "to close '" + kind + "<'";
  charAt(lex, p, '<', ("after '" + kind + "'").c_str());
  std::vector<int64_t> shape;
  int64_t numel = 1;
  while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
    size_t d0 = p;
    int64_t d = 0;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
      d = d * 10 + (s[p++] - '0');
      if (d > kMaxDim) lex.error(d0, "tensor dimension too large");
    }
    if (d == 0) lex.error(d0, "tensor dimensions must be positive");
    numel *= d;
    if (numel > kMaxNumel) lex.error(d0, "tensor has too many elements");
    shape.push_back(d);
    charAt(lex, p, 'x', "after a tensor dimension");
  }
  if (shape.empty()) lex.error(p, "expected a tensor dimension");
  Type elem = elementAt(lex, p);
  Type t = elem.withShape(std::move(shape));
  if (shared) t = t.withSlots(slotsAt(lex, p));
  if (p < s.size() && s[p] == ',') t = t.withLayout(layoutAt(lex, ++p));
  // A shared buffer written without a layout is row-major (the last dim contiguous).
  if (shared && !t.layout) {
    for (int64_t d : t.shape)
      if (d & (d - 1)) lex.error(start, "shared buffer dimensions must be powers of two, got " + t.withoutLayout().str());
    t = t.withLayout(std::make_shared<const layout::LinearLayout>(rowMajorShared(t.shape)));
  }
  charAt(lex, p, '>', close.c_str());
  return t;
}

// `, slots=N` after a shared buffer's element type (absent: one slot).
int64_t slotsAt(const Lexer& lex, size_t& p) {
  const std::string& s = lex.text();
  size_t q = p;
  if (q >= s.size() || s[q] != ',') return 1;
  ++q;
  while (q < s.size() && s[q] == ' ') ++q;
  if (s.compare(q, 6, "slots=") != 0) return 1;
  p = q + 6;
  size_t d0 = p;
  int64_t n = 0;
  while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
    n = n * 10 + (s[p++] - '0');
    if (n > kMaxSlots) lex.error(d0, "too many slots (at most " + std::to_string(kMaxSlots) + ")");
  }
  if (p == d0 || n == 0) lex.error(d0, "slots must be a positive number");
  return n;
}

layout::LinearLayout rowMajorShared(const std::vector<int64_t>& shape) {
  std::vector<int32_t> order;
  for (int d = int(shape.size()) - 1; d >= 0; --d) order.push_back(d);
  return layout::sharedPlain(shape, order);
}

}  // namespace

Type readType(const Lexer& lex, size_t& p) { return typeAt(lex, p); }

}  // namespace kiln::ir
