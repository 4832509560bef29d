// Fragment lookup and packing for the tensor-core lowerings (lower/mma_fragments.h).
#include "lower/mma_fragments.h"

#include <string>

#include "layout/register_parts.h"
#include "ptx/isel.h"
#include "ptx/memory.h"
#include "ptx/warp.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using layout::inDimSize;
using layout::registerCoords;
using ptx::Reg;
using ptx::RegClass;

RegisterIndex::RegisterIndex(const layout::LinearLayout& l) {
  for (int32_t r = 0; r < inDimSize(l, layout::kRegister); ++r) index_.emplace(registerCoords(l, r), r);
}

int32_t RegisterIndex::at(const ir::Op& op, const std::vector<int32_t>& coords) const {
  auto it = index_.find(coords);
  if (it == index_.end()) throw InternalError(op.loc, "dot: no register holds a fragment element");
  return it->second;
}

Reg packFragment(ptx::Entry& e, ir::Scalar t, const std::vector<Reg>& el) {
  switch (el.size()) {
    case 1: {  // tf32: the f32 value's bit pattern, which the tensor cores read truncated
      Reg d = e.reg(RegClass::B32);
      e.inst("mov.b32", {d, el[0]});
      return d;
    }
    case 2: return ptx::pack16x2(e, el[0], el[1]);
    case 4: {
      Reg b[4];
      for (int i = 0; i < 4; ++i) {
        b[i] = el[size_t(i)];
        if (b[i].cls == RegClass::B16) {  // fp8 in the low byte of a .b16
          Reg w = e.reg(RegClass::B32);
          e.inst("cvt.u32.u16", {w, b[i]});
          b[i] = w;
        }
      }
      Reg lo = e.reg(RegClass::B32), hi = e.reg(RegClass::B32), w = e.reg(RegClass::B32);
      e.inst("prmt.b32", {lo, b[0], b[1], ptx::hexImm(0x0040)});
      e.inst("prmt.b32", {hi, b[2], b[3], ptx::hexImm(0x0040)});
      e.inst("prmt.b32", {w, lo, hi, ptx::hexImm(0x5410)});
      return w;
    }
    default: throw InternalError({}, "dot: fragment register of " + std::to_string(el.size()) + " " +
                                         std::string(ir::name(t)) + " elements");
  }
}

}  // namespace kiln::lower
