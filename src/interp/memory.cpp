// Pointer arithmetic, loads, stores and atomics: element by element (an atomic tile is a sequence of
// read-modify-writes in index order, so a repeated address sees the earlier elements' updates),
// masked-off lanes never touch memory, and every other access must lie wholly inside one buffer
// argument and be aligned to its size.
#include <bit>
#include <cstdio>
#include <cstring>

#include "interp/machine.h"
#include "support/diagnostic.h"

namespace kiln::interp {

using ir::Scalar;

static_assert(std::endian::native == std::endian::little, "loads and stores assume a little-endian host");

namespace {

// Bytes one element of `t` occupies in memory (i1 is stored as a byte, as Triton does).
uint64_t memBytes(Scalar t) { return t == Scalar::I1 ? 1 : uint64_t(ir::bitWidth(t) / 8); }

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Operand k of `in` as a base pointer and a stride: 1 for a tile of n elements, 0 for a scalar.
struct Operand {
  const Elem* p;
  size_t stride;
  const Elem& operator[](size_t i) const { return p[i * stride]; }
};

// The little-endian bits of an element of `size` bytes at a host address (checked by checkAccess).
uint64_t readBits(uint64_t addr, uint64_t size) {
  uint64_t bits = 0;
  std::memcpy(&bits, reinterpret_cast<const void*>(uintptr_t(addr)), size);
  return bits;
}
void writeBits(uint64_t addr, uint64_t size, uint64_t bits) {
  std::memcpy(reinterpret_cast<void*>(uintptr_t(addr)), &bits, size);
}

Operand operandOf(const Machine& m, const Inst& in, unsigned k, size_t n) {
  const std::vector<Elem>& v = m.val(in.in.at(k));
  if (v.size() != n && v.size() != 1)
    throw InternalError(in.op->loc, std::string("operand ") + std::to_string(k) + " of '" + in.op->name() +
                                        "' does not match the result shape");
  return Operand{v.data(), v.size() == n ? size_t(1) : size_t(0)};
}

}  // namespace

void Machine::checkAccess(const Inst& in, const char* what, Scalar t, uint64_t addr, uint64_t size,
                          int64_t flat) {
  auto inside = [&](const Buffer& b) {
    return addr >= b.begin && b.end - b.begin >= size && addr - b.begin <= b.end - b.begin - size;
  };
  bool ok = lastBuffer_ < buffers_.size() && inside(buffers_[lastBuffer_]);
  for (size_t b = 0; !ok && b < buffers_.size(); ++b)
    if (inside(buffers_[b])) {
      ok = true;
      lastBuffer_ = b;
    }
  if (ok && addr % size == 0) return;
  const ir::Type& ptrType = type(in.in[0]);
  std::string where = std::string(what) + " of " + std::string(ir::name(t)) + " at program " + programStr() +
                      elementStr(ptrType, flat) + ": address " + hex(addr);
  if (!ok) {
    std::string msg = "out-of-bounds " + where + " is outside every buffer argument";
    // Name the closest buffer: usually the one the kernel meant to index.
    const Buffer* near = nullptr;
    uint64_t best = UINT64_MAX;
    for (const Buffer& b : buffers_) {
      uint64_t d = addr < b.begin ? b.begin - addr : addr - b.end;
      if (addr >= b.begin && addr < b.end) d = 0;
      if (d < best) best = d, near = &b;
    }
    if (near) {
      msg += " (nearest: '" + near->param + "', " + std::to_string(near->end - near->begin) + " bytes at " +
             hex(near->begin) + ", ";
      if (addr < near->begin)
        msg += std::to_string(near->begin - addr) + " bytes before its start)";
      else
        msg += std::to_string(addr + size - near->end) + " bytes past its end)";
    }
    fail(in, msg);
  }
  if (addr % size != 0) fail(in, "misaligned " + where + " is not a multiple of " + std::to_string(size));
}

void Machine::ptrAdd(const Inst& in) {
  std::vector<Elem>& r = result(in);
  const ir::Type& rt = type(in.out[0]);
  uint64_t size = memBytes(rt.pointee);
  Operand p = operandOf(*this, in, 0, r.size()), off = operandOf(*this, in, 1, r.size());
  // Offsets are held sign- or zero-extended by their type; the sum wraps like 64-bit addresses.
  for (size_t i = 0; i < r.size(); ++i) r[i].u = p[i].u + off[i].u * size;
}

void Machine::load(const Inst& in) {
  std::vector<Elem>& r = result(in);
  Scalar t = type(in.out[0]).elem;
  uint64_t size = memBytes(t);
  size_t n = r.size();
  Operand ptr = operandOf(*this, in, 0, n);
  bool masked = in.in.size() > 1, hasOther = in.in.size() > 2;
  Operand mask = masked ? operandOf(*this, in, 1, n) : Operand{nullptr, 0};
  Operand other = hasOther ? operandOf(*this, in, 2, n) : Operand{nullptr, 0};
  for (size_t i = 0; i < n; ++i) {
    if (masked && !(mask[i].u & 1)) {
      r[i] = hasOther ? other[i] : ir::intElem(0);  // undefined in Triton; defined as 0 here
      continue;
    }
    uint64_t addr = ptr[i].u;
    checkAccess(in, "load", t, addr, size, int64_t(i));
    uint64_t bits = readBits(addr, size);
    r[i] = t == Scalar::I1 ? ir::intElem(bits != 0) : ir::fromBits(t, bits);
  }
}

void Machine::store(const Inst& in) {
  const ir::Type& pt = type(in.in.at(0));
  Scalar t = pt.pointee;
  uint64_t size = memBytes(t);
  size_t n = size_t(pt.numel());
  Operand ptr = operandOf(*this, in, 0, n), value = operandOf(*this, in, 1, n);
  bool masked = in.in.size() > 2;
  Operand mask = masked ? operandOf(*this, in, 2, n) : Operand{nullptr, 0};
  for (size_t i = 0; i < n; ++i) {
    if (masked && !(mask[i].u & 1)) continue;
    uint64_t addr = ptr[i].u;
    checkAccess(in, "store", t, addr, size, int64_t(i));
    writeBits(addr, size, t == Scalar::I1 ? (value[i].u & 1) : ir::toBits(t, value[i]));
  }
}

void Machine::atomicRmw(const Inst& in) {
  std::vector<Elem>& r = result(in);
  const Scalar t = type(in.out[0]).elem;
  const uint64_t size = memBytes(t);
  const size_t n = r.size();
  Operand ptr = operandOf(*this, in, 0, n), value = operandOf(*this, in, 1, n);
  bool masked = in.in.size() > 2;
  Operand mask = masked ? operandOf(*this, in, 2, n) : Operand{nullptr, 0};
  // The new value is the element-wise op of scalar_eval.h on (old, value): add rounds once to t.
  static constexpr ir::Opcode kOps[] = {ir::Opcode::Add, ir::Opcode::And, ir::Opcode::Or, ir::Opcode::Xor,
                                        ir::Opcode::Add, ir::Opcode::Max, ir::Opcode::Min};
  const ir::ElementwiseFn fn{kOps[in.a], t, 0, false};
  for (size_t i = 0; i < n; ++i) {
    if (masked && !(mask[i].u & 1)) {
      r[i] = ir::intElem(0);  // undefined in Triton; 0 here, as a masked-off load without `other`
      continue;
    }
    const uint64_t addr = ptr[i].u;
    checkAccess(in, "atomic_rmw", t, addr, size, int64_t(i));
    const Elem old = ir::fromBits(t, readBits(addr, size));
    Elem updated = value[i];
    if (in.a != kAtomicXchg) {
      const Elem operands[2] = {old, value[i]};
      bool divByZero = false;
      ir::evalElementwise(fn, operands, updated, divByZero);
    }
    writeBits(addr, size, ir::toBits(t, updated));
    r[i] = old;
  }
}

void Machine::atomicCas(const Inst& in) {
  std::vector<Elem>& r = result(in);
  const Scalar t = type(in.out[0]).elem;
  const uint64_t size = memBytes(t);
  const size_t n = r.size();
  Operand ptr = operandOf(*this, in, 0, n), cmp = operandOf(*this, in, 1, n), value = operandOf(*this, in, 2, n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t addr = ptr[i].u;
    checkAccess(in, "atomic_cas", t, addr, size, int64_t(i));
    const uint64_t bits = readBits(addr, size);
    // Bits are compared, as the hardware does: -0.0 differs from +0.0, a NaN matches its own bits.
    if (bits == ir::toBits(t, cmp[i])) writeBits(addr, size, ir::toBits(t, value[i]));
    r[i] = ir::fromBits(t, bits);
  }
}

}  // namespace kiln::interp
