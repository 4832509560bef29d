// Triton's libdevice (triton.language.extra.libdevice, also reached as extra.cuda.libdevice) and the
// other names of triton.language.extra.cuda. exp, log, sin, ... are the tl.math builtins of the same
// name (builtins_math.cpp marks them kLibdevice); the functions here are Tile IR math ops (expm1 ..
// pow) or compositions of ops (copysign, round, the predicates, fast_*); the integer and bit functions
// are builtins_libdevice_int.cpp's, the directed roundings and conversions builtins_libdevice_round.cpp's.
// Every other Triton 3.6 name is listed too, so that using one is a located "not supported by kiln"
// error (docs/language.md).
#include <climits>
#include <cmath>

#include "sema/libdevice_args.h"

namespace kiln::sema {

namespace {

// fma rounds once, to nearest even: it is libdevice's fma_rn.
SValue fmaRn(CallArgs& a) {
  const BuiltinDef* fma = findBuiltin("fma", kMath);
  if (!fma) throw InternalError(a.loc, "libdevice.fma_rn: the builtin tl.math.fma is missing");
  return invokeBuiltin(*a.cx, *fma, a.display, a.raw, a.rawKw, a.loc);
}

using namespace libdevice;
using ir::Opcode;
using ir::Scalar;
using ir::Type;

SValue asInt32(CallArgs& a, ir::Value* v) { return SValue::irValue(castElem(*a.cx, v, Type::scalar(Scalar::I32), a.loc)); }

bool allowed(Scalar s, Floats f) {
  return (s == Scalar::F32 && f != Floats::F64) || (s == Scalar::F64 && f != Floats::F32);
}

template <Opcode op>
SValue unaryFn(CallArgs& a) {
  return SValue::irValue(op1(a, op, externArgs(a, 1, Floats::Both)[0]));
}
template <Opcode op>
SValue binaryFn(CallArgs& a) {
  auto v = externArgs(a, 2, Floats::Both);
  return SValue::irValue(op2(a, op, v[0], v[1]));
}

// pow(x, y), and powi: an int32 exponent (Triton's (fp32, int32) signature) converted to x's type.
SValue powFn(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* x = toTensor(cx, a.at(0), a.loc, "libdevice.pow's argument");
  ir::Value* y = toTensor(cx, a.at(1), a.loc, "libdevice.pow's argument");
  std::vector<ir::Value*> v;
  if (allowed(x->type.elem, Floats::Both) && y->type.elem == Scalar::I32) {
    y = castElem(cx, y, x->type.element(), a.loc);
    auto [bx, by] = binaryOperands(cx, SValue::irValue(x), SValue::irValue(y), BinaryRule{}, a.display, a.loc);
    v = {bx, by};
  } else {
    v = externArgs(a, 2, Floats::Both);
  }
  return SValue::irValue(op2(a, Opcode::Pow, v[0], v[1]));
}

// copysign: x's magnitude bits with y's sign bit.
SValue copysignFn(CallArgs& a) {
  auto v = externArgs(a, 2, Floats::Both);
  ir::Value *xb = bitsOf(a, v[0]), *yb = bitsOf(a, v[1]);
  bool wide = xb->type.elem == Scalar::I64;
  int64_t sign = wide ? INT64_MIN : int64_t(INT32_MIN);
  ir::Value* mag = op2(a, Opcode::And, xb, intNum(a, ~sign, xb->type));
  ir::Value* sgn = op2(a, Opcode::And, yb, intNum(a, sign, yb->type));
  return SValue::irValue(bitcastElem(*a.cx, op2(a, Opcode::Or, mag, sgn), v[0]->type.element(), a.loc));
}

// fdim(x, y) = x - y if x > y, else +0; NaN if either is.
SValue fdimFn(CallArgs& a) {
  auto v = externArgs(a, 2, Floats::Both);
  ir::Value *x = v[0], *y = v[1];
  ir::Value* r = select(a, cmp(a, "gt", x, y), op2(a, Opcode::Sub, x, y), num(a, 0.0, x->type));
  ir::Value* nan = op2(a, Opcode::Or, cmp(a, "ne", x, x), cmp(a, "ne", y, y));
  return SValue::irValue(select(a, nan, op2(a, Opcode::Add, x, y), r));
}

// The predicates return int32 0 or 1, as libdevice's do.
SValue isnanFn(CallArgs& a) {
  ir::Value* x = externArgs(a, 1, Floats::Both)[0];
  return asInt32(a, cmp(a, "ne", x, x));
}
SValue isinfFn(CallArgs& a) {
  ir::Value* x = externArgs(a, 1, Floats::Both)[0];
  return asInt32(a, cmp(a, "eq", op1(a, Opcode::Abs, x), num(a, INFINITY, x->type)));
}
SValue finite(CallArgs& a, Floats f) {
  ir::Value* x = externArgs(a, 1, f)[0];
  return asInt32(a, cmp(a, "lt", op1(a, Opcode::Abs, x), num(a, INFINITY, x->type)));
}
SValue finitefFn(CallArgs& a) { return finite(a, Floats::F32); }
SValue isfinitedFn(CallArgs& a) { return finite(a, Floats::F64); }
SValue signbitFn(CallArgs& a) {
  ir::Value* xb = bitsOf(a, externArgs(a, 1, Floats::Both)[0]);
  int64_t top = xb->type.elem == Scalar::I64 ? 63 : 31;
  ir::Value* s = op2(a, Opcode::Shr, xb, intNum(a, top, xb->type));
  return asInt32(a, op2(a, Opcode::And, s, intNum(a, 1, xb->type)));
}

// round: to the nearest integer, halfway cases away from zero (x - trunc(x) is exact).
ir::Value* roundHalfAway(CallArgs& a, ir::Value* x) {
  ir::Value* t = op1(a, Opcode::Trunc, x);
  ir::Value* half = cmp(a, "ge", op1(a, Opcode::Abs, op2(a, Opcode::Sub, x, t)), num(a, 0.5, x->type));
  ir::Value* step = select(a, cmp(a, "lt", x, num(a, 0.0, x->type)), num(a, -1.0, x->type), num(a, 1.0, x->type));
  return select(a, half, op2(a, Opcode::Add, t, step), t);
}
SValue roundFn(CallArgs& a) { return SValue::irValue(roundHalfAway(a, externArgs(a, 1, Floats::Both)[0])); }
SValue toInt64(CallArgs& a, ir::Value* v) { return SValue::irValue(castElem(*a.cx, v, Type::scalar(Scalar::I64), a.loc)); }
SValue llrintFn(CallArgs& a) { return toInt64(a, op1(a, Opcode::Rint, externArgs(a, 1, Floats::Both)[0])); }
SValue llroundFn(CallArgs& a) { return toInt64(a, roundHalfAway(a, externArgs(a, 1, Floats::Both)[0])); }

// saturatef: clamped to [0, 1]; NaN gives 0 (CUDA's __saturatef).
SValue saturatefFn(CallArgs& a) {
  ir::Value* x = externArgs(a, 1, Floats::F32)[0];
  ir::Value* m = op2(a, Opcode::Min, x, num(a, 1.0, x->type));
  return SValue::irValue(select(a, cmp(a, "gt", x, num(a, 0.0, x->type)), m, num(a, 0.0, x->type)));
}

// The fast_* functions: f32 only, through exp2 (ex2.approx.ftz) and the language's log2, sin, cos and
// division (div.full), as CUDA's __expf, __logf, __powf, __fdividef are built.
ir::Value* f32Arg(CallArgs& a) { return externArgs(a, 1, Floats::F32)[0]; }
ir::Value* scaled(CallArgs& a, Opcode op, ir::Value* x, double k) { return op2(a, Opcode::Mul, op1(a, op, x), num(a, k, x->type)); }
SValue fastExpf(CallArgs& a) {
  ir::Value* x = f32Arg(a);
  return SValue::irValue(op1(a, Opcode::Exp2, op2(a, Opcode::Mul, x, num(a, 1.4426950408889634, x->type))));
}
SValue fastExp10f(CallArgs& a) {
  ir::Value* x = f32Arg(a);
  return SValue::irValue(op1(a, Opcode::Exp2, op2(a, Opcode::Mul, x, num(a, 3.3219280948873622, x->type))));
}
SValue fastLogf(CallArgs& a) { return SValue::irValue(scaled(a, Opcode::Log2, f32Arg(a), 0.6931471805599453)); }
SValue fastLog2f(CallArgs& a) { return SValue::irValue(op1(a, Opcode::Log2, f32Arg(a))); }
SValue fastLog10f(CallArgs& a) { return SValue::irValue(scaled(a, Opcode::Log2, f32Arg(a), 0.30102999566398120)); }
SValue fastSinf(CallArgs& a) { return SValue::irValue(op1(a, Opcode::Sin, f32Arg(a))); }
SValue fastCosf(CallArgs& a) { return SValue::irValue(op1(a, Opcode::Cos, f32Arg(a))); }
SValue fastTanf(CallArgs& a) {
  ir::Value* x = f32Arg(a);
  return SValue::irValue(op2(a, Opcode::Div, op1(a, Opcode::Sin, x), op1(a, Opcode::Cos, x)));
}
// fast_tanhf: kiln's tanh (within ~1.3 ulp, docs/ptx.md), more accurate than CUDA's tanh.approx.f32 (2^-11
// relative), which is an approximation of the same function.
SValue fastTanhf(CallArgs& a) { return SValue::irValue(op1(a, Opcode::Tanh, f32Arg(a))); }
SValue fastPowf(CallArgs& a) {
  auto v = externArgs(a, 2, Floats::F32);
  return SValue::irValue(op1(a, Opcode::Exp2, op2(a, Opcode::Mul, v[1], op1(a, Opcode::Log2, v[0]))));
}
SValue fastDividef(CallArgs& a) {
  auto v = externArgs(a, 2, Floats::F32);
  return SValue::irValue(op2(a, Opcode::Div, v[0], v[1]));
}

// ldexp / scalbn (x, int32 n): x 2^n. f32 is exact (x in f64 times 2^n, n clamped to [-320, 320], then one
// rounding); f64 multiplies by 2^n1 and 2^n2 (n1 = n clamped to the normal exponents), exact but where n
// < -1022 and the result is subnormal (rounded twice: at most one subnormal ulp from C's ldexp).
ir::Value* clampInt(CallArgs& a, ir::Value* v, int64_t lo, int64_t hi) {
  return op2(a, Opcode::Min, op2(a, Opcode::Max, v, intNum(a, lo, v->type)), intNum(a, hi, v->type));
}
ir::Value* pow2Of(CallArgs& a, ir::Value* k, Scalar t) {  // k an i32 within t's normal exponents
  const bool wide = t == Scalar::F64;
  ir::Value* kk = castElem(*a.cx, k, Type::scalar(wide ? Scalar::I64 : Scalar::I32), a.loc);
  ir::Value* biased = op2(a, Opcode::Add, kk, intNum(a, wide ? 1023 : 127, kk->type));
  return bitcastElem(*a.cx, op2(a, Opcode::Shl, biased, intNum(a, wide ? 52 : 23, kk->type)), Type::scalar(t), a.loc);
}
SValue ldexpFn(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* x = toTensor(cx, a.at(0), a.loc, a.display + "'s argument");
  ir::Value* n = toTensor(cx, a.at(1), a.loc, a.display + "'s argument");
  if (!allowed(x->type.elem, Floats::Both) || n->type.elem != Scalar::I32)
    a.fail(a.display + "() takes (fp32, int32) or (fp64, int32) arguments, got (" + tritonDtypeName(x->type.element()) +
           ", " + tritonDtypeName(n->type.element()) + ")");
  auto [bx, bn] = binaryOperands(cx, SValue::irValue(x), SValue::irValue(n), BinaryRule{false, false, false, false},
                                 a.display, a.loc);
  if (bx->type.elem == Scalar::F32) {
    ir::Value* xd = castElem(cx, bx, Type::scalar(Scalar::F64), a.loc);
    ir::Value* r = op2(a, Opcode::Mul, xd, pow2Of(a, clampInt(a, bn, -320, 320), Scalar::F64));
    return SValue::irValue(castElem(cx, r, Type::scalar(Scalar::F32), a.loc));
  }
  ir::Value* nc = clampInt(a, bn, -2200, 2200);
  ir::Value* n1 = clampInt(a, nc, -1022, 1023);
  ir::Value* n2 = clampInt(a, op2(a, Opcode::Sub, nc, n1), -1022, 1023);
  ir::Value* r = op2(a, Opcode::Mul, op2(a, Opcode::Mul, bx, pow2Of(a, n1, Scalar::F64)), pow2Of(a, n2, Scalar::F64));
  return SValue::irValue(r);
}

// ilogb: the unbiased exponent as int32 (subnormals scaled by 2^64 first); INT_MIN for 0 and NaN, INT_MAX
// for inf, as CUDA's. logb: the same as a float; -inf for 0, inf for inf, NaN for NaN.
ir::Value* exponentOf(CallArgs& a, ir::Value* x) {
  const bool wide = x->type.elem == Scalar::F64;
  ir::Value* ax = op1(a, Opcode::Abs, x);
  ir::Value* tiny = cmp(a, "lt", ax, num(a, wide ? 0x1p-1022 : 0x1p-126, x->type));
  ir::Value* scaled = select(a, tiny, op2(a, Opcode::Mul, ax, num(a, 0x1p64, x->type)), ax);
  ir::Value* b = bitsOf(a, scaled);
  ir::Value* field = op2(a, Opcode::And, op2(a, Opcode::Shr, b, intNum(a, wide ? 52 : 23, b->type)),
                         intNum(a, wide ? 0x7FF : 0xFF, b->type));
  ir::Value* e = castElem(*a.cx, op2(a, Opcode::Sub, field, intNum(a, wide ? 1023 : 127, b->type)),
                          Type::scalar(Scalar::I32), a.loc);
  return select(a, tiny, op2(a, Opcode::Sub, e, intNum(a, 64, e->type)), e);
}
SValue ilogbFn(CallArgs& a) {
  ir::Value* x = externArgs(a, 1, Floats::Both)[0];
  ir::Value* e = exponentOf(a, x);
  ir::Value* ax = op1(a, Opcode::Abs, x);
  e = select(a, cmp(a, "eq", ax, num(a, INFINITY, x->type)), intNum(a, INT32_MAX, e->type), e);
  ir::Value* zeroOrNan = op2(a, Opcode::Or, cmp(a, "eq", ax, num(a, 0.0, x->type)), cmp(a, "ne", x, x));
  return SValue::irValue(select(a, zeroOrNan, intNum(a, INT32_MIN, e->type), e));
}
SValue logbFn(CallArgs& a) {
  ir::Value* x = externArgs(a, 1, Floats::Both)[0];
  ir::Value* r = castElem(*a.cx, exponentOf(a, x), x->type.element(), a.loc);
  ir::Value* ax = op1(a, Opcode::Abs, x);
  r = select(a, cmp(a, "eq", ax, num(a, INFINITY, x->type)), ax, r);
  r = select(a, cmp(a, "eq", ax, num(a, 0.0, x->type)), num(a, -INFINITY, x->type), r);
  return SValue::irValue(select(a, cmp(a, "ne", x, x), x, r));
}

// tl.extra.cuda: num_warps and num_threads are constexprs of the compile's num_warps, as in Triton;
// globaltimer and smid read the special registers through the inline PTX Triton uses (so, as there,
// the interpreter refuses them).
SValue numWarpsFn(CallArgs& a) { return SValue::integer(a.cx->numWarps); }
SValue numThreadsFn(CallArgs& a) { return SValue::integer(int64_t(a.cx->numWarps) * 32); }
SValue specialRegister(CallArgs& a, const char* asmText, const char* constraint, Scalar t, bool pure) {
  const BuiltinDef* def = findBuiltin("inline_asm_elementwise", kTl);
  if (!def) throw InternalError(a.loc, a.display + ": the builtin tl.inline_asm_elementwise is missing");
  std::vector<SValue> args = {SValue::string(asmText), SValue::string(constraint), SValue::tuple({}),
                              SValue::dtype(Type::scalar(t)), SValue::boolean(pure), SValue::integer(1)};
  return invokeBuiltin(*a.cx, *def, a.display, std::move(args), {}, a.loc);
}
SValue globaltimerFn(CallArgs& a) { return specialRegister(a, "mov.u64 $0, %globaltimer;", "=l", Scalar::I64, false); }
SValue smidFn(CallArgs& a) { return specialRegister(a, "mov.u32 $0, %smid;", "=r", Scalar::I32, true); }
// Grid dependency control (programmatic dependent launch, sm_90 and later): griddepcontrol through the
// same inline PTX as Triton's. Both are safe without PDL: wait returns once the previous grid is done,
// which a launch without PDL already waits for; launch_dependents is a hint.
SValue gdcWaitFn(CallArgs& a) {
  specialRegister(a, "griddepcontrol.wait; // dummy $0", "=r", Scalar::I32, false);
  return SValue::none();
}
SValue gdcLaunchDependentsFn(CallArgs& a) {
  specialRegister(a, "griddepcontrol.launch_dependents; // dummy $0", "=r", Scalar::I32, false);
  return SValue::none();
}

constexpr BuiltinDef kLibdeviceDefs[] = {
    {"fma_rn", kLibdevice, nullptr, fmaRn},
    {"rcp64h", kLibdevice, nullptr, unsupportedBuiltin},
    {"trunc", kLibdevice, "arg0", unaryFn<Opcode::Trunc>},
    {"saturatef", kLibdevice, "arg0", saturatefFn},
    {"fast_dividef", kLibdevice, "arg0 arg1", fastDividef},
    {"fast_sinf", kLibdevice, "arg0", fastSinf},
    {"fast_cosf", kLibdevice, "arg0", fastCosf},
    {"fast_log2f", kLibdevice, "arg0", fastLog2f},
    {"fast_logf", kLibdevice, "arg0", fastLogf},
    {"fast_expf", kLibdevice, "arg0", fastExpf},
    {"fast_tanf", kLibdevice, "arg0", fastTanf},
    {"fast_tanhf", kLibdevice, "arg0", fastTanhf},
    {"fast_exp10f", kLibdevice, "arg0", fastExp10f},
    {"fast_log10f", kLibdevice, "arg0", fastLog10f},
    {"fast_powf", kLibdevice, "arg0 arg1", fastPowf},
    {"rint", kLibdevice, "arg0", unaryFn<Opcode::Rint>},
    {"llrint", kLibdevice, "arg0", llrintFn},
    {"nearbyint", kLibdevice, "arg0", unaryFn<Opcode::Rint>},
    {"isnan", kLibdevice, "arg0", isnanFn},
    {"signbit", kLibdevice, "arg0", signbitFn},
    {"copysign", kLibdevice, "arg0 arg1", copysignFn},
    {"finitef", kLibdevice, "arg0", finitefFn},
    {"isinf", kLibdevice, "arg0", isinfFn},
    {"nextafter", kLibdevice, nullptr, unsupportedBuiltin},
    {"sinpi", kLibdevice, nullptr, unsupportedBuiltin},
    {"cospi", kLibdevice, nullptr, unsupportedBuiltin},
    {"tan", kLibdevice, "arg0", unaryFn<Opcode::Tan>},
    {"exp10", kLibdevice, "arg0", unaryFn<Opcode::Exp10>},
    {"cosh", kLibdevice, "arg0", unaryFn<Opcode::Cosh>},
    {"sinh", kLibdevice, "arg0", unaryFn<Opcode::Sinh>},
    {"atan2", kLibdevice, "arg0 arg1", binaryFn<Opcode::Atan2>},
    {"atan", kLibdevice, "arg0", unaryFn<Opcode::Atan>},
    {"asin", kLibdevice, "arg0", unaryFn<Opcode::Asin>},
    {"acos", kLibdevice, "arg0", unaryFn<Opcode::Acos>},
    {"log10", kLibdevice, "arg0", unaryFn<Opcode::Log10>},
    {"log1p", kLibdevice, "arg0", unaryFn<Opcode::Log1p>},
    {"acosh", kLibdevice, "arg0", unaryFn<Opcode::Acosh>},
    {"asinh", kLibdevice, "arg0", unaryFn<Opcode::Asinh>},
    {"atanh", kLibdevice, "arg0", unaryFn<Opcode::Atanh>},
    {"expm1", kLibdevice, "arg0", unaryFn<Opcode::Expm1>},
    {"hypot", kLibdevice, "arg0 arg1", binaryFn<Opcode::Hypot>},
    {"rhypot", kLibdevice, nullptr, unsupportedBuiltin},
    {"norm3d", kLibdevice, nullptr, unsupportedBuiltin},
    {"rnorm3d", kLibdevice, nullptr, unsupportedBuiltin},
    {"norm4d", kLibdevice, nullptr, unsupportedBuiltin},
    {"rnorm4d", kLibdevice, nullptr, unsupportedBuiltin},
    {"cbrt", kLibdevice, "arg0", unaryFn<Opcode::Cbrt>},
    {"rcbrt", kLibdevice, nullptr, unsupportedBuiltin},
    {"j0", kLibdevice, "arg0", unaryFn<Opcode::BesselJ0>},
    {"j1", kLibdevice, "arg0", unaryFn<Opcode::BesselJ1>},
    {"y0", kLibdevice, "arg0", unaryFn<Opcode::BesselY0>},
    {"y1", kLibdevice, "arg0", unaryFn<Opcode::BesselY1>},
    {"yn", kLibdevice, nullptr, unsupportedBuiltin},
    {"jn", kLibdevice, nullptr, unsupportedBuiltin},
    {"cyl_bessel_i0", kLibdevice, "arg0", unaryFn<Opcode::BesselI0>},
    {"cyl_bessel_i1", kLibdevice, "arg0", unaryFn<Opcode::BesselI1>},
    {"erfinv", kLibdevice, "arg0", unaryFn<Opcode::Erfinv>},
    {"erfc", kLibdevice, "arg0", unaryFn<Opcode::Erfc>},
    {"erfcx", kLibdevice, nullptr, unsupportedBuiltin},
    {"erfcinv", kLibdevice, "arg0", unaryFn<Opcode::Erfcinv>},
    {"normcdfinv", kLibdevice, "arg0", unaryFn<Opcode::Normcdfinv>},
    {"normcdf", kLibdevice, "arg0", unaryFn<Opcode::Normcdf>},
    {"lgamma", kLibdevice, nullptr, unsupportedBuiltin},
    {"ldexp", kLibdevice, "arg0 arg1", ldexpFn},
    {"scalbn", kLibdevice, "arg0 arg1", ldexpFn},
    {"fmod", kLibdevice, "arg0 arg1", binaryFn<Opcode::Rem>},
    {"remainder", kLibdevice, nullptr, unsupportedBuiltin},
    {"pow", kLibdevice, "arg0 arg1", powFn},
    {"tgamma", kLibdevice, nullptr, unsupportedBuiltin},
    {"round", kLibdevice, "arg0", roundFn},
    {"llround", kLibdevice, "arg0", llroundFn},
    {"fdim", kLibdevice, "arg0 arg1", fdimFn},
    {"ilogb", kLibdevice, "arg0", ilogbFn},
    {"logb", kLibdevice, "arg0", logbFn},
    {"isfinited", kLibdevice, "arg0", isfinitedFn},
    {"globaltimer", kCuda, "", globaltimerFn},
    {"num_threads", kCuda, "", numThreadsFn},
    {"num_warps", kCuda, "", numWarpsFn},
    {"smid", kCuda, "", smidFn},
    {"gdc_wait", kCuda, "", gdcWaitFn},
    {"gdc_launch_dependents", kCuda, "", gdcLaunchDependentsFn},
    {"convert_custom_float8_sm80", kCuda, nullptr, unsupportedBuiltin},
    {"convert_custom_float8_sm90", kCuda, nullptr, unsupportedBuiltin},
};

}  // namespace

std::span<const BuiltinDef> libdeviceBuiltins() { return kLibdeviceDefs; }

}  // namespace kiln::sema
