// Atomic instruction selection: `atom` and `red` on global memory for every kind and dtype Tile IR's
// atomic_rmw and atomic_cas allow, with their memory-order (.sem) and scope qualifiers, and the CAS loop
// that stands in for a bf16 add below sm_90. Registers follow regClassOf (ptx/isel.h).
#pragma once
#include <cstdint>

#include "ir/ir.h"
#include "ptx/builder.h"

namespace kiln::ptx {

enum class AtomicKind : uint8_t { Add, And, Or, Xor, Xchg, Max, Min, Cas };
enum class MemSem : uint8_t { Relaxed, Acquire, Release, AcqRel };
enum class MemScope : uint8_t { Cta, Gpu, Sys };

struct AtomicOp {
  AtomicKind kind = AtomicKind::Add;
  ir::Scalar type = ir::Scalar::I32;  // the element type (max and min: signed or unsigned by it)
  MemSem sem = MemSem::AcqRel;
  MemScope scope = MemScope::Gpu;
  bool pair = false;  // Add of two consecutive f16/bf16 elements packed in one .b32 (lower index in bits 15:0)
};
// The AtomicOp of an atomic_rmw or atomic_cas (kind, sem and scope attributes) on its element type.
// InternalError for values the verifier rejects.
AtomicOp atomicOpOf(const ir::Op& op);

// One atomic read-modify-write of the element (or pair) at [address + offset] (.b64 address): `val`
// (and `cmp` for Cas) in registers of regClassOf(type), .b32 for a pair. `dst` receives the old value;
// an invalid dst says it is not needed: then `red` where PTX has one for the kind and the order
// (relaxed or release), else `atom` into the sink `_`. Under `guard` a thread that skips leaves dst as
// it was (callers write the masked-off value first). The qualifier order follows Triton's PTX, which
// Triton's tests search for (`atom.global.gpu.acq_rel.add`, `atom.global.acq_rel.gpu.cas`); ptxas takes
// any order.
void atomic(Entry& e, const AtomicOp& op, Reg dst, Reg address, int64_t offset, Reg val, Reg cmp = {},
            Guard guard = {});

}  // namespace kiln::ptx
