// Whole-tile ops: element-wise evaluation, broadcast and permute (strided gathers), reductions in
// index order, and dot products accumulated one multiply-add at a time (in f32 for f16 accumulators).
#include <cmath>

#include "interp/machine.h"
#include "support/diagnostic.h"

namespace kiln::interp {

using ir::Opcode;
using ir::Scalar;

namespace {

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

// dst[row-major index over `shape`] = src[sum idx[d] * strides[d]].
void gather(const Elem* src, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
            Elem* dst) {
  size_t rank = shape.size();
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n == 0) return;
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  std::vector<int64_t> idx(rank, 0);
  int64_t inner = shape[rank - 1], innerStride = strides[rank - 1], off = 0;
  for (int64_t i = 0; i < n; i += inner) {
    for (int64_t j = 0; j < inner; ++j) dst[i + j] = src[off + j * innerStride];
    for (size_t d = rank - 1; d-- > 0;) {
      off += strides[d];
      if (++idx[d] < shape[d]) break;
      off -= strides[d] * shape[d];
      idx[d] = 0;
    }
  }
}

// Whether `cand` replaces `best` in argmax (isMax) or argmin: strictly better in the order the
// max/min ops use, where NaN is ignored and -0.0 is below +0.0.
bool better(bool isMax, Scalar t, Elem cand, Elem best) {
  if (ir::isFloat(t)) {
    double c = cand.f, b = best.f;
    if (std::isnan(c)) return false;
    if (std::isnan(b)) return true;
    if (c == b) return std::signbit(c) != std::signbit(b) && std::signbit(c) != isMax;
    return isMax ? c > b : c < b;
  }
  if (ir::isSigned(t)) return isMax ? cand.i > best.i : cand.i < best.i;
  return isMax ? cand.u > best.u : cand.u < best.u;
}

}  // namespace

void Machine::elementwise(const Inst& in) {
  std::vector<Elem>& r = result(in);
  size_t n = r.size(), nin = in.in.size();
  const Elem* src[3] = {nullptr, nullptr, nullptr};
  size_t stride[3] = {0, 0, 0};
  if (nin > 3) throw InternalError(in.op->loc, "element-wise op with more than three operands");
  for (size_t k = 0; k < nin; ++k) {
    const std::vector<Elem>& v = val(in.in[k]);
    if (v.size() != n && v.size() != 1)
      throw InternalError(in.op->loc, std::string("operands of '") + in.op->name() + "' differ in shape");
    src[k] = v.data();
    stride[k] = v.size() == n ? 1 : 0;
  }
  Elem x[3];
  // Integer division by zero gives a defined value (see docs/semantics.md) rather than an error:
  // masked-off lanes routinely divide by the `other` value of a load, and the GPU does not trap.
  bool divByZero = false;
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < nin; ++k) x[k] = src[k][i * stride[k]];
    ir::evalElementwise(in.ew, x, r[i], divByZero);
  }
}

void Machine::broadcast(const Inst& in) {
  const ir::Type& st = type(in.in[0]);
  const ir::Type& rt = type(in.out[0]);
  std::vector<Elem>& r = result(in);
  const std::vector<Elem>& src = val(in.in[0]);
  if (!st.isTensor()) {
    r.assign(r.size(), src.at(0));
    return;
  }
  if (st.rank() != rt.rank()) throw InternalError(in.op->loc, "broadcast changes the rank");
  std::vector<int64_t> strides = rowMajorStrides(st.shape);
  for (int d = 0; d < st.rank(); ++d) {
    if (st.shape[d] == 1) strides[d] = 0;
    else if (st.shape[d] != rt.shape[d])
      throw InternalError(in.op->loc, "broadcast of a dimension that is not 1");
  }
  gather(src.data(), rt.shape, strides, r.data());
}

void Machine::permute(const Inst& in) {
  const ir::Type& st = type(in.in[0]);
  const ir::Type& rt = type(in.out[0]);
  std::vector<Elem>& r = result(in);
  std::vector<int64_t> operandStrides = rowMajorStrides(st.shape), strides(in.list.size());
  if (in.list.size() != st.shape.size() || rt.rank() != st.rank())
    throw InternalError(in.op->loc, "permute order does not match the rank");
  for (size_t i = 0; i < in.list.size(); ++i) {
    int64_t o = in.list[i];
    if (o < 0 || o >= st.rank() || rt.shape[i] != st.shape[size_t(o)])
      throw InternalError(in.op->loc, "permute order does not match the shapes");
    strides[i] = operandStrides[size_t(o)];
  }
  gather(val(in.in[0]).data(), rt.shape, strides, r.data());
}

// Reduces along one axis in index order: out = ((x0 op x1) op x2) ..., rounding after each step.
void Machine::reduce(const Inst& in) {
  const ir::Type& st = type(in.in[0]);
  const ir::Type& rt = type(in.out[0]);
  int64_t axis = in.b;
  if (axis < 0 || axis >= st.rank()) throw InternalError(in.op->loc, "reduce axis out of range");
  int64_t outer = 1, len = st.shape[size_t(axis)], inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= st.shape[size_t(d)];
  for (int64_t d = axis + 1; d < st.rank(); ++d) inner *= st.shape[size_t(d)];
  std::vector<Elem>& r = result(in);
  const std::vector<Elem>& src = val(in.in[0]);
  if (int64_t(r.size()) != outer * inner)
    throw InternalError(in.op->loc, "reduce result has the wrong shape");
  if (len == 0) {
    r.assign(r.size(), ir::intElem(0));
    return;
  }
  Scalar from = st.elem;
  if (in.a == kArgmax || in.a == kArgmin) {
    bool isMax = in.a == kArgmax;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const Elem* x = src.data() + o * len * inner + i;
        int64_t best = 0;
        for (int64_t k = 1; k < len; ++k)
          if (better(isMax, from, x[k * inner], x[best * inner])) best = k;
        r[size_t(o * inner + i)] = ir::normalize(rt.elem, ir::intElem(best));
      }
    return;
  }
  Scalar acc = rt.elem;
  ir::ElementwiseFn fn{in.a == kSum ? Opcode::Add : in.a == kMax ? Opcode::Max : Opcode::Min, acc, 0, false};
  bool convert = from != acc;
  auto elem = [&](int64_t o, int64_t k, int64_t i) {
    const Elem& e = src[size_t((o * len + k) * inner + i)];
    return convert ? ir::convert(from, acc, e) : e;
  };
  bool divByZero = false;
  for (int64_t o = 0; o < outer; ++o) {
    Elem* out = r.data() + o * inner;
    for (int64_t i = 0; i < inner; ++i) out[i] = elem(o, 0, i);
    for (int64_t k = 1; k < len; ++k)
      for (int64_t i = 0; i < inner; ++i) {
        Elem x[2] = {out[i], elem(o, k, i)};
        ir::evalElementwise(fn, x, out[i], divByZero);
      }
  }
}

// acc[b, m, n] + sum over k in index order of a[b, m, k] * b[b, k, n], one fused multiply-add at a
// time in the accumulator's type. Operands are converted to that type first (exact for f16, bf16
// and fp8 into f32, i8 into i32); f32 operands are truncated to tf32 first when precision is tf32
// (toward zero, as the tensor cores read an f32: bench/results/2026-12-05-h200-tf32-probe.md).
// A float accumulator narrower than f32 (f16) is Triton's interpreter instead: the exact products
// summed in f32 from zero, that sum rounded once to the accumulator's type, then acc added (one
// more rounding).
void Machine::dot(const Inst& in) {
  const ir::Type& at = type(in.in[0]);
  const ir::Type& bt = type(in.in[1]);
  const ir::Type& ct = type(in.in[2]);
  std::vector<Elem>& r = result(in);
  int rank = ct.rank();
  if ((rank != 2 && rank != 3) || at.rank() != rank || bt.rank() != rank)
    throw InternalError(in.op->loc, "dot operands must be rank 2 or 3");
  size_t bd = rank == 3 ? 1 : 0;
  int64_t B = rank == 3 ? ct.shape[0] : 1, M = at.shape[bd], K = at.shape[bd + 1], N = bt.shape[bd + 1];
  if (bt.shape[bd] != K || ct.shape[bd] != M || ct.shape[bd + 1] != N ||
      (rank == 3 && (at.shape[0] != B || bt.shape[0] != B)))
    throw InternalError(in.op->loc, "dot operand shapes do not agree");
  const bool narrow = ir::isFloat(ct.elem) && ir::bitWidth(ct.elem) < 32;
  Scalar acc = narrow ? Scalar::F32 : ct.elem;  // the type the products are summed in
  // Operand element -> summation type, with the tf32 truncation of f32 inputs.
  auto prep = [&](Scalar t, const Elem& e) {
    Elem v = e;
    if (t == Scalar::F32 && in.a) v.f = ir::truncateToTF32(v.f);
    return t == acc ? v : ir::convert(t, acc, v);
  };
  const std::vector<Elem>& A = val(in.in[0]);
  const std::vector<Elem>& Bv = val(in.in[1]);
  const std::vector<Elem>& C = val(in.in[2]);
  // A as [b][m][k]; B transposed to [b][n][k] so the inner loop walks both contiguously.
  ea_.resize(A.size());
  eb_.resize(Bv.size());
  for (size_t i = 0; i < A.size(); ++i) ea_[i] = prep(at.elem, A[i]);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        eb_[size_t((b * N + n) * K + k)] = prep(bt.elem, Bv[size_t((b * K + k) * N + n)]);
  if (acc == Scalar::F32) {
    fa_.resize(ea_.size());
    fb_.resize(eb_.size());
    for (size_t i = 0; i < ea_.size(); ++i) fa_[i] = float(ea_[i].f);
    for (size_t i = 0; i < eb_.size(); ++i) fb_[i] = float(eb_[i].f);
  }
  for (int64_t b = 0; b < B; ++b)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        size_t ci = size_t((b * M + m) * N + n), ai = size_t((b * M + m) * K), bi = size_t((b * N + n) * K);
        Elem c = C[ci];
        if (acc == Scalar::F32) {
          float s = narrow ? 0.0f : float(c.f);
          for (int64_t k = 0; k < K; ++k) s = std::fma(fa_[ai + size_t(k)], fb_[bi + size_t(k)], s);
          // acc + sum in double then rounded: one correct rounding (double has over twice their precision).
          c.f = narrow ? ir::roundTo(ct.elem, ir::roundTo(ct.elem, double(s)) + c.f) : double(s);
        } else if (ir::isFloat(acc)) {
          for (int64_t k = 0; k < K; ++k)
            c.f = ir::fmaTo(acc, ea_[ai + size_t(k)].f, eb_[bi + size_t(k)].f, c.f);
        } else {
          // Integer products and sums wrap; wrapping once at the end gives the same bits.
          for (int64_t k = 0; k < K; ++k) c.u += ea_[ai + size_t(k)].u * eb_[bi + size_t(k)].u;
          c = ir::normalize(acc, c);
        }
        r[ci] = c;
      }
}

}  // namespace kiln::interp
