// Casts and bitcasts between every pair of scalar types, with cvt's rounding modifiers, integer
// wrapping/extension, float->int saturation, and exact routes where PTX would round twice.
#include "ptx/isel_impl.h"

namespace kiln::ptx {

using ir::Scalar;
using detail::isFp8;
using detail::f64ToF32Odd;
using detail::isHalf;

namespace {

// The cvt type name of a scalar held in its register class (8/16-bit ints as their 32-bit form).
std::string cvtType(Scalar t) {
  switch (t) {
    case Scalar::F16: return ".f16";
    case Scalar::BF16: return ".bf16";
    case Scalar::F32: return ".f32";
    case Scalar::F64: return ".f64";
    case Scalar::I1: case Scalar::I8: case Scalar::I16: case Scalar::I32: case Scalar::I64:
    case Scalar::U8: case Scalar::U16: case Scalar::U32: case Scalar::U64: case Scalar::Ptr:
      return std::string(intSuffix(t == Scalar::Ptr ? Scalar::U64 : t));
    case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16: break;
  }
  detail::internal({}, "no cvt type for " + std::string(ir::name(t)));
}

std::string rnd(bool rtz) { return rtz ? ".rz" : ".rn"; }

// The bits of 1.0 in each 16-bit float format.
uint16_t oneBits(Scalar t) {
  switch (t) {
    case Scalar::F16: return 0x3C00;
    case Scalar::BF16: return 0x3F80;
    case Scalar::F8E4M3: return 0x38;
    case Scalar::F8E5M2: return 0x3C;
    case Scalar::F8E4B15: return 0x78;
    case Scalar::F8E4B8: case Scalar::F8E5B16: return 0x40;
    case Scalar::I1: case Scalar::I8: case Scalar::I16: case Scalar::I32: case Scalar::I64:
    case Scalar::U8: case Scalar::U16: case Scalar::U32: case Scalar::U64: case Scalar::Ptr:
    case Scalar::F32: case Scalar::F64:
      break;
  }
  return 0;
}


// fp8e4b15 is an f16's sign and its bits 14..7 with bit 14 clear (the same bias, 15): S.EEEE.MMM ->
// S.0EEEE.MMM0000000, exact for subnormals too; the format has no inf or NaN.
Reg fp8e4b15ToF16(Entry& e, Reg src) {
  Reg m = e.reg(RegClass::B16), sign = e.reg(RegClass::B16), h = e.reg(RegClass::B16);
  e.inst("and.b16", {m, src, hexImm(0x7F)});
  e.inst("shl.b16", {m, m, 7});
  e.inst("and.b16", {sign, src, hexImm(0x80)});
  e.inst("shl.b16", {sign, sign, 8});
  e.inst("or.b16", {h, m, sign});
  return h;
}

// f16 -> fp8e4b15 as Triton's software conversion does it: the magnitude's bits clamped to 1.75's
// (0x3F00; inf and NaN are above it), plus half an fp8 ulp (ties away from zero), bits 14..7 kept;
// the sign comes from `signSrc`'s top bit (`signShift` brings it to bit 7).
void f16ToFp8e4b15(Entry& e, Reg dst, Reg h, Reg signBits, int signShift) {
  Reg a = e.reg(RegClass::B16), sign = e.reg(RegClass::B16);
  e.inst("and.b16", {a, h, hexImm(0x7FFF)});
  e.inst("min.u16", {a, a, hexImm(0x3F00)});
  e.inst("shl.b16", {a, a, 1});
  e.inst("add.u16", {a, a, hexImm(0x80)});
  e.inst("shr.u16", {a, a, 8});
  if (signBits.cls == RegClass::B32) {
    Reg s32 = e.reg(RegClass::B32);
    e.inst("shr.u32", {s32, signBits, signShift});
    e.inst("cvt.u16.u32", {sign, s32});
  } else {
    e.inst("shr.u16", {sign, signBits, signShift});
  }
  e.inst("and.b16", {sign, sign, hexImm(0x80)});
  e.inst("or.b16", {dst, a, sign});
}

// Widens t (B16) into the F32 register f, exactly.
void widenInto(Entry& e, Scalar t, Reg f, Reg src, const SourceLoc& loc) {
  switch (t) {
    case Scalar::F16: return e.inst("cvt.f32.f16", {f, src});
    case Scalar::BF16: return e.inst("cvt.f32.bf16", {f, src});
    case Scalar::F8E5M2: {  // e5m2 is the top byte of an f16
      Reg h = e.reg(RegClass::B16);
      e.inst("shl.b16", {h, src, 8});
      return e.inst("cvt.f32.f16", {f, h});
    }
    case Scalar::F8E4M3: {
      Reg h = e.reg(RegClass::B16);
      if (e.target().sm >= 89) {
        Reg pair = e.reg(RegClass::B32), hi = e.reg(RegClass::B16);
        e.inst("cvt.rn.f16x2.e4m3x2", {pair, src});
        e.inst("mov.b32", {vec({h, hi}), pair});
        return e.inst("cvt.f32.f16", {f, h});
      }
      // sm_80: place exponent and mantissa in an f16 (bias 15 instead of 7) and scale by 2^8,
      // which is exact for normals and subnormals alike; S.1111.111 is the only NaN.
      Reg m = e.reg(RegClass::B16), sign = e.reg(RegClass::B16);
      Reg nan = e.reg(RegClass::Pred);
      e.inst("and.b16", {m, src, hexImm(0x7F)});
      e.inst("shl.b16", {h, m, 7});
      e.inst("and.b16", {sign, src, hexImm(0x80)});
      e.inst("shl.b16", {sign, sign, 8});
      e.inst("or.b16", {h, h, sign});
      e.inst("cvt.f32.f16", {f, h});
      e.inst("mul.rn.f32", {f, f, f32Bits(0x43800000)});
      e.inst("setp.eq.b16", {nan, m, hexImm(0x7F)});
      return e.inst("selp.f32", {f, f32Bits(detail::kF32NaN), f, nan});
    }
    case Scalar::F8E4B15: return e.inst("cvt.f32.f16", {f, fp8e4b15ToF16(e, src)});
    case Scalar::F32: return e.inst("mov.f32", {f, src});
    case Scalar::F8E4B8: case Scalar::F8E5B16:  // the interpreter's alone: generateGpuCode refuses them
    case Scalar::I1: case Scalar::I8: case Scalar::I16: case Scalar::I32: case Scalar::I64:
    case Scalar::U8: case Scalar::U16: case Scalar::U32: case Scalar::U64: case Scalar::Ptr: case Scalar::F64:
      break;
  }
  detail::internal(loc, "cannot widen " + std::string(ir::name(t)) + " to f32");
}

}  // namespace

Reg detail::f64ToF32Odd(Entry& e, Reg x) {
  Reg t = e.reg(RegClass::F32), back = e.reg(RegClass::F64), bits = e.reg(RegClass::B32);
  Reg inexact = e.reg(RegClass::Pred);
  e.inst("cvt.rz.f32.f64", {t, x});
  e.inst("cvt.f64.f32", {back, t});
  e.inst("setp.neu.f64", {inexact, back, x});  // NaN compares unequal; the payload survives or-ing 1
  e.inst("mov.b32", {bits, t});
  e.inst("or.b32", {bits, bits, 1}, when(inexact));
  e.inst("mov.b32", {t, bits});
  return t;
}

namespace {

// A 64-bit integer rounded to odd at f64's 53 bits (then rounding to f32/f16/bf16 is exact once).
Reg i64ToF64Odd(Entry& e, Scalar from, Reg x) {
  std::string it = cvtType(from);
  Reg t = e.reg(RegClass::F64), back = e.reg(RegClass::B64), bits = e.reg(RegClass::B64);
  Reg inexact = e.reg(RegClass::Pred);
  e.inst("cvt.rz.f64" + it, {t, x});
  e.inst("cvt.rzi" + it + ".f64", {back, t});
  e.inst("setp.ne" + it, {inexact, back, x});
  e.inst("mov.b64", {bits, t});
  e.inst("or.b64", {bits, bits, 1}, when(inexact));
  e.inst("mov.b64", {t, bits});
  return t;
}

void intToInt(Entry& e, Scalar from, Scalar to, Reg d, Reg s) {
  int wf = ir::bitWidth(from), wt = ir::bitWidth(to);
  if (wf == 64 && wt == 64) return e.mov(d, s);
  if (wt == 64) return e.inst(ir::isSigned(from) ? "cvt.s64.s32" : "cvt.u64.u32", {d, s});
  if (wf == 64) e.inst("cvt.u32.u64", {d, s});  // keep the low 32 bits, then wrap like a 32-bit value
  else e.mov(d, s);
  // The value is already in range when the target holds every value of the source.
  bool fits = wf < 64 && (wt > wf ? (ir::isSigned(to) || !ir::isSigned(from)) : (wt == wf && ir::isSigned(to) == ir::isSigned(from)));
  if (!fits) normalizeInt(e, to, d);
}

// Float (f32/f64) to integer: cvt.rzi truncates and saturates to the range; 8/16-bit targets
// saturate at their own range by clamping the 32-bit result. NaN must give 0, which cvt does only
// for some pairs (an H200 gives INT64_MIN for f32 -> s64 and INT_MIN for f64 -> s32): select it.
void floatToInt(Entry& e, Scalar from, Scalar to, Reg d, Reg s) {
  std::string ft = cvtType(from);
  int w = ir::bitWidth(to);
  bool sgn = ir::isSigned(to);
  if (w >= 32) {
    e.inst("cvt.rzi" + cvtType(to) + ft, {d, s});
  } else {
    e.inst(sgn ? "cvt.rzi.s32" + ft : "cvt.rzi.u32" + ft, {d, s});
    if (sgn) {
      e.inst("max.s32", {d, d, w == 8 ? -128 : -32768});
      e.inst("min.s32", {d, d, w == 8 ? 127 : 32767});
    } else {
      e.inst("min.u32", {d, d, w == 8 ? 255 : 65535});
    }
  }
  Reg nan = e.reg(RegClass::Pred);
  e.inst("setp.nan" + ft, {nan, s, s});
  e.inst(w == 64 ? "selp.b64" : "selp.b32", {d, 0, d, nan});
}

void intToFloat(Entry& e, Scalar from, Scalar to, bool rtz, Reg d, Reg s, const SourceLoc& loc) {
  std::string it = cvtType(from);
  int sm = e.target().sm;
  bool native = to == Scalar::F32 || to == Scalar::F64 || to == Scalar::F16 || (to == Scalar::BF16 && sm >= 90);
  if (native) return e.inst("cvt" + rnd(rtz) + cvtType(to) + it, {d, s});
  if (rtz) {  // toward zero twice is toward zero once
    Reg t = e.reg(RegClass::F32);
    e.inst("cvt.rz.f32" + it, {t, s});
    return narrowFromF32(e, to, d, t, true, loc);
  }
  if (to == Scalar::BF16 && ir::bitWidth(from) >= 32) {  // f32 would round first: go exactly through f64
    Reg t;
    if (ir::bitWidth(from) == 64) {
      t = i64ToF64Odd(e, from, s);
    } else {
      t = e.reg(RegClass::F64);
      e.inst("cvt.rn.f64" + it, {t, s});
    }
    return narrowFromF32(e, to, d, f64ToF32Odd(e, t), false, loc);
  }
  // bf16 from a narrow int (exact in f32), or fp8: any integer beyond f32's exact range overflows
  // fp8 anyway (e4m3 saturates at 448, e5m2 overflows past 61440), so one rounding to f32 is safe.
  Reg t = e.reg(RegClass::F32);
  e.inst("cvt.rn.f32" + it, {t, s});
  narrowFromF32(e, to, d, t, false, loc);
}

void floatToFloat(Entry& e, Scalar from, Scalar to, bool rtz, Reg d, Reg s, const SourceLoc& loc) {
  // Widening is exact; f16 <-> f64 and f32 <-> f64 have direct cvts.
  if (from == Scalar::F8E5M2 && to == Scalar::F16) return e.inst("shl.b16", {d, s, 8});  // e5m2 = f16's top byte
  if (from == Scalar::F8E4B15 && to == Scalar::F16) return e.mov(d, fp8e4b15ToF16(e, s));
  if (from == Scalar::F16 && to == Scalar::F8E4B15) return f16ToFp8e4b15(e, d, s, s, 8);
  if (from == Scalar::F64) {
    if (to == Scalar::F32 || to == Scalar::F16 || (to == Scalar::BF16 && e.target().sm >= 90))
      return e.inst("cvt" + rnd(rtz) + cvtType(to) + ".f64", {d, s});
    if (!rtz) return narrowFromF32(e, to, d, f64ToF32Odd(e, s), false, loc);
    Reg t = e.reg(RegClass::F32);
    e.inst("cvt.rz.f32.f64", {t, s});
    return narrowFromF32(e, to, d, t, true, loc);
  }
  if (to == Scalar::F64) {
    if (from == Scalar::F32 || from == Scalar::F16) return e.inst("cvt.f64" + cvtType(from), {d, s});
    Reg w = widenToF32(e, from, s, loc);
    return e.inst("cvt.f64.f32", {d, w});
  }
  if (to == Scalar::F32) return widenInto(e, from, d, s, loc);
  narrowFromF32(e, to, d, from == Scalar::F32 ? s : widenToF32(e, from, s, loc), rtz, loc);
}

}  // namespace

Reg widenToF32(Entry& e, Scalar t, Reg src, const SourceLoc& loc) {
  Reg f = e.reg(RegClass::F32);
  widenInto(e, t, f, src, loc);
  return f;
}

void narrowFromF32(Entry& e, Scalar t, Reg dst, Reg src, bool rtz, const SourceLoc& loc) {
  if (t == Scalar::F16 || t == Scalar::BF16) return e.inst("cvt" + rnd(rtz) + cvtType(t) + ".f32", {dst, src});
  if (!isFp8(t)) detail::internal(loc, "cannot narrow f32 to " + std::string(ir::name(t)));
  if (t == Scalar::F8E4B15) {  // through f16 toward zero, as Triton: the same result as rounding once
    Reg h = e.reg(RegClass::B16), bits = e.reg(RegClass::B32);
    e.inst("cvt.rz.f16.f32", {h, src});
    e.inst("mov.b32", {bits, src});
    return f16ToFp8e4b15(e, dst, h, bits, 24);  // the sign of the f32, NaN included
  }
  if (t == Scalar::F8E4B8 || t == Scalar::F8E5B16) detail::internal(loc, "no GPU code for " + std::string(ir::name(t)));
  if (e.target().sm < 89)
    throw CompileError(loc, "rounding to " + std::string(ir::name(t)) + " needs sm_89 or newer (target " +
                                e.target().name() + ")");
  if (rtz) throw CompileError(loc, "rounding toward zero to " + std::string(ir::name(t)) + " is not supported");
  // cvt packs two values, the second operand into the low byte; the high byte converts +0 to 0x00.
  Reg zero = e.reg(RegClass::F32);
  e.inst("mov.f32", {zero, f32Bits(0)});
  bool e4m3 = t == Scalar::F8E4M3;
  if (e4m3) return e.inst("cvt.rn.satfinite.e4m3x2.f32", {dst, zero, src});
  // e5m2 overflows to inf, but cvt only has .satfinite: |x| >= 61440 (halfway from the max 57344
  // to 2^16, ties to even go up) becomes a signed inf.
  Reg r = e.reg(RegClass::B16), inf = e.reg(RegClass::B16), a = e.reg(RegClass::F32);
  Reg over = e.reg(RegClass::Pred);
  e.inst("cvt.rn.satfinite.e5m2x2.f32", {r, zero, src});
  e.inst("abs.f32", {a, src});
  e.inst("setp.ge.f32", {over, a, f32Bits(0x47700000)});
  e.inst("and.b16", {inf, r, hexImm(0x80)});
  e.inst("or.b16", {inf, inf, hexImm(0x7C)});
  e.inst("selp.b16", {dst, inf, r, over});
}

void selectCast(Entry& e, Scalar from, Scalar to, bool rtz, Reg dst, Reg src, const SourceLoc& loc) {
  if (from == Scalar::Ptr) from = Scalar::U64;  // pointers convert as their address
  if (to == Scalar::Ptr) to = Scalar::U64;
  detail::expectClass(loc, src, regClassOf(from), "cast operand");
  detail::expectClass(loc, dst, regClassOf(to), "cast result");
  if (from == to) return e.mov(dst, src);
  if (to == Scalar::I1) {  // x != 0 (NaN != 0 too)
    if (ir::isInt(from)) return e.inst(ir::bitWidth(from) == 64 ? "setp.ne.s64" : "setp.ne.s32", {dst, src, 0});
    if (from == Scalar::F32 || from == Scalar::F64) {
      Operand z = from == Scalar::F32 ? f32Bits(0) : f64Bits(0);
      return e.inst("setp.neu" + cvtType(from), {dst, src, z});
    }
    Reg m = e.reg(RegClass::B16);  // 16-bit and fp8 floats: any bit besides the sign
    e.inst("and.b16", {m, src, hexImm(isFp8(from) ? 0x7F : 0x7FFF)});
    return e.inst("setp.ne.b16", {dst, m, 0});
  }
  if (from == Scalar::I1) {
    switch (regClassOf(to)) {
      case RegClass::B32: return e.inst("selp.b32", {dst, 1, 0, src});
      case RegClass::B64: return e.inst("selp.b64", {dst, 1, 0, src});
      case RegClass::F32: return e.inst("selp.f32", {dst, f32Bits(detail::kF32One), f32Bits(0), src});
      case RegClass::F64: return e.inst("selp.f64", {dst, f64Bits(0x3FF0000000000000ull), f64Bits(0), src});
      case RegClass::B16: return e.inst("selp.b16", {dst, hexImm(oneBits(to)), hexImm(0), src});
      case RegClass::Pred: break;
    }
    detail::internal(loc, "bad i1 cast");
  }
  if (ir::isInt(from) && ir::isInt(to)) return intToInt(e, from, to, dst, src);
  if (ir::isInt(from)) return intToFloat(e, from, to, rtz, dst, src, loc);
  if (ir::isInt(to)) {
    Reg f = (from == Scalar::F32 || from == Scalar::F64) ? src : widenToF32(e, from, src, loc);
    return floatToInt(e, f.cls == RegClass::F64 ? Scalar::F64 : Scalar::F32, to, dst, f);
  }
  floatToFloat(e, from, to, rtz, dst, src, loc);
}

void selectCast(Entry& e, Scalar from, Scalar to, ir::RoundMode mode, Reg dst, Reg src, const SourceLoc& loc) {
  const bool directed = mode == ir::RoundMode::Down || mode == ir::RoundMode::Up;
  const bool narrows = ir::isInt(from) || (from == Scalar::F64 && to == Scalar::F32);
  if (!directed || from == to || !narrows) return selectCast(e, from, to, mode == ir::RoundMode::TowardZero, dst, src, loc);
  if (to != Scalar::F32 && to != Scalar::F64)
    detail::internal(loc, "rounding toward -inf or +inf to " + std::string(ir::name(to)));
  if (from == Scalar::Ptr) from = Scalar::U64;
  detail::expectClass(loc, src, regClassOf(from), "cast operand");
  detail::expectClass(loc, dst, regClassOf(to), "cast result");
  if (from == Scalar::I1) return selectCast(e, from, to, false, dst, src, loc);  // 0 and 1 are exact
  // 8/16-bit integers sit extended in .b32 registers and convert as 32-bit ones.
  e.inst(std::string(mode == ir::RoundMode::Down ? "cvt.rm" : "cvt.rp") + cvtType(to) + cvtType(from), {dst, src});
}

void selectBitcast(Entry& e, Scalar from, Scalar to, Reg dst, Reg src) {
  if (ir::bitWidth(from) != ir::bitWidth(to))
    detail::internal({}, "bitcast " + std::string(ir::name(from)) + " -> " + std::string(ir::name(to)) + " changes the width");
  detail::expectClass({}, src, regClassOf(from), "bitcast operand");
  detail::expectClass({}, dst, regClassOf(to), "bitcast result");
  RegClass fc = src.cls, tc = dst.cls;
  if (fc == tc) {
    e.mov(dst, src);
    if (ir::isInt(to)) normalizeInt(e, to, dst);  // i8 <-> u8, i16 <-> u16 re-extend
    return;
  }
  switch (tc) {
    case RegClass::B32:
      if (fc == RegClass::F32) return e.inst("mov.b32", {dst, src});
      // 8/16-bit float bits into an integer register, extended by the integer's signedness.
      if (ir::bitWidth(to) == 8) return e.inst(ir::isSigned(to) ? "cvt.s32.s8" : "cvt.u32.u8", {dst, src});
      return e.inst(ir::isSigned(to) ? "cvt.s32.s16" : "cvt.u32.u16", {dst, src});
    case RegClass::B16:
      e.inst("cvt.u16.u32", {dst, src});
      if (ir::bitWidth(to) == 8) e.inst("and.b16", {dst, dst, hexImm(0xFF)});
      return;
    case RegClass::F32: case RegClass::F64: case RegClass::B64:
      return e.inst(tc == RegClass::F32 ? "mov.b32" : "mov.b64", {dst, src});
    case RegClass::Pred: break;
  }
  detail::internal({}, "bad bitcast");
}

}  // namespace kiln::ptx
