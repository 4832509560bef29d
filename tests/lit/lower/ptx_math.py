# Golden PTX of math (src/ptx/isel_math.cpp, src/ptx/math_f64*.cpp; accuracies in docs/ptx.md).
# f32: exp is ex2.approx of t = x log2(e) corrected by the residual x - t ln 2; sqrt and / are the approx
# forms unless the kernel asks for sqrt_rn / div_rn; log and sin are polynomial sequences (no
# sin.approx, lg2.approx only for the special inputs). f64 has no transcendental instruction:
# branch-free sequences with no .approx anywhere.
#
# RUN: kiln compile %s --kernel unary --signature "*fp32:16, *fp32:16, 128, \"exp\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=EXP
# RUN: kiln compile %s --kernel unary --signature "*fp32:16, *fp32:16, 128, \"sqrt\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SQRT
# RUN: kiln compile %s --kernel unary --signature "*fp32:16, *fp32:16, 128, \"sqrt_rn\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SQRTRN
# RUN: kiln compile %s --kernel unary --signature "*fp32:16, *fp32:16, 128, \"div\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=DIV
# RUN: kiln compile %s --kernel unary --signature "*fp32:16, *fp32:16, 512, \"div_sum\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=DIVSUM
# RUN: kiln compile %s --kernel unary --signature "*fp32:16, *fp32:16, 128, \"div_rn\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=DIVRN
# RUN: kiln compile %s --kernel unary --signature "*fp32:16, *fp32:16, 128, \"log\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=LOG
# RUN: kiln compile %s --kernel unary --signature "*fp32:16, *fp32:16, 128, \"sin\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SIN
# RUN: kiln compile %s --kernel unary --signature "*fp64:16, *fp64:16, 128, \"exp\"" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=EXP64
# RUN: kiln compile %s --kernel unary --signature "*fp64:16, *fp64:16, 128, \"log\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=LOG64
# RUN: kiln compile %s --kernel unary --signature "*fp64:16, *fp64:16, 128, \"sigmoid\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SIGMOID64
# RUN: kiln compile %s --kernel unary --signature "*fp64:16, *fp64:16, 128, \"sin\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SIN64
# RUN: kiln compile %s --kernel all_f64 --signature "*fp64:16, *fp64:16, 128" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=NOAPPROX
# RUN: kiln compile %s --kernel unary --signature "*fp64:16, *fp64:16, 128, \"erf\"" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=ERF64

# EXP:         ld.global.f32 [[X:%f[0-9]+]], [%rd{{[0-9]+}}];
# EXP-NEXT:    mul.rn.f32 [[T:%f[0-9]+]], [[X]], 0f3FB8AA3B;
# EXP-NEXT:    fma.rn.f32 [[C:%f[0-9]+]], [[T]], 0fBF317218, [[X]];
# EXP-NEXT:    fma.rn.f32 [[C]], [[T]], 0f3102E308, [[C]];
# EXP-NEXT:    ex2.approx.f32 [[R:%f[0-9]+]], [[T]];
# EXP-NEXT:    fma.rn.f32 [[Y:%f[0-9]+]], [[R]], [[C]], [[R]];
# EXP:         selp.f32 [[OUT:%f[0-9]+]], [[R]], [[Y]], %p{{[0-9]+}};
# EXP:         st.global.f32 [%rd{{[0-9]+}}], [[OUT]];

# SQRT:        sqrt.approx.f32
# SQRTRN-NOT:  approx
# SQRTRN:      sqrt.rn.f32
# SQRTRN-NOT:  approx
# DIV:         div.full.f32
# DIVRN-NOT:   div.full
# DIVRN:       div.rn.f32
# DIVRN-NOT:   div.full

# LOG:         sub.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0x3F3504F3;
# LOG-COUNT-8: fma.rn.f32
# LOG:         lg2.approx.f32 [[G:%f[0-9]+]], [[X:%f[0-9]+]];
# LOG:         setp.ge.f32 [[NORMAL:%p[0-9]+]], [[X]], 0f00800000;
# LOG-NEXT:    setp.lt.and.f32 [[NORMAL]], [[X]], 0f7F800000, [[NORMAL]];
# LOG-NEXT:    selp.f32 %f{{[0-9]+}}, %f{{[0-9]+}}, [[G]], [[NORMAL]];

# SIN:         mul.rn.f32 [[K:%f[0-9]+]], %f{{[0-9]+}}, 0f3F22F983;
# SIN-NEXT:    cvt.rni.f32.f32 [[K]], [[K]];
# SIN-NEXT:    fma.rn.f32 [[R:%f[0-9]+]], [[K]], 0fBFC90FDB, %f{{[0-9]+}};
# SIN-NEXT:    fma.rn.f32 [[R]], [[K]], 0f333BBD2E, [[R]];
# SIN-NEXT:    fma.rn.f32 [[R]], [[K]], 0f26F72CED, [[R]];
# SIN-NOT:     sin.approx

# A divisor all quotients share (the sum, broadcast): scaled into [2^-126, 2^126] and inverted once as
# div.full.f32 does, then two multiplies per quotient (4 registers a thread: 512 elements, 4 warps).
# DIVSUM-NOT:  div.full
# DIVSUM:      abs.f32 [[A:%f[0-9]+]], [[D:%f[0-9]+]];
# DIVSUM-NEXT: setp.gt.f32 [[BIG:%p[0-9]+]], [[A]], 0f7E800000;
# DIVSUM-NEXT: setp.lt.f32 [[TINY:%p[0-9]+]], [[A]], 0f00800000;
# DIVSUM-NEXT: selp.f32 [[S:%f[0-9]+]], 0f3E800000, 0f3F800000, [[BIG]];
# DIVSUM-NEXT: selp.f32 [[S]], 0f4B800000, [[S]], [[TINY]];
# DIVSUM-NEXT: mul.rn.f32 [[DS:%f[0-9]+]], [[D]], [[S]];
# DIVSUM-NEXT: rcp.approx.ftz.f32 [[Q:%f[0-9]+]], [[DS]];
# DIVSUM-NEXT: mul.rn.f32 [[XS:%f[0-9]+]], %f{{[0-9]+}}, [[S]];
# DIVSUM-NEXT: mul.rn.f32 %f{{[0-9]+}}, [[XS]], [[Q]];
# DIVSUM-COUNT-3: mul.rn.f32 %f{{[0-9]+}}, %f{{[0-9]+}}, [[S]];
# DIVSUM-NOT:  rcp
# DIVSUM-NOT:  div.full

# f64 exp: clamp, k = rint(x log2 e), x - k ln 2 in two fmas, a degree-10 polynomial, 2^k as two
# exponent fields (so subnormal results round once), NaN selected through.
# EXP64:       ld.global.f64 [[X:%fd[0-9]+]], [%rd{{[0-9]+}}];
# EXP64-NEXT:  // f64 exp
# EXP64-NEXT:  min.f64 [[A:%fd[0-9]+]], [[X]], 0d4086300000000000;
# EXP64-NEXT:  max.f64 [[XC:%fd[0-9]+]], [[A]], 0dC087500000000000;
# EXP64-NEXT:  mul.rn.f64 [[T:%fd[0-9]+]], [[XC]], 0d3FF71547652B82FE;
# EXP64-NEXT:  cvt.rni.f64.f64 [[K:%fd[0-9]+]], [[T]];
# EXP64-NEXT:  neg.f64 [[NK:%fd[0-9]+]], [[K]];
# EXP64-NEXT:  fma.rn.f64 [[R1:%fd[0-9]+]], [[NK]], 0d3FE62E42FEFA39EF, [[XC]];
# EXP64-NEXT:  fma.rn.f64 {{%fd[0-9]+}}, [[NK]], 0d3C7ABC9E3B39803F, [[R1]];
# EXP64-COUNT-10: fma.rn.f64
# EXP64:       cvt.rzi.s32.f64 [[KI:%r[0-9]+]], [[K]];
# EXP64-NEXT:  shr.s32 [[K1:%r[0-9]+]], [[KI]], 1;
# EXP64-NEXT:  sub.s32 {{%r[0-9]+}}, [[KI]], [[K1]];
# EXP64-COUNT-2: shl.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 52;
# EXP64:       setp.nan.f64 [[NAN:%p[0-9]+]], [[X]], [[X]];
# EXP64-NEXT:  selp.f64 [[Y:%fd[0-9]+]], [[X]], {{%fd[0-9]+}}, [[NAN]];
# EXP64-NEXT:  mov.f64 [[D:%fd[0-9]+]], [[Y]];
# EXP64:       st.global.f64 [%rd{{[0-9]+}}], [[D]];

# f64 log: subnormals scaled by 2^54, exponent and mantissa split on the integer bits, s = f/(2+f),
# then the special inputs (0 -> -inf, negative -> NaN, +inf and NaN themselves).
# LOG64:       // f64 log
# LOG64-NEXT:  setp.lt.f64 [[TINY:%p[0-9]+]], [[X:%fd[0-9]+]], 0d0010000000000000;
# LOG64-NEXT:  mul.rn.f64 [[XS:%fd[0-9]+]], [[X]], 0d4350000000000000;
# LOG64:       sub.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 0x3FE6A09E667F3BCD;
# LOG64:       div.rn.f64
# LOG64:       setp.eq.f64 [[ZERO:%p[0-9]+]], [[X]], 0d0000000000000000;
# LOG64-NEXT:  selp.f64 {{%fd[0-9]+}}, 0dFFF0000000000000, {{%fd[0-9]+}}, [[ZERO]];
# LOG64-NEXT:  setp.lt.f64 [[NEG:%p[0-9]+]], [[X]], 0d0000000000000000;
# LOG64-NEXT:  selp.f64 {{%fd[0-9]+}}, 0d7FFFFFFFFFFFFFFF, {{%fd[0-9]+}}, [[NEG]];
# LOG64-NEXT:  setp.gtu.f64 [[INFNAN:%p[0-9]+]], [[X]], 0d7FEFFFFFFFFFFFFF;
# LOG64-NEXT:  selp.f64 {{%fd[0-9]+}}, [[X]], {{%fd[0-9]+}}, [[INFNAN]];

# sigmoid = 1 / (1 + exp(-x)) (sema), on f64 through the exp sequence and div.rn.f64.
# SIGMOID64:   neg.f64 [[NX:%fd[0-9]+]], %fd0;
# SIGMOID64-NEXT: // f64 exp
# SIGMOID64:   mov.f64 [[E:%fd[0-9]+]], {{%fd[0-9]+}};
# SIGMOID64:   add.rn.f64 [[DEN:%fd[0-9]+]], [[E]], [[ONE:%fd[0-9]+]];
# SIGMOID64-NEXT: div.rn.f64 {{%fd[0-9]+}}, [[ONE]], [[DEN]];

# SIN64:       // f64 sin
# SIN64:       cvt.rni.f64.f64
# SIN64:       fma.rn.f64 {{%fd[0-9]+}}, {{%fd[0-9]+}}, 0d3FF921FB54442D18, {{%fd[0-9]+}};
# SIN64:       cvt.rzi.s64.f64
# SIN64-NOT:   bra

# ERF64:       // f64 erf
# ERF64-COUNT-24: fma.rn.f64
# ERF64:       copysign.f64

# Every f64 function in one kernel: a sequence each, no .approx instruction and no branch.
# NOAPPROX:    .entry all_f64
# NOAPPROX-NOT: approx
# NOAPPROX-NOT: bra
# NOAPPROX:    // f64 exp
# NOAPPROX-NOT: approx
# NOAPPROX-NOT: bra
# NOAPPROX:    // f64 exp2
# NOAPPROX-NOT: approx
# NOAPPROX-NOT: bra
# NOAPPROX:    // f64 log
# NOAPPROX-NOT: approx
# NOAPPROX-NOT: bra
# NOAPPROX:    // f64 log2
# NOAPPROX-NOT: approx
# NOAPPROX-NOT: bra
# NOAPPROX:    // f64 sin
# NOAPPROX-NOT: approx
# NOAPPROX-NOT: bra
# NOAPPROX:    // f64 cos
# NOAPPROX-NOT: approx
# NOAPPROX-NOT: bra
# NOAPPROX:    // f64 erf
# NOAPPROX-NOT: approx
# NOAPPROX-NOT: bra
# NOAPPROX:    st.global.f64
import triton
import triton.language as tl


@triton.jit
def unary(x_ptr, out_ptr, BLOCK: tl.constexpr, OP: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if OP == "exp":
        y = tl.exp(x)
    elif OP == "sqrt":
        y = tl.sqrt(x)
    elif OP == "sqrt_rn":
        y = tl.sqrt_rn(x)
    elif OP == "div_rn":
        y = tl.div_rn(x, x + 1.0)
    elif OP == "div":
        y = x / (x + 1.0)
    elif OP == "div_sum":
        y = x / tl.sum(x, axis=0)
    elif OP == "log":
        y = tl.log(x)
    elif OP == "sigmoid":
        y = tl.sigmoid(x)
    elif OP == "erf":
        y = tl.erf(x)
    else:
        y = tl.sin(x)
    tl.store(out_ptr + offs, y)


@triton.jit
def all_f64(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.exp(x) + tl.exp2(x) + tl.log(x) + tl.log2(x) + tl.sin(x) + tl.cos(x) + tl.erf(x)
    tl.store(out_ptr + offs, y)
