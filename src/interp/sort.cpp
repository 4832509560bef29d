// sort (tl.sort, tl.topk): Triton's bitonic network, run on each line of the tile along the axis. The
// network's compare-exchanges are what the GPU lowering runs too (in registers, across lanes, across
// warps), so NaN, -0.0 and equal elements land where Triton's own network puts them.
#include <bit>

#include "interp/machine.h"
#include "support/diagnostic.h"

namespace kiln::interp {

namespace {

using ir::Opcode;
using ir::Scalar;

bool bitOf(int64_t v, int b) { return (v >> b & 1) != 0; }

// One line of the tile, its length a power of two, with the element type's `>` and the top-k pick.
class Line {
 public:
  Line(Scalar t, bool descending)
      : descending_(descending), gt_{Opcode::Cmp, t, 4, false},
        pick_{descending ? Opcode::Max : Opcode::Min, t, 0, false} {}

  std::vector<Elem> h;

  // Stages 1..log k of the sort; then each halving keeps the larger (descending) or smaller of the
  // elements 2^log k apart in blocks of 2k -- two sorted runs in opposite orders give a bitonic run
  // holding the k best -- and merges again. Stages before the last alternate their order by index bit
  // `stage`; the last one runs in the requested order.
  void sortTop(int logK) {
    const int logN = std::countr_zero(uint64_t(h.size()));
    for (int s = 1; s <= logK; ++s) merge(s, s < logN ? s : -1);
    for (int i = logK + 1; i <= logN; ++i) {
      halve(logK);
      merge(logK, i < logN ? logK : -1);
    }
  }

 private:
  // `stage` compare-exchange rounds on index bits stage-1 .. 0; the order of each element's pair is
  // descending where index bit `flipBit` is set (flipBit < 0: the requested order everywhere).
  void merge(int stage, int flipBit) {
    for (int j = stage - 1; j >= 0; --j) {
      next_.resize(h.size());
      for (int64_t idx = 0; idx < int64_t(h.size()); ++idx) {
        const bool flip = flipBit < 0 ? descending_ : bitOf(idx, flipBit);
        const Elem x = h[size_t(idx)], y = h[size_t(idx ^ (int64_t(1) << j))];
        // Triton's rule, per element: take the partner when (x > y) differs from "this place wants the
        // larger one"; x > y is false for NaN and equal elements, which then keep or copy x as it says.
        next_[size_t(idx)] = greater(x, y) != (flip != bitOf(idx, j)) ? y : x;
      }
      h.swap(next_);
    }
  }

  void halve(int logK) {
    const int64_t k = int64_t(1) << logK;
    next_.resize(h.size() / 2);
    for (int64_t j = 0; j < int64_t(next_.size()); ++j) {
      const int64_t first = ((j >> logK) << (logK + 1)) | (j & (k - 1));
      const Elem pair[2] = {h[size_t(first)], h[size_t(first + k)]};
      bool divByZero = false;
      ir::evalElementwise(pick_, pair, next_[size_t(j)], divByZero);
    }
    h.swap(next_);
  }

  bool greater(Elem x, Elem y) {
    const Elem pair[2] = {x, y};
    Elem out;
    bool divByZero = false;
    ir::evalElementwise(gt_, pair, out, divByZero);
    return out.u != 0;
  }

  bool descending_;
  ir::ElementwiseFn gt_, pick_;
  std::vector<Elem> next_;
};

}  // namespace

void Machine::sort(const Inst& in) {
  const ir::Type& st = type(in.in[0]);
  const ir::Type& rt = type(in.out[0]);
  const int64_t axis = in.b;
  if (axis < 0 || axis >= st.rank() || rt.rank() != st.rank())
    throw InternalError(in.op->loc, "sort axis out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= st.shape[size_t(d)];
  for (int64_t d = axis + 1; d < st.rank(); ++d) inner *= st.shape[size_t(d)];
  const int64_t n = st.shape[size_t(axis)], k = rt.shape[size_t(axis)];
  if (!std::has_single_bit(uint64_t(n)) || !std::has_single_bit(uint64_t(k)) || k > n)
    throw InternalError(in.op->loc, "sort lengths are not powers of two with k <= n");
  const std::vector<Elem>& src = val(in.in[0]);
  std::vector<Elem>& r = result(in);
  Line line(st.elem, in.a != 0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      line.h.resize(size_t(n));
      for (int64_t c = 0; c < n; ++c) line.h[size_t(c)] = src[size_t((o * n + c) * inner + i)];
      line.sortTop(std::countr_zero(uint64_t(k)));
      for (int64_t c = 0; c < k; ++c) r[size_t((o * k + c) * inner + i)] = line.h[size_t(c)];
    }
}

}  // namespace kiln::interp
