// Float element-wise selection: one-instruction forms for f32/f64 and native f16/bf16 ops (tables),
// everything else on f16/bf16/fp8 through f32 and one rounding back; math sequences in isel_math.cpp.
#include "ptx/isel_impl.h"

namespace kiln::ptx::detail {

using ir::Opcode;
using ir::Scalar;

namespace {

// One-instruction f32/f64 forms. `alt` replaces the plain form when the op asks for
// rounding = "rn" (div, sqrt) or propagate_nan (min, max); null: a sequence (isel_math.cpp).
struct WideRule {
  Opcode op;
  const char *f32, *f32Alt, *f64, *f64Alt;
};
constexpr WideRule kWideRules[] = {
    {Opcode::Add, "add.rn.f32", nullptr, "add.rn.f64", nullptr},  // .rn: never contracted into an fma
    {Opcode::Sub, "sub.rn.f32", nullptr, "sub.rn.f64", nullptr},
    {Opcode::Mul, "mul.rn.f32", nullptr, "mul.rn.f64", nullptr},
    {Opcode::Div, "div.full.f32", "div.rn.f32", "div.rn.f64", "div.rn.f64"},  // div.full as Triton
    {Opcode::Fma, "fma.rn.f32", nullptr, "fma.rn.f64", nullptr},
    {Opcode::Neg, "neg.f32", nullptr, "neg.f64", nullptr},
    {Opcode::Abs, "abs.f32", nullptr, "abs.f64", nullptr},
    {Opcode::Min, "min.f32", "min.NaN.f32", "min.f64", nullptr},  // no min.NaN.f64
    {Opcode::Max, "max.f32", "max.NaN.f32", "max.f64", nullptr},
    {Opcode::Floor, "cvt.rmi.f32.f32", nullptr, "cvt.rmi.f64.f64", nullptr},
    {Opcode::Ceil, "cvt.rpi.f32.f32", nullptr, "cvt.rpi.f64.f64", nullptr},
    {Opcode::Trunc, "cvt.rzi.f32.f32", nullptr, "cvt.rzi.f64.f64", nullptr},
    {Opcode::Rint, "cvt.rni.f32.f32", nullptr, "cvt.rni.f64.f64", nullptr},
    {Opcode::Sqrt, "sqrt.approx.f32", "sqrt.rn.f32", "sqrt.rn.f64", "sqrt.rn.f64"},
    {Opcode::Exp2, "ex2.approx.ftz.f32", nullptr, nullptr, nullptr},  // Triton's: subnormal results flush to 0
    {Opcode::Rsqrt, "rsqrt.approx.f32", nullptr, nullptr, nullptr},
};

const char* wideMnemonic(const ElementOp& op, bool f64) {
  bool alt = op.ieee || op.propagateNan;
  for (const WideRule& r : kWideRules)
    if (r.op == op.op) return f64 ? (alt ? r.f64Alt : r.f64) : (alt && r.f32Alt ? r.f32Alt : r.f32);
  return nullptr;
}

// Native f16/bf16 forms: STEM + ".f16" (floor/ceil: + ".f16.f16"). bf16 add/sub/mul and the
// round-to-integral cvt need sm_90; without them bf16 goes through f32 (or fma, see below).
struct HalfRule {
  Opcode op;
  const char *stem, *nanStem;
  bool bf16NeedsSm90;
};
constexpr HalfRule kHalfRules[] = {
    {Opcode::Add, "add.rn", nullptr, true},      {Opcode::Sub, "sub.rn", nullptr, true},
    {Opcode::Mul, "mul.rn", nullptr, true},      {Opcode::Fma, "fma.rn", nullptr, false},
    {Opcode::Neg, "neg", nullptr, false},        {Opcode::Abs, "abs", nullptr, false},
    {Opcode::Min, "min", "min.NaN", false},      {Opcode::Max, "max", "max.NaN", false},
    {Opcode::Floor, "cvt.rmi", nullptr, true},   {Opcode::Ceil, "cvt.rpi", nullptr, true},
};

const char* halfStem(const ElementOp& op, bool bf16, int sm) {
  for (const HalfRule& r : kHalfRules) {
    if (r.op != op.op) continue;
    if (bf16 && r.bf16NeedsSm90 && sm < 90) return nullptr;
    return op.propagateNan && r.nanStem ? r.nanStem : r.stem;
  }
  return nullptr;
}

// Bitwise ops are integer-only; every other element-wise op is defined on floats.
bool takesFloats(Opcode op) {
  return ir::familyOf(op) != ir::Family::Bitwise;
}

std::string cmpFloat(CmpPred p) { return p == CmpPred::Ne ? "neu" : std::string(cmpName(p)); }

void operands(std::vector<Operand>& ops, std::span<const Reg> s) {
  for (Reg x : s) ops.push_back(x);
}

// f32 and f64.
void selectWide(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  const bool f64 = op.type == Scalar::F64;
  const char* f = f64 ? ".f64" : ".f32";
  if (const char* m = wideMnemonic(op, f64)) {
    std::vector<Operand> ops{d};
    operands(ops, s);
    e.inst(m, ops);
    return;
  }
  if (op.op == Opcode::Cmp) return e.inst("setp." + cmpFloat(op.pred) + f, {d, s[0], s[1]});
  if (op.op == Opcode::RoundTf32 && !f64) {  // the tf32 bit pattern (low 13 bits clear) is the f32 result
    Reg t = e.reg(RegClass::B32);
    e.inst("cvt.rna.tf32.f32", {t, s[0]});
    return e.inst("mov.b32", {d, t});
  }
  if (op.op == Opcode::Select) return e.inst(std::string("selp") + f, {d, s[1], s[2], s[0]});
  if (op.op == Opcode::Rounded) {  // one instruction with the rounding modifier: add.rz.f32, sqrt.rp.f64, ...
    static constexpr const char* kFn[] = {"add", "sub", "mul", "div", "fma", "sqrt", "rcp"};
    static constexpr const char* kMode[] = {".rn", ".rz", ".rm", ".rp"};
    std::vector<Operand> ops{d};
    operands(ops, s);
    return e.inst(std::string(kFn[int(op.roundedFn)]) + kMode[int(op.mode)] + f, ops);
  }
  if (op.op == Opcode::Min || op.op == Opcode::Max) {  // f64 with propagate_nan: PTX has no min.NaN.f64
    Reg m = e.reg(RegClass::F64), nan = e.reg(RegClass::Pred);
    e.inst(op.op == Opcode::Min ? "min.f64" : "max.f64", {m, s[0], s[1]});
    e.inst("setp.nan.f64", {nan, s[0], s[1]});
    return e.inst("selp.f64", {d, f64Bits(kF64NaN), m, nan});
  }
  selectFloatMath(e, op, d, s);
}

// f16/bf16/fp8 through f32: widen every operand exactly, compute in f32, round once.
void viaF32(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  if (op.op == Opcode::Fma && isFp8(op.type)) {
    // a*b+c of fp8 values is exact in f64 (at most 48 bits wide), so one rounding remains; in f32
    // the sum would round once more (the interpreter rounds once).
    std::vector<Reg> w;
    for (Reg x : s) {
      Reg x64 = e.reg(RegClass::F64);
      e.inst("cvt.f64.f32", {x64, widenToF32(e, op.type, x, op.loc)});
      w.push_back(x64);
    }
    Reg r = e.reg(RegClass::F64);
    e.inst("fma.rn.f64", {r, w[0], w[1], w[2]});
    return narrowFromF32(e, op.type, d, f64ToF32Odd(e, r), false, op.loc);
  }
  std::vector<Reg> w;
  for (Reg x : s) w.push_back(widenToF32(e, op.type, x, op.loc));
  ElementOp f = op;
  f.type = Scalar::F32;
  if (op.op == Opcode::Cmp) return selectWide(e, f, d, w);
  Reg r = e.reg(RegClass::F32);
  selectWide(e, f, r, w);
  narrowFromF32(e, op.type, d, r, false, op.loc);
}

void selectHalf(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  const bool bf16 = op.type == Scalar::BF16;
  const std::string ty = bf16 ? ".bf16" : ".f16";
  const int sm = e.target().sm;
  if (op.op == Opcode::Select) return e.inst("selp.b16", {d, s[1], s[2], s[0]});
  if (op.op == Opcode::Cmp && (!bf16 || sm >= 90)) return e.inst("setp." + cmpFloat(op.pred) + ty, {d, s[0], s[1]});
  if (const char* stem = halfStem(op, bf16, sm)) {
    std::string m = stem + ty;
    if (op.op == Opcode::Floor || op.op == Opcode::Ceil) m += ty;
    std::vector<Operand> ops{d};
    operands(ops, s);
    return e.inst(m, ops);
  }
  if (bf16 && (op.op == Opcode::Add || op.op == Opcode::Sub || op.op == Opcode::Mul)) {
    // sm_80 has only fma.rn.bf16: a+b = a*1+b, a-b = b*(-1)+a, a*b = a*b+(-0); exact and once rounded.
    // The constants must sit in registers (fma.bf16 takes no immediates).
    Reg k = e.reg(RegClass::B16);
    uint16_t bits = op.op == Opcode::Add ? 0x3F80 : op.op == Opcode::Sub ? 0xBF80 : 0x8000;
    e.inst("mov.b16", {k, hexImm(bits)});
    if (op.op == Opcode::Add) return e.inst("fma.rn.bf16", {d, s[0], k, s[1]});
    if (op.op == Opcode::Sub) return e.inst("fma.rn.bf16", {d, s[1], k, s[0]});
    return e.inst("fma.rn.bf16", {d, s[0], s[1], k});
  }
  viaF32(e, op, d, s);
}

void selectFp8(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  // Sign-bit ops are exact on the bits and need no fp8 conversion instructions.
  if (op.op == Opcode::Neg) return e.inst("xor.b16", {d, s[0], hexImm(0x80)});
  if (op.op == Opcode::Abs) return e.inst("and.b16", {d, s[0], hexImm(0x7F)});
  if (op.op == Opcode::Select) return e.inst("selp.b16", {d, s[1], s[2], s[0]});
  viaF32(e, op, d, s);
}

}  // namespace

void selectFloatOp(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  if (!takesFloats(op.op)) notDefined(op);
  switch (op.type) {
    case Scalar::F32: case Scalar::F64: return selectWide(e, op, d, s);
    case Scalar::F16: case Scalar::BF16: return selectHalf(e, op, d, s);
    case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16:
      return selectFp8(e, op, d, s);
    case Scalar::I1: case Scalar::I8: case Scalar::I16: case Scalar::I32: case Scalar::I64:
    case Scalar::U8: case Scalar::U16: case Scalar::U32: case Scalar::U64: case Scalar::Ptr:
      break;
  }
  notDefined(op);
}

}  // namespace kiln::ptx::detail

namespace kiln::ptx {

// ptxas expands div.full.f32 d, x, y into: |y| > 2^126 -> x, y scaled by 1/4; |y| < 2^-126 -> by 2^24;
// then x * rcp(y) (MUFU.RCP). Here the scaling of y and the reciprocal happen once per divisor.
F32Divisor prepareF32Divisor(Entry& e, Reg d) {
  constexpr uint32_t kTwoPow126 = 0x7E800000, kTwoPowMinus126 = 0x00800000, kQuarter = 0x3E800000,
                     kTwoPow24 = 0x4B800000;
  F32Divisor r{e.reg(RegClass::F32), e.reg(RegClass::F32)};
  Reg a = e.reg(RegClass::F32), scaled = e.reg(RegClass::F32);
  Reg big = e.reg(RegClass::Pred), tiny = e.reg(RegClass::Pred);
  e.inst("abs.f32", {a, d});
  e.inst("setp.gt.f32", {big, a, f32Bits(kTwoPow126)});
  e.inst("setp.lt.f32", {tiny, a, f32Bits(kTwoPowMinus126)});
  e.inst("selp.f32", {r.scale, f32Bits(kQuarter), f32Bits(detail::kF32One), big});
  e.inst("selp.f32", {r.scale, f32Bits(kTwoPow24), r.scale, tiny});
  e.inst("mul.rn.f32", {scaled, d, r.scale});
  e.inst("rcp.approx.ftz.f32", {r.reciprocal, scaled});  // the operand is normal, zero, inf or NaN
  return r;
}

void divideByF32Divisor(Entry& e, Reg dst, Reg x, const F32Divisor& d) {
  Reg scaled = e.reg(RegClass::F32);
  e.inst("mul.rn.f32", {scaled, x, d.scale});
  e.inst("mul.rn.f32", {dst, scaled, d.reciprocal});
}

}  // namespace kiln::ptx
