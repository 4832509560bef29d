// reduce_combine and scan: N tiles combined along an axis by their combine region, run once per pair of
// element tuples in index order. A reduction is acc = x[0]; acc = f(acc, x[k]) for k = 1, 2, ...; a scan
// keeps every acc, from the end of the axis when reversed (out[k] = f(out[k+1], x[k])), which is
// Triton's interpreter's order: the accumulated values are always the combine function's first half.
#include "interp/machine.h"
#include "interp/overflow_oracle.h"
#include "support/diagnostic.h"

namespace kiln::interp {

namespace {

// The tile viewed as [outer, len, inner] around `axis`.
struct AxisView {
  int64_t outer = 1, len = 1, inner = 1;
};

AxisView viewOf(const ir::Type& t, int64_t axis) {
  AxisView v;
  for (int64_t d = 0; d < t.rank(); ++d) {
    int64_t n = t.shape[size_t(d)];
    if (d < axis) v.outer *= n;
    else if (d == axis) v.len = n;
    else v.inner *= n;
  }
  return v;
}

}  // namespace

void Machine::combine(const Inst& in, std::vector<Elem>& acc, const std::vector<Elem>& x) {
  const Region& body = in.regions[0];
  const size_t n = acc.size();
  for (size_t k = 0; k < n; ++k) {
    slots_[body.args[k]].assign(1, acc[k]);
    slots_[body.args[n + k]].assign(1, x[k]);
    if (overflow_) {  // the overflow oracle's shadows of the arguments: their values, no origin
      overflow_->assigned(body.args[k]);
      overflow_->assigned(body.args[n + k]);
    }
  }
  const Inst* t = execRegionCalled(body);
  if (!t || t->op->opcode != ir::Opcode::Yield || t->in.size() != n)
    throw InternalError(in.op->loc, std::string("the combine region of '") + in.op->name() + "' lacks its yield");
  for (size_t k = 0; k < n; ++k) acc[k] = val(t->in[k]).at(0);
}

void Machine::reduceCombine(const Inst& in) {
  const size_t n = in.in.size();
  const AxisView v = viewOf(type(in.in[0]), in.b);
  std::vector<std::vector<Elem>*> out;
  for (size_t k = 0; k < n; ++k) out.push_back(&result(in, unsigned(k)));
  std::vector<Elem> acc(n), x(n);
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      auto at = [&](int64_t j) { return size_t((o * v.len + j) * v.inner + i); };
      for (size_t k = 0; k < n; ++k) acc[k] = val(in.in[k])[at(0)];
      for (int64_t j = 1; j < v.len; ++j) {
        for (size_t k = 0; k < n; ++k) x[k] = val(in.in[k])[at(j)];
        combine(in, acc, x);
      }
      for (size_t k = 0; k < n; ++k) (*out[k])[size_t(o * v.inner + i)] = acc[k];
    }
}

void Machine::scan(const Inst& in) {
  const size_t n = in.in.size();
  const AxisView v = viewOf(type(in.in[0]), in.b);
  const bool reverse = in.a != 0;
  std::vector<std::vector<Elem>*> out;
  for (size_t k = 0; k < n; ++k) out.push_back(&result(in, unsigned(k)));
  std::vector<Elem> acc(n), x(n);
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.inner; ++i) {
      for (int64_t step = 0; step < v.len; ++step) {
        const int64_t j = reverse ? v.len - 1 - step : step;
        const size_t at = size_t((o * v.len + j) * v.inner + i);
        for (size_t k = 0; k < n; ++k) x[k] = val(in.in[k])[at];
        if (step == 0) acc = x;
        else combine(in, acc, x);
        for (size_t k = 0; k < n; ++k) (*out[k])[at] = acc[k];
      }
    }
}

}  // namespace kiln::interp
