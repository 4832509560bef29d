// gather and histogram on the interpreter: every element of the result may come from any element of
// the operand. A gather's index is taken modulo src's size along the axis (a power of two), so no index
// reads outside the tile; a histogram counts values in [0, num_bins) and ignores the rest.
#include "interp/machine.h"
#include "support/diagnostic.h"

namespace kiln::interp {

void Machine::gatherAlong(const Inst& in) {
  const ir::Type &st = type(in.in[0]), &it = type(in.in[1]);
  const std::vector<Elem>& src = val(in.in[0]);
  const std::vector<Elem>& index = val(in.in[1]);
  std::vector<Elem>& r = result(in);
  const size_t rank = st.shape.size(), axis = size_t(in.a);
  if (it.shape.size() != rank || axis >= rank) throw InternalError(in.op->loc, "gather: malformed shapes");
  const uint64_t wrap = uint64_t(st.shape[axis]) - 1;
  std::vector<int64_t> srcStride(rank, 1);
  for (size_t d = rank; d-- > 1;) srcStride[d - 1] = srcStride[d] * st.shape[d];
  std::vector<int64_t> coord(rank, 0);  // of result element i, in index's shape
  for (size_t i = 0; i < r.size(); ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d)
      off += (d == axis ? int64_t(index[i].u & wrap) : coord[d]) * srcStride[d];
    r[i] = src[size_t(off)];
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < it.shape[d]) break;
      coord[d] = 0;
    }
  }
}

void Machine::histogram(const Inst& in) {
  const ir::Type& xt = type(in.in[0]);
  std::vector<Elem>& r = result(in);
  const int64_t bins = int64_t(r.size());
  for (Elem& e : r) e = ir::intElem(0);
  for (const Elem& x : val(in.in[0])) {
    bool inRange = ir::isSigned(xt.elem) ? x.i >= 0 && x.i < bins : x.u < uint64_t(bins);
    if (inRange) ++r[size_t(x.u)].i;
  }
}

}  // namespace kiln::interp
