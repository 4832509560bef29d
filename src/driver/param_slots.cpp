// Kernel parameter slots (param_slots.h): their widths from the IR types, the float conversions (the
// interpreter's own rounding, ir::toBits, so GPU and interpreter see the same value) and the layout.
#include "driver/param_slots.h"

#include <cstring>

#include "ir/scalar_eval.h"
#include "ir/types.h"

namespace kiln {

ParamSlot paramSlotOf(const Param& p) {
  using K = ParamSlot::Kind;
  if (p.pointer) return {K::Pointer, 8};
  std::optional<ir::Scalar> s = ir::scalarFromName(p.type);
  if (!s) return {K::Int, 4};  // not a scalar name: cannot happen for a compiled kernel's parameter
  switch (*s) {
    case ir::Scalar::I1: return {K::Bool, 1};  // .u8, tested != 0
    case ir::Scalar::I8: case ir::Scalar::U8: return {K::Int, 1};
    case ir::Scalar::I16: case ir::Scalar::U16: return {K::Int, 2};
    case ir::Scalar::I32: case ir::Scalar::U32: return {K::Int, 4};
    case ir::Scalar::I64: case ir::Scalar::U64: return {K::Int, 8};
    case ir::Scalar::F8E4M3: return {K::F8E4M3, 1};
    case ir::Scalar::F8E5M2: return {K::F8E5M2, 1};
    case ir::Scalar::F8E4B15: return {K::F8E4B15, 1};
    case ir::Scalar::F8E4B8: return {K::F8E4B8, 1};
    case ir::Scalar::F8E5B16: return {K::F8E5B16, 1};
    case ir::Scalar::F16: return {K::F16, 2};
    case ir::Scalar::BF16: return {K::BF16, 2};
    case ir::Scalar::F32: return {K::F32, 4};
    case ir::Scalar::F64: return {K::F64, 8};
    case ir::Scalar::Ptr: return {K::Pointer, 8};
  }
  return {K::Int, 4};
}

uint16_t float16Bits(double v) { return uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(v))); }
uint16_t bfloat16Bits(double v) { return uint16_t(ir::toBits(ir::Scalar::BF16, ir::floatElem(v))); }

namespace {


// The argument as a double, for float slots: floats, ints and bools convert as Python's float() would.
bool realValue(const LaunchArg& a, double& out) {
  switch (a.kind) {
    case LaunchArg::Kind::Float: out = a.f; return true;
    case LaunchArg::Kind::Int:
    case LaunchArg::Kind::Bool: out = double(a.i); return true;
    case LaunchArg::Kind::UInt: out = double(uint64_t(a.i)); return true;
    case LaunchArg::Kind::Pointer:
    case LaunchArg::Kind::None:
    case LaunchArg::Kind::String:
    case LaunchArg::Kind::Signature:
    case LaunchArg::Kind::Tuple: return false;
  }
  return false;
}

}  // namespace

std::string describeArgument(const LaunchArg& a) {
  if (!a.what.empty()) return std::string(a.what);
  switch (a.kind) {
    case LaunchArg::Kind::Pointer: return a.host ? "a host buffer" : "a device pointer";
    case LaunchArg::Kind::Int:
    case LaunchArg::Kind::UInt: return "an int";
    case LaunchArg::Kind::Float: return "a float";
    case LaunchArg::Kind::Bool: return "a bool";
    case LaunchArg::Kind::None: return "None";
    case LaunchArg::Kind::String: return "a string";
    case LaunchArg::Kind::Signature: return "a signature entry (for warmup only)";
    case LaunchArg::Kind::Tuple: return "a tuple";
  }
  return "an argument";
}

std::optional<std::string> packArgument(ParamSlot s, const LaunchArg& a, uint64_t& bits) {
  using K = ParamSlot::Kind;
  bits = 0;
  const bool integral = a.kind == LaunchArg::Kind::Int || a.kind == LaunchArg::Kind::UInt ||
                        a.kind == LaunchArg::Kind::Bool;
  double f = 0;
  switch (s.kind) {
    case K::Pointer:
      if (a.kind != LaunchArg::Kind::Pointer) break;
      bits = a.address;
      return std::nullopt;
    case K::Int:
      if (!integral) break;
      bits = s.bytes >= 8 ? uint64_t(a.i) : uint64_t(a.i) & ((uint64_t(1) << (8 * s.bytes)) - 1);
      return std::nullopt;
    case K::Bool:
      if (!integral) break;
      bits = a.i != 0;
      return std::nullopt;
    case K::F16:
      if (!realValue(a, f)) break;
      bits = float16Bits(f);
      return std::nullopt;
    case K::BF16:
      if (!realValue(a, f)) break;
      bits = bfloat16Bits(f);
      return std::nullopt;
    case K::F8E4M3:
      if (!realValue(a, f)) break;
      bits = ir::toBits(ir::Scalar::F8E4M3, ir::floatElem(f));
      return std::nullopt;
    case K::F8E5M2:
      if (!realValue(a, f)) break;
      bits = ir::toBits(ir::Scalar::F8E5M2, ir::floatElem(f));
      return std::nullopt;
    case K::F8E4B15: case K::F8E4B8: case K::F8E5B16: {
      if (!realValue(a, f)) break;
      ir::Scalar t = s.kind == K::F8E4B15 ? ir::Scalar::F8E4B15
                     : s.kind == K::F8E4B8 ? ir::Scalar::F8E4B8 : ir::Scalar::F8E5B16;
      bits = ir::toBits(t, ir::floatElem(f));
      return std::nullopt;
    }
    case K::F32: {
      if (!realValue(a, f)) break;
      float narrow = float(f);
      uint32_t b;
      std::memcpy(&b, &narrow, 4);
      bits = b;
      return std::nullopt;
    }
    case K::F64:
      if (!realValue(a, f)) break;
      std::memcpy(&bits, &f, 8);
      return std::nullopt;
  }
  const char* want = s.kind == K::Pointer ? "a pointer" : s.kind == K::Int || s.kind == K::Bool ? "an integer"
                                                                                              : "a number";
  return "is " + describeArgument(a) + ", but the kernel's parameter takes " + want + " at run time";
}

ParamLayout paramLayout(std::span<const ParamSlot> slots) {
  ParamLayout l;
  size_t offset = 0;
  for (const ParamSlot& s : slots) {
    offset = (offset + s.bytes - 1) / s.bytes * s.bytes;
    l.offsets.push_back(offset);
    offset += s.bytes;
  }
  l.bytes = offset;
  return l;
}

}  // namespace kiln
