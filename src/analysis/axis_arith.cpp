// Axis-info rules for integer and pointer arithmetic, comparisons, selects and conversions. Each
// rule states only what holds for every input satisfying the operands' facts (docs/axis-info.md
// derives them); where unsure it says 1. Index arithmetic is assumed not to overflow, as in Triton.
#include <algorithm>
#include <bit>
#include <numeric>

#include "analysis/axis_lattice.h"
#include "analysis/axis_rules.h"
#include "ir/scalar_eval.h"
#include "support/diagnostic.h"

namespace kiln::analysis::rules {

using namespace lattice;

namespace {

bool isConst(const AxisInfo& x, int64_t c) { return x.constant && *x.constant == c; }
bool isPow2(int64_t c) { return c > 0 && (c & (c - 1)) == 0; }
size_t I(int d) { return size_t(d); }

// The window rule shared by div, rem, shr and `and` with a low mask: inside a contiguous run of x,
// windows of w elements whose first value is a multiple of w never cross a multiple of c (c a
// power of two, w <= c). Returns the largest such w along d.
int64_t alignedWindow(const AxisInfo& x, int d, int64_t c) {
  return std::min({x.contiguity[I(d)], c, x.divisibility[I(d)]});
}

// x mod c for a power of two c, on non-negative x (or any x for floor-mod): runs of aligned
// windows stay contiguous; the constancy of x is kept.
AxisInfo floorModPow2(const AxisInfo& x, int64_t c, const ir::Type& t) {
  AxisInfo r = conservative(t);
  for (int d = 0; d < r.dims(); ++d) {
    int64_t w = alignedWindow(x, d, c);
    r.contiguity[I(d)] = w;
    r.divisibility[I(d)] = std::min(divAt(x, d, w, 1), c);
    r.constancy[I(d)] = x.constancy[I(d)];
  }
  r.nonNegative = true;
  return r;
}

// floor(x / c) for a power of two c: constant over aligned windows; exact on multiples of c.
AxisInfo floorDivPow2(const AxisInfo& x, int64_t c, const ir::Type& t) {
  AxisInfo r = conservative(t);
  for (int d = 0; d < r.dims(); ++d) {
    r.constancy[I(d)] = std::max(x.constancy[I(d)], alignedWindow(x, d, c));
    int64_t e = divAt(x, d, 1, 1);
    r.divisibility[I(d)] = e >= c ? e / c : 1;
  }
  r.nonNegative = x.nonNegative;
  return r;
}

}  // namespace

std::optional<int64_t> foldInt(const ir::Op& op, const std::vector<const AxisInfo*>& in) {
  if (in.empty() || in.size() > 3) return std::nullopt;
  for (const AxisInfo* x : in)
    if (!x->constant) return std::nullopt;
  ir::Scalar t = op.operand(op.opcode == ir::Opcode::Select ? 1 : 0)->type.elem;
  if (!ir::isInt(t)) return std::nullopt;
  ir::ElementwiseFn fn;
  if (!ir::decodeElementwise(op, t, fn)) return std::nullopt;
  ir::Elem args[3], out;
  for (size_t i = 0; i < in.size(); ++i) args[i] = ir::intElem(*in[i]->constant);
  bool divByZero = false;
  ir::evalElementwise(fn, args, out, divByZero);
  if (divByZero) return std::nullopt;  // defined by kiln, undefined in Triton: leave it to run time
  return out.i;
}

AxisInfo elementwise(const std::vector<const AxisInfo*>& in, const ir::Type& t) {
  AxisInfo r = conservative(t);
  for (int d = 0; d < r.dims(); ++d) {
    int64_t k = runCap(dimSize(t, d));
    for (const AxisInfo* x : in) k = std::min(k, x->constancy[I(d)]);
    r.constancy[I(d)] = k;
  }
  return r;
}

AxisInfo addSub(bool isSub, const AxisInfo& l, const AxisInfo& r, const ir::Type& t) {
  AxisInfo x = conservative(t);
  for (int d = 0; d < x.dims(); ++d) {
    size_t i = I(d);
    // A run of one side plus (minus) a constant stretch of the other stays a run; a constant minus
    // a run decreases, so sub keeps only the first form.
    int64_t c = std::min(l.contiguity[i], r.constancy[i]);
    if (!isSub) c = std::max(c, std::min(r.contiguity[i], l.constancy[i]));
    x.contiguity[i] = c;
    x.constancy[i] = std::min(l.constancy[i], r.constancy[i]);
    x.divisibility[i] = std::min(divAt(l, d, c, 1), divAt(r, d, c, 1));
  }
  x.nonNegative = !isSub && l.nonNegative && r.nonNegative;
  return x;
}

AxisInfo ptrAdd(const AxisInfo& p, const AxisInfo& off, const ir::Type& t) {
  AxisInfo x = conservative(t);
  int64_t unit = unitOf(t);
  for (int d = 0; d < x.dims(); ++d) {
    size_t i = I(d);
    int64_t c = std::max(std::min(p.contiguity[i], off.constancy[i]), std::min(off.contiguity[i], p.constancy[i]));
    x.contiguity[i] = c;
    x.constancy[i] = std::min(p.constancy[i], off.constancy[i]);
    x.divisibility[i] = std::min(divAt(p, d, c, unit), capMul(divAt(off, d, c, 1), unit));
  }
  return x;
}

AxisInfo mul(const AxisInfo& l, const AxisInfo& r, const ir::Type& t) {
  if (isConst(l, 1)) return r;
  if (isConst(r, 1)) return l;
  if (isConst(l, 0) || isConst(r, 0)) return constantOf(t, 0);
  AxisInfo x = conservative(t);
  for (int d = 0; d < x.dims(); ++d) {
    x.constancy[I(d)] = std::min(l.constancy[I(d)], r.constancy[I(d)]);
    x.divisibility[I(d)] = capMul(divAt(l, d, 1, 1), divAt(r, d, 1, 1));
  }
  x.nonNegative = l.nonNegative && r.nonNegative;
  return x;
}

AxisInfo div(const AxisInfo& l, const AxisInfo& r, const ir::Type& t) {
  if (isConst(r, 1)) return l;
  if (r.constant && *r.constant > 0 && *r.constant <= kMaxDivisibility) {
    int64_t c = *r.constant;
    // Truncation equals floor division only for non-negative dividends; exact division (the
    // divisibility part) holds for any sign.
    if (isPow2(c) && l.nonNegative) return floorDivPow2(l, c, t);
    AxisInfo x = conservative(t);
    for (int d = 0; d < x.dims(); ++d) {
      x.constancy[I(d)] = l.constancy[I(d)];
      int64_t e = divAt(l, d, 1, 1);
      x.divisibility[I(d)] = isPow2(c) && e >= c ? e / c : 1;
    }
    x.nonNegative = l.nonNegative;
    return x;
  }
  // Division by zero gives all ones: no sign is known for signed types.
  return elementwise({&l, &r}, t);
}

AxisInfo rem(const AxisInfo& l, const AxisInfo& r, const ir::Type& t) {
  if (isConst(r, 1) || (ir::isSigned(t.elem) && isConst(r, -1))) return constantOf(t, 0);
  if (r.constant && *r.constant > 0 && *r.constant <= kMaxDivisibility) {
    int64_t c = *r.constant;
    if (isPow2(c) && l.nonNegative) return floorModPow2(l, c, t);
    AxisInfo x = conservative(t);
    for (int d = 0; d < x.dims(); ++d) {
      x.constancy[I(d)] = l.constancy[I(d)];
      x.divisibility[I(d)] = std::min(divAt(l, d, 1, 1), pow2Divisor(c));  // x - c*q
    }
    x.nonNegative = l.nonNegative;
    return x;
  }
  // x % y = x - y*q (and x when y = 0): divisible by what divides both; it has the dividend's sign.
  AxisInfo x = elementwise({&l, &r}, t);
  for (int d = 0; d < x.dims(); ++d) {
    x.divisibility[I(d)] = std::min(divAt(l, d, 1, 1), divAt(r, d, 1, 1));
    // Runs of g consecutive non-negative x starting at multiples of g, with y constant over the run and
    // a multiple of g (or 0), never wrap: (v + j) % y = v % y + j for j < g. So (pid*B + arange(B)) % N
    // stays contiguous in runs of gcd(B, N's divisibility), and vectorises. A contiguous dividend is
    // taken to be an index, non-negative even where the analysis cannot prove it (Triton's assumption;
    // docs/axis-info.md): the grouped program ids of a matmul are, but no sign rule sees it.
    const int64_t g = std::gcd(std::gcd(l.contiguity[I(d)], l.divisibility[I(d)]),
                               std::gcd(r.constancy[I(d)], divAt(r, d, 1, 1)));
    if (g > 1) {
      x.contiguity[I(d)] = g;
      x.divisibility[I(d)] = std::min(divAt(l, d, g, 1), divAt(r, d, 1, 1));
    }
  }
  x.nonNegative = l.nonNegative;
  return x;
}

AxisInfo shift(bool left, const AxisInfo& l, const AxisInfo& r, const ir::Type& t) {
  const int width = ir::bitWidth(t.elem);
  if (r.constant) {
    int64_t s = *r.constant;
    if (s == 0) return l;
    if (s < 0 || s >= width) {  // the amount reads as unsigned: all bits shift out
      if (left || l.nonNegative) return constantOf(t, 0);
      return elementwise({&l}, t);  // 0 or -1 per element
    }
    if (!left && s < 62) return floorDivPow2(l, int64_t(1) << s, t);  // shr floors for either sign
    AxisInfo x = elementwise({&l}, t);
    if (left)
      for (int d = 0; d < x.dims(); ++d) x.divisibility[I(d)] = capMul(divAt(l, d, 1, 1), int64_t(1) << std::min<int64_t>(s, 62));
    return x;
  }
  AxisInfo x = elementwise({&l, &r}, t);
  if (left)
    for (int d = 0; d < x.dims(); ++d) x.divisibility[I(d)] = divAt(l, d, 1, 1);
  else
    x.nonNegative = l.nonNegative;
  return x;
}

AxisInfo bitwise(ir::Opcode op, const AxisInfo& l, const AxisInfo& r, const ir::Type& t) {
  const int width = ir::bitWidth(t.elem);
  const uint64_t widthMask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  for (int side = 0; side < 2; ++side) {
    const AxisInfo& k = side ? l : r;  // the constant side, if any
    const AxisInfo& x = side ? r : l;
    if (!k.constant) continue;
    uint64_t m = uint64_t(*k.constant) & widthMask;
    if (op == ir::Opcode::And) {
      if (m == 0) return constantOf(t, 0);
      if (m == widthMask) return x;
      // x & (2^s - 1) is x mod 2^s in two's complement, for either sign.
      if ((m & (m + 1)) == 0 && m < uint64_t(kMaxDivisibility)) return floorModPow2(x, int64_t(m + 1), t);
    } else if (m == 0) {
      return x;  // x | 0, x ^ 0
    }
  }
  AxisInfo x = elementwise({&l, &r}, t);
  for (int d = 0; d < x.dims(); ++d) {
    int64_t a = divAt(l, d, 1, 1), b = divAt(r, d, 1, 1);
    // and keeps every zero low bit of either side; or/xor only those of both.
    x.divisibility[I(d)] = op == ir::Opcode::And ? std::max(a, b) : std::min(a, b);
  }
  x.nonNegative = op == ir::Opcode::And ? (l.nonNegative || r.nonNegative) : (l.nonNegative && r.nonNegative);
  return x;
}

AxisInfo minMax(bool isMin, const AxisInfo& l, const AxisInfo& r, const ir::Type& t) {
  AxisInfo x = elementwise({&l, &r}, t);
  for (int d = 0; d < x.dims(); ++d) x.divisibility[I(d)] = std::min(divAt(l, d, 1, 1), divAt(r, d, 1, 1));
  x.nonNegative = isMin ? (l.nonNegative && r.nonNegative) : (l.nonNegative || r.nonNegative);
  return x;
}

AxisInfo unary(ir::Opcode op, const AxisInfo& l, const ir::Type& t) {
  if (op == ir::Opcode::Abs && l.nonNegative) return l;
  AxisInfo x = elementwise({&l}, t);
  if (op != ir::Opcode::Not)  // -x and |x| keep the divisibility; ~x = -x - 1 does not
    for (int d = 0; d < x.dims(); ++d) x.divisibility[I(d)] = divAt(l, d, 1, 1);
  return x;
}

AxisInfo cmp(const ir::Op& op, const AxisInfo& l, const AxisInfo& r) {
  const ir::Type& operandType = op.operand(0)->type;
  const ir::Type& t = op.result(0)->type;
  AxisInfo x = elementwise({&l, &r}, t);
  if (operandType.isFloat()) return x;
  const std::string& pred = op.strAttr("pred");
  // `run < bound` can only flip where the run crosses the bound; when the run's aligned windows
  // start at multiples of w and the bound is a multiple of w that stays constant over the window,
  // each window is all true or all false. lt/ge test a run on the left, gt/le one on the right.
  const AxisInfo* run = nullptr;
  const AxisInfo* bound = nullptr;
  if (pred == "lt" || pred == "ge") run = &l, bound = &r;
  if (pred == "gt" || pred == "le") run = &r, bound = &l;
  if (!run) return x;
  int64_t unit = unitOf(operandType);
  for (int d = 0; d < x.dims(); ++d) {
    size_t i = I(d);
    int64_t w = std::min({run->contiguity[i], bound->constancy[i], std::max<int64_t>(1, run->divisibility[i] / unit),
                          std::max<int64_t>(1, divAt(*bound, d, 1, unit) / unit)});
    x.constancy[i] = std::max(x.constancy[i], w);
  }
  return x;
}

AxisInfo select(const AxisInfo& cond, const AxisInfo& a, const AxisInfo& b, const ir::Type& t) {
  if (cond.constant) return *cond.constant ? a : b;
  AxisInfo x = conservative(t);
  int64_t unit = unitOf(t);
  for (int d = 0; d < x.dims(); ++d) {
    size_t i = I(d);
    // Where the condition is constant, the result is a window of one side.
    int64_t c = std::min({cond.constancy[i], a.contiguity[i], b.contiguity[i]});
    x.contiguity[i] = c;
    x.constancy[i] = std::min({cond.constancy[i], a.constancy[i], b.constancy[i]});
    x.divisibility[i] = std::min(divAt(a, d, c, unit), divAt(b, d, c, unit));
  }
  if (a.constant && b.constant && *a.constant == *b.constant) x.constant = a.constant;
  x.nonNegative = a.nonNegative && b.nonNegative;
  return x;
}

AxisInfo convert(bool isBitcast, const AxisInfo& x, const ir::Type& from, const ir::Type& to) {
  bool intToInt = from.isInt() && to.isInt();
  if (intToInt && x.constant) {
    ir::Elem v = isBitcast ? ir::bitcast(from.elem, to.elem, ir::intElem(*x.constant))
                           : ir::convert(from.elem, to.elem, ir::intElem(*x.constant));
    return constantOf(to, v.i);
  }
  AxisInfo r = elementwise({&x}, to);
  if (intToInt) {
    if (from.isBool() || to.isBool()) return r;  // 0/1 values: no runs, no useful divisibility
    // Integers keep their facts (a wrap inside a run is an overflow, assumed away); divisibility
    // survives truncation since 2^width is a multiple of it.
    r.contiguity = x.contiguity;
    r.divisibility = x.divisibility;
    bool widens = ir::bitWidth(to.elem) > ir::bitWidth(from.elem);
    r.nonNegative = widens && (x.nonNegative || !ir::isSigned(from.elem));
    return r;
  }
  // Pointers and 64-bit integers hold byte addresses: divisibility carries over; a run of pointers
  // steps by the element size, so it stays a run only when both step by the same number of bytes.
  bool addressLike = (from.isPtr() || from.isInt()) && (to.isPtr() || to.isInt()) && isBitcast;
  if (addressLike) {
    r.divisibility = x.divisibility;
    if (unitOf(from) == unitOf(to)) r.contiguity = x.contiguity;
  }
  return r;
}

}  // namespace kiln::analysis::rules
