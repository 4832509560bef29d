// Exact-text tests of instruction selection: the PTX each element-wise op, cast, constant and
// pointer add produces, for the representative dtypes and the edge rules of docs/semantics.md.
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

using ir::Opcode;
using ir::Scalar;

// Selects `op` on fresh registers (sources first, then the result) and returns the body text.
std::string sel(ElementOp op, const Target& target = kSm80) {
  Entry e("k", target);
  std::vector<Reg> src;
  for (Scalar t : operandTypes(op)) src.push_back(e.reg(regClassOf(t)));
  Reg dst = e.reg(op.op == Opcode::Cmp ? RegClass::Pred : regClassOf(op.type));
  selectElementwise(e, op, dst, src);
  return bodyOf(e);
}

ElementOp op(Opcode o, Scalar t) { return ElementOp{o, t, CmpPred::Eq, false, false, {}}; }
ElementOp cmp(CmpPred p, Scalar t) { return ElementOp{Opcode::Cmp, t, p, false, false, {}}; }

std::string cast(Scalar from, Scalar to, bool rtz = false, const Target& target = kSm80) {
  Entry e("k", target);
  Reg s = e.reg(regClassOf(from)), d = e.reg(regClassOf(to));
  selectCast(e, from, to, rtz, d, s, {});
  return bodyOf(e);
}

TEST(PtxIselInt, ArithmeticWrapsNarrowTypes) {
  EXPECT_EQ(sel(op(Opcode::Add, Scalar::I32)), "    add.s32 %r2, %r0, %r1;\n");
  EXPECT_EQ(sel(op(Opcode::Add, Scalar::U32)), "    add.u32 %r2, %r0, %r1;\n");
  EXPECT_EQ(sel(op(Opcode::Mul, Scalar::I8)), "    mul.lo.s32 %r2, %r0, %r1;\n    cvt.s32.s8 %r2, %r2;\n");
  EXPECT_EQ(sel(op(Opcode::Sub, Scalar::U16)), "    sub.u32 %r2, %r0, %r1;\n    and.b32 %r2, %r2, 65535;\n");
  EXPECT_EQ(sel(op(Opcode::Div, Scalar::I64)), "    div.s64 %rd2, %rd0, %rd1;\n");
  EXPECT_EQ(sel(op(Opcode::Min, Scalar::U64)), "    min.u64 %rd2, %rd0, %rd1;\n");
  EXPECT_EQ(sel(op(Opcode::Xor, Scalar::I16)), "    xor.b32 %r2, %r0, %r1;\n");
  EXPECT_EQ(sel(op(Opcode::Neg, Scalar::I8)), "    neg.s32 %r1, %r0;\n    cvt.s32.s8 %r1, %r1;\n");
  EXPECT_EQ(sel(op(Opcode::Not, Scalar::U8)), "    not.b32 %r1, %r0;\n    and.b32 %r1, %r1, 255;\n");
  EXPECT_EQ(sel(op(Opcode::Not, Scalar::I8)), "    not.b32 %r1, %r0;\n");
  EXPECT_EQ(sel(op(Opcode::Abs, Scalar::I8)), "    abs.s32 %r1, %r0;\n    cvt.s32.s8 %r1, %r1;\n");
  EXPECT_EQ(sel(op(Opcode::Abs, Scalar::U32)), "    mov.b32 %r1, %r0;\n");
  EXPECT_EQ(sel(op(Opcode::UMulHi, Scalar::U64)), "    mul.hi.u64 %rd2, %rd0, %rd1;\n");
  EXPECT_EQ(sel(op(Opcode::UMulHi, Scalar::I8)),
            "    and.b32 %r4, %r0, 255;\n    and.b32 %r5, %r1, 255;\n    mul.lo.u32 %r3, %r4, %r5;\n"
            "    shr.u32 %r2, %r3, 8;\n    cvt.s32.s8 %r2, %r2;\n");
}

TEST(PtxIselInt, RemainderByZeroIsTheDividend) {
  EXPECT_EQ(sel(op(Opcode::Rem, Scalar::I32)),
            "    rem.s32 %r3, %r0, %r1;\n    setp.eq.s32 %p0, %r1, 0;\n    selp.b32 %r2, %r0, %r3, %p0;\n");
  EXPECT_EQ(sel(op(Opcode::Rem, Scalar::U64)),
            "    rem.u64 %rd3, %rd0, %rd1;\n    setp.eq.s64 %p0, %rd1, 0;\n    selp.b64 %rd2, %rd0, %rd3, %p0;\n");
}

TEST(PtxIselInt, ShiftsClampAtTheTypeWidth) {
  EXPECT_EQ(sel(op(Opcode::Shl, Scalar::I32)), "    shl.b32 %r2, %r0, %r1;\n");
  EXPECT_EQ(sel(op(Opcode::Shr, Scalar::I32)), "    shr.s32 %r2, %r0, %r1;\n");
  EXPECT_EQ(sel(op(Opcode::Shr, Scalar::U32)), "    shr.u32 %r2, %r0, %r1;\n");
  // a negative i8 amount is a huge unsigned one: keep its low 8 bits, let PTX clamp
  EXPECT_EQ(sel(op(Opcode::Shl, Scalar::I8)),
            "    and.b32 %r3, %r1, 255;\n    shl.b32 %r2, %r0, %r3;\n    cvt.s32.s8 %r2, %r2;\n");
  EXPECT_EQ(sel(op(Opcode::Shl, Scalar::U16)), "    shl.b32 %r2, %r0, %r1;\n    and.b32 %r2, %r2, 65535;\n");
  EXPECT_EQ(sel(op(Opcode::Shr, Scalar::I16)), "    and.b32 %r3, %r1, 65535;\n    shr.s32 %r2, %r0, %r3;\n");
  EXPECT_EQ(sel(op(Opcode::Shr, Scalar::I64)),
            "    min.u64 %rd3, %rd1, 64;\n    cvt.u32.u64 %r0, %rd3;\n    shr.s64 %rd2, %rd0, %r0;\n");
}

TEST(PtxIselInt, CompareAndSelect) {
  EXPECT_EQ(sel(cmp(CmpPred::Lt, Scalar::I8)), "    setp.lt.s32 %p0, %r0, %r1;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Ge, Scalar::U16)), "    setp.ge.u32 %p0, %r0, %r1;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Ne, Scalar::I64)), "    setp.ne.s64 %p0, %rd0, %rd1;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Gt, Scalar::Ptr)), "    setp.gt.u64 %p0, %rd0, %rd1;\n");
  EXPECT_EQ(sel(op(Opcode::Select, Scalar::I32)), "    selp.b32 %r2, %r0, %r1, %p0;\n");
  EXPECT_EQ(sel(op(Opcode::Select, Scalar::Ptr)), "    selp.b64 %rd2, %rd0, %rd1, %p0;\n");
}

TEST(PtxIselInt, BooleansAreArithmeticModuloTwo) {
  EXPECT_EQ(sel(op(Opcode::Add, Scalar::I1)), "    xor.pred %p2, %p0, %p1;\n");
  EXPECT_EQ(sel(op(Opcode::Mul, Scalar::I1)), "    and.pred %p2, %p0, %p1;\n");
  EXPECT_EQ(sel(op(Opcode::Max, Scalar::I1)), "    or.pred %p2, %p0, %p1;\n");
  EXPECT_EQ(sel(op(Opcode::Div, Scalar::I1)), "    not.pred %p3, %p1;\n    or.pred %p2, %p0, %p3;\n");
  EXPECT_EQ(sel(op(Opcode::Shl, Scalar::I1)), "    not.pred %p3, %p1;\n    and.pred %p2, %p0, %p3;\n");
  EXPECT_EQ(sel(op(Opcode::UMulHi, Scalar::I1)), "    mov.pred %p2, 0;\n");
  EXPECT_EQ(sel(op(Opcode::Not, Scalar::I1)), "    not.pred %p1, %p0;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Eq, Scalar::I1)), "    xor.pred %p3, %p0, %p1;\n    not.pred %p2, %p3;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Lt, Scalar::I1)), "    not.pred %p3, %p0;\n    and.pred %p2, %p1, %p3;\n");
  EXPECT_EQ(sel(op(Opcode::Select, Scalar::I1)),
            "    and.pred %p4, %p0, %p1;\n    not.pred %p5, %p0;\n    and.pred %p5, %p5, %p2;\n"
            "    or.pred %p3, %p4, %p5;\n");
}

TEST(PtxIselFloat, F32AndF64) {
  EXPECT_EQ(sel(op(Opcode::Add, Scalar::F32)), "    add.rn.f32 %f2, %f0, %f1;\n");
  EXPECT_EQ(sel(op(Opcode::Div, Scalar::F32)), "    div.full.f32 %f2, %f0, %f1;\n");
  ElementOp rn = op(Opcode::Div, Scalar::F32);
  rn.ieee = true;
  EXPECT_EQ(sel(rn), "    div.rn.f32 %f2, %f0, %f1;\n");
  EXPECT_EQ(sel(op(Opcode::Div, Scalar::F64)), "    div.rn.f64 %fd2, %fd0, %fd1;\n");
  EXPECT_EQ(sel(op(Opcode::Sqrt, Scalar::F32)), "    sqrt.approx.f32 %f1, %f0;\n");
  rn.op = Opcode::Sqrt;
  EXPECT_EQ(sel(rn), "    sqrt.rn.f32 %f1, %f0;\n");
  EXPECT_EQ(sel(op(Opcode::Fma, Scalar::F32)), "    fma.rn.f32 %f3, %f0, %f1, %f2;\n");
  EXPECT_EQ(sel(op(Opcode::Min, Scalar::F32)), "    min.f32 %f2, %f0, %f1;\n");
  ElementOp nan = op(Opcode::Max, Scalar::F32);
  nan.propagateNan = true;
  EXPECT_EQ(sel(nan), "    max.NaN.f32 %f2, %f0, %f1;\n");
  nan.type = Scalar::F64;  // no max.NaN.f64
  EXPECT_EQ(sel(nan),
            "    max.f64 %fd3, %fd0, %fd1;\n    setp.nan.f64 %p0, %fd0, %fd1;\n"
            "    selp.f64 %fd2, 0d7FFFFFFFFFFFFFFF, %fd3, %p0;\n");
  EXPECT_EQ(sel(op(Opcode::Floor, Scalar::F64)), "    cvt.rmi.f64.f64 %fd1, %fd0;\n");
  EXPECT_EQ(sel(op(Opcode::Exp2, Scalar::F32)), "    ex2.approx.ftz.f32 %f1, %f0;\n");
  EXPECT_EQ(sel(op(Opcode::Rsqrt, Scalar::F64)), "    sqrt.rn.f64 %fd1, %fd0;\n    rcp.rn.f64 %fd1, %fd1;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Ne, Scalar::F32)), "    setp.neu.f32 %p0, %f0, %f1;\n");  // NaN != NaN
  EXPECT_EQ(sel(cmp(CmpPred::Le, Scalar::F64)), "    setp.le.f64 %p0, %fd0, %fd1;\n");
  EXPECT_EQ(sel(op(Opcode::Select, Scalar::F32)), "    selp.f32 %f2, %f0, %f1, %p0;\n");
}

TEST(PtxIselFloat, ExpIsCorrectedByTheResidualOfItsArgument) {
  // t = x log2(e), c = x - t ln 2 by two fmas (ln 2 = 0f3F317218 + 0fB102E308), fma(2^t, c, 2^t).
  EXPECT_EQ(sel(op(Opcode::Exp, Scalar::F32)),
            "    mul.rn.f32 %f2, %f0, 0f3FB8AA3B;\n"
            "    fma.rn.f32 %f3, %f2, 0fBF317218, %f0;\n"
            "    fma.rn.f32 %f3, %f2, 0f3102E308, %f3;\n"
            "    ex2.approx.f32 %f4, %f2;\n"
            "    fma.rn.f32 %f5, %f4, %f3, %f4;\n"
            "    setp.eq.f32 %p0, %f4, 0f7F800000;\n"
            "    setp.eq.or.f32 %p0, %f4, 0f00000000, %p0;\n"
            "    selp.f32 %f1, %f4, %f5, %p0;\n");
}

TEST(PtxIselFloat, HalfPrecision) {
  EXPECT_EQ(sel(op(Opcode::Add, Scalar::F16)), "    add.rn.f16 %h2, %h0, %h1;\n");
  EXPECT_EQ(sel(op(Opcode::Floor, Scalar::F16)), "    cvt.rmi.f16.f16 %h1, %h0;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Ne, Scalar::F16)), "    setp.neu.f16 %p0, %h0, %h1;\n");
  // bf16 add/sub/mul are sm_90: on sm_80 an fma with a constant register
  EXPECT_EQ(sel(op(Opcode::Add, Scalar::BF16)), "    mov.b16 %h3, 0x3F80;\n    fma.rn.bf16 %h2, %h0, %h3, %h1;\n");
  EXPECT_EQ(sel(op(Opcode::Sub, Scalar::BF16)), "    mov.b16 %h3, 0xBF80;\n    fma.rn.bf16 %h2, %h1, %h3, %h0;\n");
  EXPECT_EQ(sel(op(Opcode::Mul, Scalar::BF16)), "    mov.b16 %h3, 0x8000;\n    fma.rn.bf16 %h2, %h0, %h1, %h3;\n");
  EXPECT_EQ(sel(op(Opcode::Add, Scalar::BF16), kSm90a), "    add.rn.bf16 %h2, %h0, %h1;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Lt, Scalar::BF16)),
            "    cvt.f32.bf16 %f0, %h0;\n    cvt.f32.bf16 %f1, %h1;\n    setp.lt.f32 %p0, %f0, %f1;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Lt, Scalar::BF16), kSm90a), "    setp.lt.bf16 %p0, %h0, %h1;\n");
  ElementOp nan = op(Opcode::Min, Scalar::BF16);
  nan.propagateNan = true;
  EXPECT_EQ(sel(nan), "    min.NaN.bf16 %h2, %h0, %h1;\n");
  // everything else: widen exactly, compute in f32, round once
  EXPECT_EQ(sel(op(Opcode::Div, Scalar::F16)),
            "    cvt.f32.f16 %f0, %h0;\n    cvt.f32.f16 %f1, %h1;\n    div.full.f32 %f2, %f0, %f1;\n"
            "    cvt.rn.f16.f32 %h2, %f2;\n");
}

TEST(PtxIselFloat, Fp8) {
  EXPECT_EQ(sel(op(Opcode::Neg, Scalar::F8E4M3)), "    xor.b16 %h1, %h0, 0x80;\n");
  EXPECT_EQ(sel(op(Opcode::Abs, Scalar::F8E5M2)), "    and.b16 %h1, %h0, 0x7F;\n");
  EXPECT_EQ(sel(cmp(CmpPred::Eq, Scalar::F8E5M2)),
            "    shl.b16 %h2, %h0, 8;\n    cvt.f32.f16 %f0, %h2;\n    shl.b16 %h3, %h1, 8;\n"
            "    cvt.f32.f16 %f1, %h3;\n    setp.eq.f32 %p0, %f0, %f1;\n");
  EXPECT_EQ(sel(op(Opcode::Add, Scalar::F8E4M3), kSm90a),
            "    cvt.rn.f16x2.e4m3x2 %r0, %h0;\n    mov.b32 {%h3, %h4}, %r0;\n    cvt.f32.f16 %f0, %h3;\n"
            "    cvt.rn.f16x2.e4m3x2 %r1, %h1;\n    mov.b32 {%h5, %h6}, %r1;\n    cvt.f32.f16 %f1, %h5;\n"
            "    add.rn.f32 %f2, %f0, %f1;\n    mov.f32 %f3, 0f00000000;\n"
            "    cvt.rn.satfinite.e4m3x2.f32 %h2, %f3, %f2;\n");
  try {
    sel(op(Opcode::Add, Scalar::F8E4M3), kSm80);
    ADD_FAILURE() << "fp8 arithmetic on sm_80 must be a CompileError";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), "rounding to f8e4m3 needs sm_89 or newer (target sm_80)");
  }
}

TEST(PtxIselFloat, F64TranscendentalsAreBranchFreeSequences) {
  // math_f64*.cpp: straight-line code without .approx instructions, the result moved into the
  // destination last. Accuracy: math_f64_test (simulator) and device_test (GPU).
  for (Opcode o : {Opcode::Exp, Opcode::Exp2, Opcode::Log, Opcode::Log2, Opcode::Sin, Opcode::Cos, Opcode::Tanh,
                   Opcode::Erf}) {
    std::string body = sel(op(o, Scalar::F64));
    SCOPED_TRACE(ir::info(o).spelling);
    EXPECT_EQ(body.rfind("    // f64 " + std::string(ir::info(o).spelling) + "\n", 0), 0u);
    EXPECT_EQ(body.find("bra"), std::string::npos);
    EXPECT_EQ(body.find("approx"), std::string::npos);
    size_t last = body.rfind("    mov.f64 %fd1, %fd");
    EXPECT_NE(last, std::string::npos);
    EXPECT_EQ(body.find('\n', last), body.size() - 1);
  }
  // exp: clamp, k = rint(x log2 e), r = x - k ln 2 in two fmas (the first exact).
  EXPECT_EQ(sel(op(Opcode::Exp, Scalar::F64)).substr(0, 345),
            "    // f64 exp\n"
            "    min.f64 %fd2, %fd0, 0d4086300000000000;\n"
            "    max.f64 %fd3, %fd2, 0dC087500000000000;\n"
            "    mul.rn.f64 %fd4, %fd3, 0d3FF71547652B82FE;\n"
            "    cvt.rni.f64.f64 %fd5, %fd4;\n"
            "    neg.f64 %fd6, %fd5;\n"
            "    fma.rn.f64 %fd7, %fd6, 0d3FE62E42FEFA39EF, %fd3;\n"
            "    fma.rn.f64 %fd8, %fd6, 0d3C7ABC9E3B39803F, %fd7;\n"
            "    mul.rn.f64 %fd9, %fd8, %fd8;\n");
}

TEST(PtxIselFloat, MisuseIsAnInternalError) {
  EXPECT_THROW(sel(op(Opcode::And, Scalar::F32)), InternalError);
  EXPECT_THROW(sel(op(Opcode::Exp, Scalar::I32)), InternalError);
  EXPECT_THROW(sel(op(Opcode::Add, Scalar::Ptr)), InternalError);
  Entry e("k", kSm80);
  Reg a = e.reg(RegClass::B32), b = e.reg(RegClass::F32);
  Reg ab[] = {a, b};
  EXPECT_THROW(selectElementwise(e, op(Opcode::Add, Scalar::I32), a, ab), InternalError);  // f32 operand
  EXPECT_THROW(selectElementwise(e, op(Opcode::Add, Scalar::I32), a, std::span<const Reg>(ab, 1)), InternalError);
  EXPECT_THROW(selectElementwise(e, op(Opcode::Load, Scalar::I32), a, ab), InternalError);
}

TEST(PtxIselCast, Conversions) {
  EXPECT_EQ(cast(Scalar::F32, Scalar::F16), "    cvt.rn.f16.f32 %h0, %f0;\n");
  EXPECT_EQ(cast(Scalar::F32, Scalar::BF16, true), "    cvt.rz.bf16.f32 %h0, %f0;\n");
  EXPECT_EQ(cast(Scalar::F16, Scalar::F32), "    cvt.f32.f16 %f0, %h0;\n");
  EXPECT_EQ(cast(Scalar::F16, Scalar::F64), "    cvt.f64.f16 %fd0, %h0;\n");
  EXPECT_EQ(cast(Scalar::F8E5M2, Scalar::F16), "    shl.b16 %h1, %h0, 8;\n");
  EXPECT_EQ(cast(Scalar::I32, Scalar::F32), "    cvt.rn.f32.s32 %f0, %r0;\n");
  EXPECT_EQ(cast(Scalar::U64, Scalar::F16, true), "    cvt.rz.f16.u64 %h0, %rd0;\n");
  EXPECT_EQ(cast(Scalar::I32, Scalar::BF16, false, kSm90a), "    cvt.rn.bf16.s32 %h0, %r0;\n");
  // sm_80 has no int -> bf16: exactly to f64, rounded to odd at f32, rounded once to bf16
  EXPECT_EQ(cast(Scalar::I32, Scalar::BF16),
            "    cvt.rn.f64.s32 %fd0, %r0;\n    cvt.rz.f32.f64 %f0, %fd0;\n    cvt.f64.f32 %fd1, %f0;\n"
            "    setp.neu.f64 %p0, %fd1, %fd0;\n    mov.b32 %r1, %f0;\n    @%p0 or.b32 %r1, %r1, 1;\n"
            "    mov.b32 %f0, %r1;\n    cvt.rn.bf16.f32 %h0, %f0;\n");
  EXPECT_EQ(cast(Scalar::F32, Scalar::I32),
            "    cvt.rzi.s32.f32 %r0, %f0;\n    setp.nan.f32 %p0, %f0, %f0;\n    selp.b32 %r0, 0, %r0, %p0;\n");
  EXPECT_EQ(cast(Scalar::F64, Scalar::U8),
            "    cvt.rzi.u32.f64 %r0, %fd0;\n    min.u32 %r0, %r0, 255;\n    setp.nan.f64 %p0, %fd0, %fd0;\n"
            "    selp.b32 %r0, 0, %r0, %p0;\n");
  EXPECT_EQ(cast(Scalar::I8, Scalar::I64), "    cvt.s64.s32 %rd0, %r0;\n");
  EXPECT_EQ(cast(Scalar::U32, Scalar::I64), "    cvt.u64.u32 %rd0, %r0;\n");
  EXPECT_EQ(cast(Scalar::I64, Scalar::U8), "    cvt.u32.u64 %r0, %rd0;\n    and.b32 %r0, %r0, 255;\n");
  EXPECT_EQ(cast(Scalar::I8, Scalar::I16), "    mov.b32 %r1, %r0;\n");  // already in range
  EXPECT_EQ(cast(Scalar::I8, Scalar::U16), "    mov.b32 %r1, %r0;\n    and.b32 %r1, %r1, 65535;\n");
  EXPECT_EQ(cast(Scalar::I32, Scalar::I1), "    setp.ne.s32 %p0, %r0, 0;\n");
  EXPECT_EQ(cast(Scalar::F32, Scalar::I1), "    setp.neu.f32 %p0, %f0, 0f00000000;\n");
  EXPECT_EQ(cast(Scalar::BF16, Scalar::I1), "    and.b16 %h1, %h0, 0x7FFF;\n    setp.ne.b16 %p0, %h1, 0;\n");
  EXPECT_EQ(cast(Scalar::I1, Scalar::F16), "    selp.b16 %h0, 0x3C00, 0x0, %p0;\n");
  EXPECT_EQ(cast(Scalar::I1, Scalar::F64), "    selp.f64 %fd0, 0d3FF0000000000000, 0d0000000000000000, %p0;\n");
  EXPECT_EQ(cast(Scalar::F32, Scalar::F8E5M2, false, kSm90a),
            "    mov.f32 %f1, 0f00000000;\n    cvt.rn.satfinite.e5m2x2.f32 %h1, %f1, %f0;\n    abs.f32 %f2, %f0;\n"
            "    setp.ge.f32 %p0, %f2, 0f47700000;\n    and.b16 %h2, %h1, 0x80;\n    or.b16 %h2, %h2, 0x7C;\n"
            "    selp.b16 %h0, %h2, %h1, %p0;\n");
  EXPECT_THROW(cast(Scalar::F32, Scalar::F8E4M3, true, kSm90a), CompileError);  // no rtz to fp8
  EXPECT_THROW(cast(Scalar::F16, Scalar::F8E4M3, false, kSm80), CompileError);
}

TEST(PtxIselCast, Bitcasts) {
  auto bitcast = [](Scalar from, Scalar to) {
    Entry e("k", kSm80);
    Reg s = e.reg(regClassOf(from)), d = e.reg(regClassOf(to));
    selectBitcast(e, from, to, d, s);
    return bodyOf(e);
  };
  EXPECT_EQ(bitcast(Scalar::F32, Scalar::I32), "    mov.b32 %r0, %f0;\n");
  EXPECT_EQ(bitcast(Scalar::I32, Scalar::F32), "    mov.b32 %f0, %r0;\n");
  EXPECT_EQ(bitcast(Scalar::F16, Scalar::I16), "    cvt.s32.s16 %r0, %h0;\n");
  EXPECT_EQ(bitcast(Scalar::U16, Scalar::BF16), "    cvt.u16.u32 %h0, %r0;\n");
  EXPECT_EQ(bitcast(Scalar::I8, Scalar::F8E4M3), "    cvt.u16.u32 %h0, %r0;\n    and.b16 %h0, %h0, 0xFF;\n");
  EXPECT_EQ(bitcast(Scalar::I8, Scalar::U8), "    mov.b32 %r1, %r0;\n    and.b32 %r1, %r1, 255;\n");
  EXPECT_EQ(bitcast(Scalar::Ptr, Scalar::I64), "    mov.b64 %rd1, %rd0;\n");
  EXPECT_EQ(bitcast(Scalar::F64, Scalar::U64), "    mov.b64 %rd0, %fd0;\n");
  EXPECT_THROW(bitcast(Scalar::F32, Scalar::I16), InternalError);
}

TEST(PtxIselMisc, ConstantsAndPointerArithmetic) {
  auto constant = [](Scalar t, ir::Elem v) {
    Entry e("k", kSm80);
    selectConstant(e, t, ir::normalize(t, v), e.reg(regClassOf(t)));
    return bodyOf(e);
  };
  EXPECT_EQ(constant(Scalar::F32, ir::floatElem(1.0)), "    mov.f32 %f0, 0f3F800000;\n");
  EXPECT_EQ(constant(Scalar::F64, ir::floatElem(-0.0)), "    mov.f64 %fd0, 0d8000000000000000;\n");
  EXPECT_EQ(constant(Scalar::F16, ir::floatElem(1.0)), "    mov.b16 %h0, 0x3C00;\n");
  EXPECT_EQ(constant(Scalar::BF16, ir::floatElem(-2.0)), "    mov.b16 %h0, 0xC000;\n");
  EXPECT_EQ(constant(Scalar::F8E4M3, ir::floatElem(1000.0)), "    mov.b16 %h0, 0x7E;\n");  // saturates at 448
  EXPECT_EQ(constant(Scalar::F32, ir::fromBits(Scalar::F32, 0x7FA00001)), "    mov.f32 %f0, 0f7FA00001;\n");
  EXPECT_EQ(constant(Scalar::I32, ir::intElem(-1)), "    mov.b32 %r0, -1;\n");
  EXPECT_EQ(constant(Scalar::U32, ir::intElem(-1)), "    mov.b32 %r0, 0xFFFFFFFF;\n");
  EXPECT_EQ(constant(Scalar::I8, ir::intElem(200)), "    mov.b32 %r0, -56;\n");
  EXPECT_EQ(constant(Scalar::U64, ir::intElem(-2)), "    mov.b64 %rd0, 0xFFFFFFFFFFFFFFFE;\n");
  EXPECT_EQ(constant(Scalar::I64, ir::intElem(INT64_MIN)), "    mov.b64 %rd0, -9223372036854775808;\n");
  EXPECT_EQ(constant(Scalar::I1, ir::intElem(1)), "    mov.pred %p0, 1;\n");
  auto ptrAdd = [](Scalar t, int bytes) {
    Entry e("k", kSm80);
    Reg p = e.reg(RegClass::B64), o = e.reg(regClassOf(t)), d = e.reg(RegClass::B64);
    selectPtrAdd(e, t, bytes, d, p, o);
    return bodyOf(e);
  };
  EXPECT_EQ(ptrAdd(Scalar::I32, 4), "    mad.wide.s32 %rd1, %r0, 4, %rd0;\n");
  EXPECT_EQ(ptrAdd(Scalar::U16, 2), "    mad.wide.u32 %rd1, %r0, 2, %rd0;\n");
  EXPECT_EQ(ptrAdd(Scalar::I64, 8), "    mad.lo.s64 %rd2, %rd1, 8, %rd0;\n");
  EXPECT_EQ(ptrAdd(Scalar::I1, 2), "    selp.b64 %rd2, 2, 0, %p0;\n    add.s64 %rd1, %rd0, %rd2;\n");
}

TEST(PtxIselMisc, AttributesOfIrOps) {
  ir::Op c(Opcode::Cmp, {});
  c.setAttr("pred", std::string("ge"));
  EXPECT_EQ(elementOpOf(c, Scalar::F32).pred, CmpPred::Ge);
  c.setAttr("pred", std::string("bogus"));
  EXPECT_THROW(elementOpOf(c, Scalar::F32), InternalError);
  ir::Op mx(Opcode::Max, {});
  EXPECT_FALSE(elementOpOf(mx, Scalar::F32).propagateNan);
  mx.setAttr("propagate_nan", int64_t(1));
  EXPECT_TRUE(elementOpOf(mx, Scalar::F32).propagateNan);
  ir::Op dv(Opcode::Div, {});
  EXPECT_FALSE(elementOpOf(dv, Scalar::F32).ieee);
  dv.setAttr("rounding", std::string("rn"));
  EXPECT_TRUE(elementOpOf(dv, Scalar::F32).ieee);
  ir::Op ld(Opcode::Load, {});
  EXPECT_THROW(elementOpOf(ld, Scalar::F32), InternalError);
  EXPECT_EQ(regClassOf(Scalar::U16), RegClass::B32);
  EXPECT_EQ(regClassOf(Scalar::F8E5M2), RegClass::B16);
  EXPECT_EQ(paramTypeOf(Scalar::I8), ParamType::S8);
  EXPECT_EQ(paramTypeOf(Scalar::Ptr), ParamType::Ptr);
  EXPECT_EQ(paramTypeOf(Scalar::F8E4M3), ParamType::B8);  // loads into .b16, as fp8 registers are
}

}  // namespace
}  // namespace kiln::ptx::test
