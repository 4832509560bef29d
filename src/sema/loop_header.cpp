// Loop headers (loop_header.h), and `while tl.condition(...)`.
#include "sema/loop_header.h"

namespace kiln::sema {

namespace {

bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

RangeKind rangeKind(const SValue& callee) {
  if (callee.kind != SValue::Kind::Builtin) return RangeKind::NotRange;
  const std::string& n = callee.str;
  if (n == "range") return RangeKind::Python;
  if (n == "static_range" || endsWith(n, ".static_range")) return RangeKind::Static;
  if (endsWith(n, ".range")) return RangeKind::Tl;
  return RangeKind::NotRange;
}

void bindRangeKeywords(std::vector<SValue>& args, Kwargs& kwargs, const std::string& what, const SourceLoc& loc) {
  const char* names[3] = {"arg1", "arg2", "step"};
  std::optional<SValue> slot[3];
  bool moved = false;
  for (size_t i = 0; i < args.size() && i < 3; ++i) slot[i] = args[i];
  for (auto it = kwargs.begin(); it != kwargs.end();) {
    int i = 0;
    while (i < 3 && it->first != names[i]) ++i;
    if (i == 3) { ++it; continue; }
    if (slot[i]) fail(loc, what + "() got multiple values for argument '" + it->first + "'");
    slot[i] = std::move(it->second);
    it = kwargs.erase(it);
    moved = true;
  }
  if (!moved || args.size() > 3) return;  // the arity check reports extra arguments
  if (!slot[0]) fail(loc, what + "() missing required argument 'arg1'");
  bool noEnd = !slot[1] || slot[1]->kind == SValue::Kind::None;
  bool noStep = !slot[2] || slot[2]->kind == SValue::Kind::None;
  args = {noEnd ? SValue::integer(0) : *slot[0], noEnd ? *slot[0] : *slot[1], noStep ? SValue::integer(1) : *slot[2]};
}

bool isIterationBuiltin(const SValue& callee) { return rangeKind(callee) != RangeKind::NotRange; }

// `while tl.condition(c, disable_licm=False)` (Triton 3.6): the condition c, and the loop's attribute.
const ast::Expr& Lowerer::whileCondition(const ast::Expr& e, std::vector<ir::Attr>& attrs) {
  if (e.kind != ast::ExprKind::Call) return e;
  SValue callee = expr(*e.elts[0]);
  if (callee.kind != SValue::Kind::Builtin || callee.str != "triton.language.condition") return e;
  const ast::Expr* cond = e.elts.size() > 1 ? e.elts[1].get() : nullptr;
  const ast::Expr* licm = e.elts.size() > 2 ? e.elts[2].get() : nullptr;
  for (const auto& kw : e.keywords) {
    const ast::Expr*& slot = kw.name == "arg1" ? cond : kw.name == "disable_licm" ? licm : cond;
    if (kw.name != "arg1" && kw.name != "disable_licm")
      fail(kw.loc, "tl.condition() got an unexpected keyword argument '" + kw.name + "' (it takes arg1 and disable_licm)");
    if (slot) fail(kw.loc, "tl.condition() got multiple values for argument '" + kw.name + "'");
    slot = kw.value.get();
  }
  if (!cond || e.elts.size() > 3) fail(e.loc, "tl.condition() takes the loop's condition and disable_licm");
  if (licm) {
    SValue v = expr(*licm);
    if (!v.isConstexpr()) fail(licm->loc, "tl.condition(): 'disable_licm' must be a constexpr, got " + v.describe());
    if (constexprTruth(v, licm->loc, "disable_licm")) attrs.push_back(ir::Attr{"disable_licm", int64_t(1)});
  }
  return *cond;
}

}  // namespace kiln::sema
