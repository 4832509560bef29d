#include "analysis/index_bounds.h"

#include <algorithm>
#include <limits>

namespace kiln::analysis {

namespace {

using ir::Opcode;
using ir::Value;

constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kLimit = int64_t(1) << 40;  // offsets stay far from i64 overflow

// Every element is wrap32(base + t), t in [lo, hi].
struct Bounds {
  const Value* base = nullptr;
  int64_t lo = 0, hi = 0;
};

std::optional<int64_t> intConstant(const ir::Op& op) {
  const ir::AttrValue* a = op.findAttr("value");
  const int64_t* i = a ? std::get_if<int64_t>(a) : nullptr;
  return i ? std::optional<int64_t>(*i) : std::nullopt;
}

using Reads = std::vector<const ir::Op*>;

void note(const ir::Op* op, Reads& read) {
  if (std::find(read.begin(), read.end(), op) == read.end()) read.push_back(op);
}

std::optional<Bounds> bounds(const Value* v, Reads& read, int depth = 0) {
  if (depth > 32 || v->type.elem != ir::Scalar::I32) return std::nullopt;
  if (!v->type.isTensor()) {  // a scalar: its own base, unless it is a constant
    if (v->def && v->def->opcode == Opcode::Constant)
      if (std::optional<int64_t> c = intConstant(*v->def)) return Bounds{nullptr, *c, *c};
    if (v->def && (v->def->opcode == Opcode::MultipleOf || v->def->opcode == Opcode::MaxContiguous))
      return bounds(v->def->operand(0), read, depth + 1);
    return Bounds{v, 0, 0};
  }
  const ir::Op* d = v->def;
  if (!d) return std::nullopt;
  note(d, read);
  switch (d->opcode) {
    case Opcode::Arange: {
      const int64_t start = d->intAttrOr("start", 0), end = d->intAttrOr("end", 0);
      if (end <= start) return std::nullopt;
      return Bounds{nullptr, start, end - 1};
    }
    case Opcode::Constant:
      if (std::optional<int64_t> c = intConstant(*d)) return Bounds{nullptr, *c, *c};
      return std::nullopt;
    case Opcode::Splat:
    case Opcode::Broadcast: case Opcode::ExpandDims: case Opcode::Reshape: case Opcode::ConvertLayout:
    case Opcode::MultipleOf: case Opcode::MaxContiguous:
      return bounds(d->operand(0), read, depth + 1);
    case Opcode::Add: case Opcode::Sub: {
      std::optional<Bounds> a = bounds(d->operand(0), read, depth + 1), b = bounds(d->operand(1), read, depth + 1);
      if (!a || !b) return std::nullopt;
      Bounds r;
      if (d->opcode == Opcode::Add) {
        if (a->base && b->base) return std::nullopt;
        r = Bounds{a->base ? a->base : b->base, a->lo + b->lo, a->hi + b->hi};
      } else {
        if (b->base) return std::nullopt;
        r = Bounds{a->base, a->lo - b->hi, a->hi - b->lo};
      }
      if (std::max(std::abs(r.lo), std::abs(r.hi)) > kLimit) return std::nullopt;
      return r;
    }
    default:
      return std::nullopt;
  }
}

// The terms saying that b's elements are its exact values (no i32 wrap).
void noWrap(const Bounds& b, std::vector<GuardTerm>& out) {
  if (!b.base) return;  // constants: checked when folded
  if (b.hi > 0) out.push_back(GuardTerm{b.base, b.hi, nullptr, kI32Max});
  if (b.lo < 0) out.push_back(GuardTerm{nullptr, kI32Min, b.base, b.lo});
}

bool collect(const Value* mask, std::vector<GuardTerm>& out, Reads& read, int depth) {
  if (depth > 32 || mask->type.elem != ir::Scalar::I1 || !mask->def) return false;
  const ir::Op& d = *mask->def;
  note(&d, read);
  switch (d.opcode) {
    case Opcode::Broadcast: case Opcode::ExpandDims: case Opcode::Reshape: case Opcode::ConvertLayout:
      return d.operand(0)->type.isTensor() && collect(d.operand(0), out, read, depth + 1);
    case Opcode::And:
      return collect(d.operand(0), out, read, depth + 1) && collect(d.operand(1), out, read, depth + 1);
    case Opcode::Cmp: {
      std::optional<Bounds> x = bounds(d.operand(0), read), y = bounds(d.operand(1), read);
      if (!x || !y) return false;
      // x < y everywhere: max x < min y, i.e. x.base + x.hi + 1 <= y.base + y.lo (and mirrored).
      const std::string pred = d.strAttrOr("pred", "");
      GuardTerm t;
      if (pred == "lt" || pred == "le") t = GuardTerm{x->base, x->hi + (pred == "lt"), y->base, y->lo};
      else if (pred == "gt" || pred == "ge") t = GuardTerm{y->base, y->hi + (pred == "gt"), x->base, x->lo};
      else return false;
      noWrap(*x, out);
      noWrap(*y, out);
      if (!t.lhs && !t.rhs) return t.lhsOffset <= t.rhsOffset;  // decided now: always, or never provable
      out.push_back(t);
      return true;
    }
    default:
      return false;
  }
}

// Whether `t`, a no-wrap term, follows from another: base + hi <= max holds when some term bounds
// base + (at least hi) by an i32 value plus at most zero; min <= base + lo likewise from below.
bool implied(const GuardTerm& t, const std::vector<GuardTerm>& terms) {
  return std::any_of(terms.begin(), terms.end(), [&](const GuardTerm& u) {
    if (&u == &t) return false;
    if (!t.rhs && t.rhsOffset == kI32Max)
      return u.lhs == t.lhs && u.lhsOffset >= t.lhsOffset && (u.rhs ? u.rhsOffset <= 0 : u.rhsOffset <= kI32Max);
    if (!t.lhs && t.lhsOffset == kI32Min)
      return u.rhs == t.rhs && u.rhsOffset <= t.rhsOffset && (u.lhs ? u.lhsOffset >= 0 : u.lhsOffset >= kI32Min);
    return false;
  });
}

}  // namespace

std::optional<std::vector<GuardTerm>> allTrueGuard(const ir::Value* mask, std::vector<const ir::Op*>* read) {
  std::vector<GuardTerm> terms;
  Reads ops;
  if (!mask->type.isTensor() || !collect(mask, terms, ops, 0)) return std::nullopt;
  if (read) *read = std::move(ops);
  std::vector<GuardTerm> unique;
  for (const GuardTerm& t : terms)
    if (std::find(unique.begin(), unique.end(), t) == unique.end()) unique.push_back(t);
  std::vector<GuardTerm> out;
  for (const GuardTerm& t : unique)
    if (!implied(t, unique)) out.push_back(t);
  return out;
}

}  // namespace kiln::analysis
