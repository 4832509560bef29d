# Golden PTX of the random numbers (src/sema/builtins_random.cpp): tl.randint expands into Philox's ten
# rounds of integer ops, each two mul.hi.u32 and two mul.lo.u32 by the round multipliers 0xD2511F53 and
# 0xCD9E8D57 (3528531795, 3449720151), the key words stepped by the Weyl constants; tl.randn adds the
# uniform conversion and Box-Muller. Both are assembled by ptxas for sm_80 and sm_90a.
#
# REQUIRES: ptxas
# RUN: kiln compile %s --kernel randint_kernel --signature "*i32:16, i64, 256" --emit ptx --arch sm_80 -o %t.int80.ptx
# RUN: FileCheck %s --check-prefix=INT < %t.int80.ptx
# RUN: %ptxas -arch=sm_80 %t.int80.ptx -o %t.int80.cubin
# RUN: kiln compile %s --kernel randint_kernel --signature "*i32:16, i64, 256" --emit ptx --arch sm_90a -o %t.int90.ptx
# RUN: %ptxas -arch=sm_90a %t.int90.ptx -o %t.int90.cubin
# RUN: kiln compile %s --kernel randn_kernel --signature "*fp32:16, i32, *i64:16, 128" --emit ptx --arch sm_80 -o %t.n80.ptx
# RUN: FileCheck %s --check-prefix=NORMAL < %t.n80.ptx
# RUN: %ptxas -arch=sm_80 %t.n80.ptx -o %t.n80.cubin
# RUN: kiln compile %s --kernel randn_kernel --signature "*fp32:16, i32, *i64:16, 128" --emit ptx --arch sm_90a -o %t.n90.ptx
# RUN: %ptxas -arch=sm_90a %t.n90.ptx -o %t.n90.cubin
# RUN: kiln compile %s --kernel philox64_kernel --signature "*u64:16, *i64:16, i64, 64" --emit ptx --arch sm_90a -o %t.p90.ptx
# RUN: FileCheck %s --check-prefix=PHILOX64 < %t.p90.ptx
# RUN: %ptxas -arch=sm_90a %t.p90.ptx -o %t.p90.cubin
# RUN: kiln compile %s --kernel philox64_kernel --signature "*u64:16, *i64:16, i64, 64" --emit ptx --arch sm_80 -o %t.p80.ptx
# RUN: %ptxas -arch=sm_80 %t.p80.ptx -o %t.p80.cubin
import triton
import triton.language as tl


@triton.jit
def randint_kernel(out, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.randint(seed, offs))


@triton.jit
def randn_kernel(out, seed, offsets, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.randn(seed, tl.load(offsets + offs)))



@triton.jit
def philox64_kernel(out, counters, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    c = tl.load(counters + offs)
    a, b, x, d = tl.random.philox(seed, c, c + 1, c + 2, c + 3, n_rounds=3)
    tl.store(out + offs, a ^ b ^ x ^ d)


# The key is the seed's two 32-bit halves; round 1 starts with mul.hi by 0xD2511F53 (its
# 0xCD9E8D57 half is folded away: counter word 2 is 0), the key is stepped by the Weyl constants.
# INT:      ld.param.s64 [[SEED:%rd[0-9]+]], [randint_kernel_seed];
# INT:      shr.u64 [[HI:%rd[0-9]+]], {{%rd[0-9]+}}, %r{{[0-9]+}};
# INT-NEXT: cvt.u32.u64 [[K0:%r[0-9]+]], {{%rd[0-9]+}};
# INT-NEXT: cvt.u32.u64 [[K1:%r[0-9]+]], [[HI]];
# INT-NEXT: mov.b32 [[MA:%r[0-9]+]], 0xD2511F53;
# INT-NEXT: mul.hi.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[MA]];
# INT-NEXT: mul.hi.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[MA]];
# INT-NEXT: xor.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[K1]];
# INT-NEXT: xor.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[K1]];
# INT-NEXT: mul.lo.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[MA]];
# INT-NEXT: mul.lo.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[MA]];
# INT-NEXT: mov.b32 [[WA:%r[0-9]+]], 0x9E3779B9;
# INT-NEXT: add.u32 {{%r[0-9]+}}, [[K0]], [[WA]];
# INT-NEXT: mov.b32 [[WB:%r[0-9]+]], 0xBB67AE85;
# INT-NEXT: add.u32 {{%r[0-9]+}}, [[K1]], [[WB]];
# INT-NEXT: mov.b32 [[MB:%r[0-9]+]], 0xCD9E8D57;
# INT-NEXT: mul.hi.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[MB]];
# Only the first word is stored, so DCE keeps what it needs: 16 mul.hi per element (two elements per
# thread) and one on the scalar key, all in registers, then one vector store.
# INT-COUNT-30: mul.hi.u32
# INT-NOT:  mul.hi.u32
# INT-NOT:  ld.global
# INT:      st.global.v2.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};

# int64 offsets: the counter's second word is the offset's high half (an arithmetic shift, then
# truncation). uint_to_uniform_float: negatives folded by a bitwise not (-x - 1), converted, scaled
# by 4.6566127342e-10 (0f2FFFFFFF); Box-Muller clamps u1 at 1e-7 (0f33D6BF95) and scales u2 by 2 pi.
# NORMAL:      ld.global.b64 [[OFF:%rd[0-9]+]], [%rd{{[0-9]+}}];
# NORMAL:      cvt.u32.u64 {{%r[0-9]+}}, [[OFF]];
# NORMAL:      shr.s64 [[OFFHI:%rd[0-9]+]], [[OFF]], %r{{[0-9]+}};
# NORMAL-NEXT: cvt.u32.u64 {{%r[0-9]+}}, [[OFFHI]];
# NORMAL:      mul.hi.u32
# NORMAL:      setp.lt.s32 [[NEG:%p[0-9]+]], [[X:%r[0-9]+]], {{%r[0-9]+}};
# NORMAL-NEXT: not.b32 [[NOT:%r[0-9]+]], [[X]];
# NORMAL-NEXT: selp.b32 [[FOLD:%r[0-9]+]], [[NOT]], [[X]], [[NEG]];
# NORMAL-NEXT: cvt.rn.f32.s32 [[F:%f[0-9]+]], [[FOLD]];
# NORMAL-NEXT: mov.f32 [[SCALE:%f[0-9]+]], 0f2FFFFFFF;
# NORMAL-NEXT: mul.rn.f32 [[U2:%f[0-9]+]], [[F]], [[SCALE]];
# NORMAL:      mul.rn.f32 [[U1:%f[0-9]+]], {{%f[0-9]+}}, [[SCALE]];
# NORMAL-NEXT: mov.f32 [[TINY:%f[0-9]+]], 0f33D6BF95;
# NORMAL-NEXT: max.f32 {{%f[0-9]+}}, [[U1]], [[TINY]];
# NORMAL-NEXT: mov.f32 [[TWOPI:%f[0-9]+]], 0f40C90FDB;
# NORMAL-NEXT: mul.rn.f32 {{%f[0-9]+}}, [[U2]], [[TWOPI]];
# NORMAL:      lg2.approx.f32
# NORMAL:      mov.f32 [[M2:%f[0-9]+]], 0fC0000000;
# NORMAL-NEXT: mul.rn.f32 [[ARG:%f[0-9]+]], {{%f[0-9]+}}, [[M2]];
# NORMAL-NEXT: sqrt.approx.f32 [[R:%f[0-9]+]], [[ARG]];
# NORMAL:      mul.rn.f32 [[N:%f[0-9]+]], [[R]], {{%f[0-9]+}};
# NORMAL-NEXT: mad.wide.s32
# NORMAL-NEXT: st.global.f32 [%rd{{[0-9]+}}], [[N]];

# 64-bit counters: Philox-4x64 on 64-bit registers (mul.hi.u64 by 0xD2E7470EE14C6C93 and
# 0xCA5A826395121157), keyed by the seed and 0.
# PHILOX64:     mov.b64 [[MB:%rd[0-9]+]], 0xCA5A826395121157;
# PHILOX64-NEXT: mul.hi.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[MB]];
# PHILOX64:     mov.b64 [[MA:%rd[0-9]+]], 0xD2E7470EE14C6C93;
# PHILOX64-NEXT: mul.hi.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[MA]];
# PHILOX64:     mul.lo.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[MB]];
# PHILOX64-NEXT: mul.lo.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[MA]];
# PHILOX64-NEXT: mov.b64 {{%rd[0-9]+}}, 0x9E3779B97F4A7C15;
# PHILOX64-NOT: mul.hi.u32
# PHILOX64:     st.global
