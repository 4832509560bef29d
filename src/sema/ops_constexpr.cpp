// Python semantics of operators on compile-time values: ints are int64 with overflow reported as
// an error, `/` is true division, `//` and `%` round toward -inf, bools behave as ints, and str and
// tuple support concatenation, repetition, comparison and membership.
#include <cmath>
#include <limits>

#include "sema/ops_common.h"
#include "sema/value_bounds.h"

namespace kiln::sema {

using K = SValue::Kind;

namespace {

constexpr size_t kMaxRepeat = size_t(1) << 20;  // bound on str/tuple repetition results

bool intLike(const SValue& v) { return v.kind == K::Int || v.kind == K::Bool; }
bool numeric(const SValue& v) { return v.isNumber(); }
double asFloat(const SValue& v) { return v.kind == K::Float ? v.f : double(v.i); }

[[noreturn]] void overflow(const SourceLoc& loc) { fail(loc, "integer overflow in constant expression"); }

[[noreturn]] void badOperands(ast::BinOp op, const SValue& a, const SValue& b, const SourceLoc& loc) {
  fail(loc, std::string("unsupported operand type(s) for ") + ast::spelling(op) + ": '" + pyTypeName(a) + "' and '" +
                pyTypeName(b) + "'");
}

int64_t ipow(int64_t base, int64_t exp, const SourceLoc& loc) {
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1)
      if (__builtin_mul_overflow(result, base, &result)) overflow(loc);
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(base, base, &base)) overflow(loc);
  }
  return result;
}

SValue intBinary(ast::BinOp op, const SValue& a, const SValue& b, const SourceLoc& loc) {
  int64_t x = a.i, y = b.i, r = 0;
  bool bothBool = a.kind == K::Bool && b.kind == K::Bool;
  switch (op) {
    case ast::BinOp::Add: if (__builtin_add_overflow(x, y, &r)) overflow(loc); return SValue::integer(r);
    case ast::BinOp::Sub: if (__builtin_sub_overflow(x, y, &r)) overflow(loc); return SValue::integer(r);
    case ast::BinOp::Mul: if (__builtin_mul_overflow(x, y, &r)) overflow(loc); return SValue::integer(r);
    case ast::BinOp::Div:
      if (y == 0) fail(loc, "division by zero in constant expression");
      return SValue::real(double(x) / double(y));
    case ast::BinOp::FloorDiv: {
      if (y == 0) fail(loc, "integer division or modulo by zero in constant expression");
      if (x == std::numeric_limits<int64_t>::min() && y == -1) overflow(loc);
      int64_t q = x / y;
      if (x % y != 0 && ((x < 0) != (y < 0))) --q;
      return SValue::integer(q);
    }
    case ast::BinOp::Mod: {
      if (y == 0) fail(loc, "integer division or modulo by zero in constant expression");
      if (y == -1) return SValue::integer(0);
      int64_t m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return SValue::integer(m);
    }
    case ast::BinOp::Pow:
      if (y < 0) {
        if (x == 0) fail(loc, "0 cannot be raised to a negative power");
        return SValue::real(std::pow(double(x), double(y)));
      }
      return SValue::integer(ipow(x, y, loc));
    case ast::BinOp::LShift:
      if (y < 0) fail(loc, "negative shift count in constant expression");
      if (x == 0) return SValue::integer(0);
      if (y >= 63 || x > (std::numeric_limits<int64_t>::max() >> y) || x < (std::numeric_limits<int64_t>::min() >> y))
        overflow(loc);
      return SValue::integer(int64_t(uint64_t(x) << y));
    case ast::BinOp::RShift:
      if (y < 0) fail(loc, "negative shift count in constant expression");
      return SValue::integer(y >= 64 ? (x < 0 ? -1 : 0) : (x >> y));
    case ast::BinOp::BitAnd: return bothBool ? SValue::boolean(x & y) : SValue::integer(x & y);
    case ast::BinOp::BitOr: return bothBool ? SValue::boolean(x | y) : SValue::integer(x | y);
    case ast::BinOp::BitXor: return bothBool ? SValue::boolean(x ^ y) : SValue::integer(x ^ y);
    case ast::BinOp::MatMul: break;
  }
  badOperands(op, a, b, loc);
}

SValue floatBinary(ast::BinOp op, const SValue& a, const SValue& b, const SourceLoc& loc) {
  double x = asFloat(a), y = asFloat(b);
  switch (op) {
    case ast::BinOp::Add: return SValue::real(x + y);
    case ast::BinOp::Sub: return SValue::real(x - y);
    case ast::BinOp::Mul: return SValue::real(x * y);
    case ast::BinOp::Div:
      if (y == 0) fail(loc, "float division by zero in constant expression");
      return SValue::real(x / y);
    case ast::BinOp::FloorDiv:
    case ast::BinOp::Mod: {
      if (y == 0) fail(loc, "float modulo or floor division by zero in constant expression");
      // CPython's float_divmod: the remainder takes the divisor's sign.
      double mod = std::fmod(x, y), div = (x - mod) / y;
      if (mod != 0) {
        if ((y < 0) != (mod < 0)) { mod += y; div -= 1.0; }
      } else {
        mod = std::copysign(0.0, y);
      }
      double floordiv;
      if (div != 0) {
        floordiv = std::floor(div);
        if (div - floordiv > 0.5) floordiv += 1.0;
      } else {
        floordiv = std::copysign(0.0, x / y);
      }
      return SValue::real(op == ast::BinOp::Mod ? mod : floordiv);
    }
    case ast::BinOp::Pow: {
      if (x == 0 && y < 0) fail(loc, "0.0 cannot be raised to a negative power");
      if (x < 0 && std::isfinite(y) && y != std::floor(y))
        fail(loc, "a negative number cannot be raised to a fractional power in a constant expression");
      double r = std::pow(x, y);
      if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) fail(loc, "float overflow in constant expression");
      return SValue::real(r);
    }
    case ast::BinOp::MatMul:
    case ast::BinOp::LShift:
    case ast::BinOp::RShift:
    case ast::BinOp::BitAnd:
    case ast::BinOp::BitOr:
    case ast::BinOp::BitXor: break;
  }
  badOperands(op, a, b, loc);
}

SValue repeat(const SValue& seq, int64_t n, const SourceLoc& loc) {
  size_t len = seq.kind == K::Str ? seq.str.size() : seq.elts.size();
  size_t times = n < 0 ? 0 : size_t(n);
  if (len != 0 && times > kMaxRepeat / len) fail(loc, "repetition result is too large");
  // The values and text of the result, `times` copies of the sequence's own (value.h's bounds).
  ValueBudget one;
  if (!one.take(seq)) fail(loc, "repetition result is too large");
  const size_t nodes = kMaxTupleNodes - one.nodes - 1, bytes = kMaxConstexprBytes - one.bytes;
  if ((nodes && times > (kMaxTupleNodes - 1) / nodes) || (bytes && times > kMaxConstexprBytes / bytes))
    fail(loc, "repetition result is too large");
  SValue out = seq;
  out.str.clear();
  out.elts.clear();
  for (size_t i = 0; i < times; ++i) {
    out.str += seq.str;
    out.elts.insert(out.elts.end(), seq.elts.begin(), seq.elts.end());
  }
  return out;
}

// -1, 0, 1 for a < b, a == b, a > b with Python ordering; error when the types do not order.
int pyCompare(const SValue& a, const SValue& b, ast::CmpOp op, const SourceLoc& loc) {
  if (numeric(a) && numeric(b)) {
    if (intLike(a) && intLike(b)) return a.i < b.i ? -1 : a.i > b.i;
    double x = asFloat(a), y = asFloat(b);
    if (std::isnan(x) || std::isnan(y)) return 2;  // unordered: every ordering comparison is false
    return x < y ? -1 : x > y;
  }
  if (a.kind == K::Str && b.kind == K::Str) {
    int c = a.str.compare(b.str);
    return c < 0 ? -1 : c > 0;
  }
  if (a.kind == K::Tuple && b.kind == K::Tuple) {
    for (size_t i = 0; i < a.elts.size() && i < b.elts.size(); ++i) {
      if (pyEqual(a.elts[i], b.elts[i], loc)) continue;
      return pyCompare(a.elts[i], b.elts[i], op, loc);
    }
    return a.elts.size() < b.elts.size() ? -1 : a.elts.size() > b.elts.size();
  }
  fail(loc, std::string("'") + ast::spelling(op) + "' is not supported between instances of '" + pyTypeName(a) +
                "' and '" + pyTypeName(b) + "'");
}

}  // namespace

bool pyEqual(const SValue& a, const SValue& b, const SourceLoc& loc) {
  if (a.isIR() || b.isIR())
    fail(loc, "cannot compare " + a.describe() + " and " + b.describe() + " at compile time");
  if (numeric(a) && numeric(b)) {
    if (intLike(a) && intLike(b)) return a.i == b.i;
    return asFloat(a) == asFloat(b);
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case K::Str: return a.str == b.str;
    case K::None: return true;
    case K::Dtype: return a.type == b.type;
    case K::Tuple:
      if (a.elts.size() != b.elts.size()) return false;
      for (size_t i = 0; i < a.elts.size(); ++i)
        if (!pyEqual(a.elts[i], b.elts[i], loc)) return false;
      return true;
    case K::Function: return a.fn == b.fn;
    case K::Namespace:
    case K::Builtin: return a.str == b.str;
    case K::Method: return a.str == b.str && pyEqual(a.elts.at(0), b.elts.at(0), loc);
    case K::Slice: return true;
    case K::Block: return false;  // holds runtime values: IR above
    case K::TupleClass: return a.str == b.str && a.fields == b.fields;
    case K::IR:
    case K::Int:
    case K::Float:
    case K::Bool: break;  // handled above
  }
  return false;
}

// A literal in [2^63, 2^64) is a uint64 where it meets a runtime value; kiln's constexpr integers are
// int64, so arithmetic on it at compile time is refused rather than wrapped.
void noU64(const SValue& v, const SourceLoc& loc) {
  if (v.kind == K::Int && v.u64)
    fail(loc, "the integer " + std::to_string(uint64_t(v.i)) + " is at or above 2^63: kiln takes it as a uint64 "
              "runtime value (where it meets a tensor, or cast with tl.full/.to), not in constexpr arithmetic");
}

SValue constexprBinary(ast::BinOp op, const SValue& a, const SValue& b, const SourceLoc& loc) {
  noU64(a, loc);
  noU64(b, loc);
  if (numeric(a) && numeric(b))
    return intLike(a) && intLike(b) ? intBinary(op, a, b, loc) : floatBinary(op, a, b, loc);
  bool seqA = a.kind == K::Str || a.kind == K::Tuple, seqB = b.kind == K::Str || b.kind == K::Tuple;
  if (op == ast::BinOp::Add && seqA && a.kind == b.kind) {
    // Each operand is within value.h's bounds, so the result is at most twice that; it is checked before
    // it is kept (`t = t + t` in an unrolled loop would double it every time).
    SValue out = a;
    out.str += b.str;
    out.elts.insert(out.elts.end(), b.elts.begin(), b.elts.end());
    ValueBudget budget;
    if (!budget.take(out)) fail(loc, budget.whyNot(out));
    return out;
  }
  if (op == ast::BinOp::Mul && seqA && intLike(b)) return repeat(a, b.i, loc);
  if (op == ast::BinOp::Mul && seqB && intLike(a)) return repeat(b, a.i, loc);
  badOperands(op, a, b, loc);
}

SValue constexprUnary(ast::UnaryOp op, const SValue& a, const SourceLoc& loc) {
  if (op != ast::UnaryOp::Not) noU64(a, loc);
  switch (op) {
    case ast::UnaryOp::Not: return SValue::boolean(!pyTruth(a));
    case ast::UnaryOp::Neg:
      if (a.kind == K::Float) return SValue::real(-a.f);
      if (intLike(a)) {
        if (a.i == std::numeric_limits<int64_t>::min()) overflow(loc);
        return SValue::integer(-a.i);
      }
      break;
    case ast::UnaryOp::Pos:
      if (a.kind == K::Float) return a;
      if (intLike(a)) return SValue::integer(a.i);
      break;
    case ast::UnaryOp::Invert:
      if (intLike(a)) return SValue::integer(~a.i);
      break;
  }
  fail(loc, std::string("bad operand type for unary ") + ast::spelling(op) + ": '" + pyTypeName(a) + "'");
}

SValue constexprCompare(ast::CmpOp op, const SValue& a, const SValue& b, const SourceLoc& loc) {
  noU64(a, loc);
  noU64(b, loc);
  switch (op) {
    case ast::CmpOp::Eq: return SValue::boolean(pyEqual(a, b, loc));
    case ast::CmpOp::NotEq: return SValue::boolean(!pyEqual(a, b, loc));
    case ast::CmpOp::Is:
    case ast::CmpOp::IsNot: {
      // Identity of compile-time objects: equal values of one kind are the same object (as for
      // Python's interned small values, None, True/False and the tl dtypes).
      bool same = a.kind == b.kind && pyEqual(a, b, loc);
      return SValue::boolean(op == ast::CmpOp::Is ? same : !same);
    }
    case ast::CmpOp::In:
    case ast::CmpOp::NotIn: {
      bool found = false;
      if (b.kind == K::Tuple) {
        for (const SValue& e : b.elts) found = found || pyEqual(a, e, loc);
      } else if (b.kind == K::Str && a.kind == K::Str) {
        found = b.str.find(a.str) != std::string::npos;
      } else {
        fail(loc, std::string("argument of type '") + pyTypeName(b) + "' is not iterable");
      }
      return SValue::boolean(op == ast::CmpOp::In ? found : !found);
    }
    case ast::CmpOp::Lt:
    case ast::CmpOp::LtE:
    case ast::CmpOp::Gt:
    case ast::CmpOp::GtE: break;
  }
  int c = pyCompare(a, b, op, loc);
  if (c == 2) return SValue::boolean(false);
  switch (op) {
    case ast::CmpOp::Lt: return SValue::boolean(c < 0);
    case ast::CmpOp::LtE: return SValue::boolean(c <= 0);
    case ast::CmpOp::Gt: return SValue::boolean(c > 0);
    case ast::CmpOp::GtE: return SValue::boolean(c >= 0);
    default: return SValue::boolean(false);
  }
}

}  // namespace kiln::sema
