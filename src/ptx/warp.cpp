// Special registers, barriers, shuffles and mma.sync: the warp- and CTA-level instructions.
#include "ptx/warp.h"

#include "ptx/isel.h"
#include "ptx/isel_impl.h"

namespace kiln::ptx {

using detail::internal;

Reg readSpecial(Entry& e, SpecialReg r) {
  static constexpr const char* kNames[] = {"%tid.x",   "%tid.y",   "%tid.z",    "%ntid.x",   "%ntid.y",
                                           "%ntid.z",  "%ctaid.x", "%ctaid.y",  "%ctaid.z",  "%nctaid.x",
                                           "%nctaid.y", "%nctaid.z"};
  Reg d = e.reg(RegClass::B32);
  switch (r) {
    case SpecialReg::LaneId: case SpecialReg::WarpId: {
      Reg t = e.reg(RegClass::B32);
      e.inst("mov.u32", {t, sym("%tid.x")});
      if (r == SpecialReg::LaneId) e.inst("and.b32", {d, t, 31});
      else e.inst("shr.u32", {d, t, 5});
      return d;
    }
    case SpecialReg::TidX: case SpecialReg::TidY: case SpecialReg::TidZ: case SpecialReg::NtidX:
    case SpecialReg::NtidY: case SpecialReg::NtidZ: case SpecialReg::CtaidX: case SpecialReg::CtaidY:
    case SpecialReg::CtaidZ: case SpecialReg::NctaidX: case SpecialReg::NctaidY: case SpecialReg::NctaidZ:
      e.inst("mov.u32", {d, sym(kNames[size_t(r)])});
      return d;
  }
  return d;
}

void barSync(Entry& e, int id, int threads) {
  if (id < 0 || id > 15) internal({}, "barrier ids are 0..15");
  if (threads < 0 || threads % 32 != 0) internal({}, "a barrier's thread count is a multiple of 32");
  if (threads) e.inst("bar.sync", {id, threads});
  else e.inst("bar.sync", {id});
}

void barArrive(Entry& e, int id, int threads) {
  if (id < 0 || id > 15) internal({}, "barrier ids are 0..15");
  if (threads <= 0 || threads % 32 != 0) internal({}, "a barrier's thread count is a multiple of 32");
  e.inst("bar.arrive", {id, threads});
}

void shuffle(Entry& e, ShflMode mode, ir::Scalar t, Reg dst, Reg src, Operand lane, int width) {
  if (width < 1 || width > 32 || (width & (width - 1)) != 0) internal({}, "shuffle width must be a power of two <= 32");
  RegClass rc = regClassOf(t);
  detail::expectClass({}, src, rc, "shuffled value");
  detail::expectClass({}, dst, rc, "shuffle result");
  static constexpr const char* kModes[] = {"bfly", "idx", "up", "down"};
  // c = segment mask (bits 12:8) | clamp lane (bits 4:0); up clamps at the segment's first lane.
  int c = ((32 - width) << 8) | (mode == ShflMode::Up ? 0 : 0x1f);
  std::string m = std::string("shfl.sync.") + kModes[size_t(mode)] + ".b32";
  auto shfl32 = [&](Reg d, Reg s) { e.inst(m, {d, s, lane, c, hexImm(0xFFFFFFFF)}); };
  switch (rc) {
    case RegClass::B32: case RegClass::F32: return shfl32(dst, src);
    case RegClass::B64: case RegClass::F64: {
      Reg lo = e.reg(RegClass::B32), hi = e.reg(RegClass::B32);
      e.inst("mov.b64", {vec({lo, hi}), src});
      shfl32(lo, lo);
      shfl32(hi, hi);
      e.inst("mov.b64", {dst, vec({lo, hi})});
      return;
    }
    case RegClass::B16: {
      Reg w = e.reg(RegClass::B32);
      e.inst("cvt.u32.u16", {w, src});
      shfl32(w, w);
      e.inst("cvt.u16.u32", {dst, w});
      return;
    }
    case RegClass::Pred: {
      Reg w = e.reg(RegClass::B32);
      e.inst("selp.b32", {w, 1, 0, src});
      shfl32(w, w);
      e.inst("setp.ne.u32", {dst, w, 0});
      return;
    }
  }
}

const MmaShape& mmaShape(MmaKind k) {
  static constexpr MmaShape kShapes[] = {
      {16, 8, 16, 4, 2, 4, RegClass::F32, 80, ".f32.f16.f16.f32"},
      {16, 8, 16, 4, 2, 4, RegClass::F32, 80, ".f32.bf16.bf16.f32"},
      {16, 8, 16, 4, 2, 2, RegClass::B32, 80, ".f16.f16.f16.f16"},
      {16, 8, 8, 4, 2, 4, RegClass::F32, 80, ".f32.tf32.tf32.f32"},
      {16, 8, 32, 4, 2, 4, RegClass::B32, 80, ".s32.s8.s8.s32"},
      {16, 8, 32, 4, 2, 4, RegClass::B32, 80, ".s32.u8.u8.s32"},
      {16, 8, 32, 4, 2, 4, RegClass::F32, 89, ".f32.e4m3.e4m3.f32"},
      {16, 8, 32, 4, 2, 4, RegClass::F32, 89, ".f32.e5m2.e5m2.f32"},
  };
  return kShapes[size_t(k)];
}

void mma(Entry& e, MmaKind kind, std::span<const Reg> d, std::span<const Reg> a, std::span<const Reg> b,
         std::span<const Reg> c, const SourceLoc& loc) {
  const MmaShape& s = mmaShape(kind);
  if (e.target().sm < s.minSm)
    throw CompileError(loc, std::string("mma") + s.types + " needs sm_" + std::to_string(s.minSm) +
                                " or newer (target " + e.target().name() + ")");
  auto check = [&](std::span<const Reg> regs, int n, RegClass rc, const char* what) {
    if (int(regs.size()) != n) internal(loc, std::string("mma ") + what + " needs " + std::to_string(n) + " registers");
    for (Reg r : regs) detail::expectClass(loc, r, rc, what);
  };
  check(d, s.cRegs, s.accClass, "D");
  check(a, s.aRegs, RegClass::B32, "A");
  check(b, s.bRegs, RegClass::B32, "B");
  check(c, s.cRegs, s.accClass, "C");
  std::string m = "mma.sync.aligned.m" + std::to_string(s.m) + "n" + std::to_string(s.n) + "k" + std::to_string(s.k) +
                  ".row.col" + s.types;
  e.inst(m, {vec(d), vec(a), vec(b), vec(c)});
}

void truncateToTf32(Entry& e, Reg dst, Reg src) {
  detail::expectClass({}, dst, RegClass::B32, "tf32 result");
  detail::expectClass({}, src, RegClass::F32, "tf32 operand");
  e.inst("mov.b32", {dst, src});
  e.inst("and.b32", {dst, dst, hexImm(0xFFFFE000u)});
}

}  // namespace kiln::ptx
