// wgmma instructions and matrix descriptors (ptx/wgmma.h).
#include "ptx/wgmma.h"

#include <string>

#include "ptx/isel_impl.h"
#include "support/diagnostic.h"

namespace kiln::ptx {

using detail::internal;

namespace {

void requireSm90a(const Entry& e, const SourceLoc& loc) {
  if (e.target().sm != 90 || !e.target().archSpecific)
    throw CompileError(loc, "wgmma needs sm_90a (target " + e.target().name() + ")");
}

}  // namespace

uint64_t WgmmaDescriptor::fixedBits() const {
  uint64_t mode = 0;
  switch (swizzleBytes) {
    case 128: mode = 1; break;
    case 64: mode = 2; break;
    case 32: mode = 3; break;
    case 0: mode = 0; break;
    default: throw InternalError({}, "wgmma descriptor: swizzle of " + std::to_string(swizzleBytes) + " bytes");
  }
  auto field = [](int64_t bytes) {
    if (bytes < 0 || bytes % 16 || (bytes >> 4) > 0x3FFF) throw InternalError({}, "wgmma descriptor: byte offset out of range");
    return uint64_t(bytes >> 4);
  };
  return (field(leadingBytes) << 16) | (field(strideBytes) << 32) | (mode << 62);
}

Reg wgmmaDescriptor(Entry& e, Reg address, const WgmmaDescriptor& d) {
  Reg start = e.reg(RegClass::B32), wide = e.reg(RegClass::B64), desc = e.reg(RegClass::B64);
  e.inst("bfe.u32", {start, address, 4, 14});
  e.inst("cvt.u64.u32", {wide, start});
  e.inst("or.b64", {desc, wide, hexImm(d.fixedBits())});
  return desc;
}

void wgmmaFence(Entry& e, const SourceLoc& loc) {
  requireSm90a(e, loc);
  e.inst("wgmma.fence.sync.aligned");
}

void wgmmaCommit(Entry& e) { e.inst("wgmma.commit_group.sync.aligned"); }

void wgmmaWait(Entry& e, int pending) { e.inst("wgmma.wait_group.sync.aligned", {pending}); }

void fenceProxyAsyncShared(Entry& e) { e.inst("fence.proxy.async.shared::cta"); }

int wgmmaK(WgmmaInput in) {
  switch (in) {
    case WgmmaInput::F16: case WgmmaInput::BF16: return 16;
    case WgmmaInput::TF32: return 8;
    case WgmmaInput::E4M3: case WgmmaInput::E5M2: case WgmmaInput::S8: case WgmmaInput::U8: return 32;
  }
  return 0;
}

bool wgmmaTransposes(WgmmaInput in) { return in == WgmmaInput::F16 || in == WgmmaInput::BF16; }

bool wgmmaIntegerSum(WgmmaInput in) { return in == WgmmaInput::S8 || in == WgmmaInput::U8; }

namespace {

// ".f32.f16.f16", ".s32.s8.s8", ...
const char* wgmmaTypes(WgmmaInput in) {
  switch (in) {
    case WgmmaInput::F16: return ".f32.f16.f16";
    case WgmmaInput::BF16: return ".f32.bf16.bf16";
    case WgmmaInput::TF32: return ".f32.tf32.tf32";
    case WgmmaInput::E4M3: return ".f32.e4m3.e4m3";
    case WgmmaInput::E5M2: return ".f32.e5m2.e5m2";
    case WgmmaInput::S8: return ".s32.s8.s8";
    case WgmmaInput::U8: return ".s32.u8.u8";
  }
  return "";
}

}  // namespace

void wgmma(Entry& e, WgmmaInput in, int n, std::span<const Reg> d, Reg descA, std::span<const Reg> aRegs,
           Reg descB, bool transA, bool transB, const SourceLoc& loc, bool addToD) {
  requireSm90a(e, loc);
  if (n < 8 || n > 256 || n % 8) internal(loc, "wgmma: n must be 8..256, a multiple of 8");
  if (int(d.size()) != n / 2) internal(loc, "wgmma: the accumulator needs n / 2 registers");
  const bool integer = wgmmaIntegerSum(in);
  for (Reg r : d) detail::expectClass(loc, r, integer ? RegClass::B32 : RegClass::F32, "wgmma D");
  detail::expectClass(loc, descB, RegClass::B64, "wgmma B descriptor");
  if (!wgmmaTransposes(in) && (transA || transB || !aRegs.empty()))
    internal(loc, "wgmma: tf32, fp8 and 8-bit integer operands are K-major in shared memory");
  const std::string op = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k" + std::to_string(wgmmaK(in)) +
                         wgmmaTypes(in);
  Reg scaleD = e.reg(RegClass::Pred);
  e.inst("mov.pred", {scaleD, addToD ? 1 : 0});
  if (!wgmmaTransposes(in)) {  // no transpose flags; integer inputs have no negation either
    detail::expectClass(loc, descA, RegClass::B64, "wgmma A descriptor");
    if (integer) e.inst(op, {vec(d), descA, descB, scaleD});
    else e.inst(op, {vec(d), descA, descB, scaleD, 1, 1});
    return;
  }
  if (aRegs.empty()) {
    detail::expectClass(loc, descA, RegClass::B64, "wgmma A descriptor");
    e.inst(op, {vec(d), descA, descB, scaleD, 1, 1, transA ? 1 : 0, transB ? 1 : 0});
    return;
  }
  if (aRegs.size() != 4) internal(loc, "wgmma: A from registers takes four .b32 registers");
  for (Reg r : aRegs) detail::expectClass(loc, r, RegClass::B32, "wgmma A");
  e.inst(op, {vec(d), vec(aRegs), descB, scaleD, 1, 1, transB ? 1 : 0});
}

}  // namespace kiln::ptx
