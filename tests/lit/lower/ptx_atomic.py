# Golden PTX of the atomics (src/lower/lower_atomic.cpp, src/ptx/atomic.cpp): one predicated `atom` per
# element its owner thread holds, with sem and scope as qualifiers; `red` where the old values are not
# read; packed f16x2 adds on contiguous, aligned pointers; a bf16 CAS loop below sm_90; scalar atomics by
# thread 0 with the old value handed round through shared memory.
#
# RUN: kiln compile %s --kernel add_old --signature "*fp32:16, *fp32:16, i32, 256" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=OLD
# RUN: kiln compile %s --kernel add_only --signature "*fp32:16, i32, 256" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=RED
# RUN: kiln compile %s --kernel half_add --signature "*fp16:16, 256" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=HALF
# RUN: kiln compile %s --kernel half_add --signature "*bf16:16, 256" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=BF90
# RUN: kiln compile %s --kernel half_add --signature "*bf16:16, 256" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=BF80
# RUN: kiln compile %s --kernel ticket --signature "*i64, *i64" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SCALAR
# RUN: kiln compile %s --kernel small_cas --signature "*i32, *i32" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=SMALL
# RUN: kiln compile %s --kernel float_max --signature "*fp32, *fp32" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=FMAX
# RUN: kiln compile %s --kernel cas16 --signature "*i16:16, *i16:16, *i16:16, *i16:16" --emit ptx --arch sm_90a -o %t.cas16.ptx
# RUN: FileCheck %s --check-prefix=CAS16 < %t.cas16.ptx
# RUN: %ptxas -arch=sm_90a %t.cas16.ptx -o %t.cas16.cubin
# RUN: kiln compile %s --kernel bf16_acq_rel --signature "*bf16:16, 256" --emit ptx --arch sm_90a -o %t.bf16.ptx
# RUN: FileCheck %s --check-prefix=BFAR < %t.bf16.ptx
# RUN: %ptxas -arch=sm_90a %t.bf16.ptx -o %t.bf16.cubin
import triton
import triton.language as tl


@triton.jit
def add_old(p, old, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(old + offs, tl.atomic_add(p + offs, 1.0, mask=m, sem="acquire", scope="cta"), mask=m)


# 256 f32 over 128 threads: two elements per thread, each its own predicated atom whose result register
# holds 0 first (a masked-off element's old value).
# OLD:      mov.f32 [[D0:%f[0-9]+]], 0f00000000;
# OLD-NEXT: @%p{{[0-9]+}} atom.global.cta.acquire.add.f32 [[D0]], [%rd{{[0-9]+}}], %f{{[0-9]+}};
# OLD:      atom.global.cta.acquire.add.f32
# OLD-NOT:  atom.global
# OLD-NOT:  bar.sync


@triton.jit
def add_only(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(p + offs, 2.0, mask=offs < n, sem="relaxed")


# Nothing reads the old values: red, with Triton's default scope.
# RED:      @%p{{[0-9]+}} red.global.gpu.relaxed.add.f32 [%rd{{[0-9]+}}], %f{{[0-9]+}};
# RED:      red.global.gpu.relaxed.add.f32
# RED-NOT:  atom.


@triton.jit
def half_add(p, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(p + offs, tl.full([BLOCK], 1.0, p.dtype.element_ty), sem="release")


# f16, contiguous and 16-byte aligned: one packed add per pair of elements.
# HALF:      mov.b32 [[PAIR:%r[0-9]+]], {%h{{[0-9]+}}, %h{{[0-9]+}}};
# HALF-NEXT: red.global.gpu.release.add.noftz.f16x2 [%rd{{[0-9]+}}], [[PAIR]];
# HALF-NOT:  .noftz.f16 
# BF90:      red.global.gpu.release.add.noftz.bf16x2
# On sm_80 there is no bf16 atomic add: a compare-and-swap loop per pair, the sum rounded once.
# BF80:      ld.global.b32 [[PREV:%r[0-9]+]], [%rd{{[0-9]+}}];
# BF80:      mov.b32 [[ONE:%r[0-9]+]], 0x3F803F80;
# BF80:      [[RETRY:\$L[0-9]+_atom_retry]]:
# BF80-NEXT: fma.rn.bf16x2 [[SUM:%r[0-9]+]], [[PREV]], [[ONE]], %r{{[0-9]+}};
# BF80-NEXT: atom.global.release.gpu.cas.b32 [[SEEN:%r[0-9]+]], [%rd{{[0-9]+}}], [[PREV]], [[SUM]];
# BF80-NEXT: setp.ne.b32 [[AGAIN:%p[0-9]+]], [[SEEN]], [[PREV]];
# BF80-NEXT: mov.b32 [[PREV]], [[SEEN]];
# BF80-NEXT: @[[AGAIN]] bra [[RETRY]];
# BF80-NOT:  .add.noftz.bf16


@triton.jit
def ticket(counter, out):
    tl.store(out + tl.program_id(0), tl.atomic_add(counter, 1))


# A scalar atomic: thread 0 alone, its old value stored to shared memory and read back by all.
# SCALAR:      setp.eq.u32 [[FIRST:%p[0-9]+]], %r{{[0-9]+}}, 0;
# SCALAR:      mov.b64 [[PREV:%rd[0-9]+]], 0;
# SCALAR-NEXT: @[[FIRST]] atom.global.gpu.acq_rel.add.u64 [[PREV]], [%rd{{[0-9]+}}], %rd{{[0-9]+}};
# SCALAR:      @[[FIRST]] st.shared.b64 [%r{{[0-9]+}}], [[PREV]];
# SCALAR-NEXT: bar.sync 0;
# SCALAR-NEXT: ld.shared.b64 %rd{{[0-9]+}}, [%r{{[0-9]+}}];


@triton.jit
def small_cas(p, out):
    offs = tl.arange(0, 8)
    old = tl.atomic_cas(p + offs, tl.zeros([8], tl.int32), offs, sem="relaxed", scope="sys")
    tl.store(out + offs, old)


# 8 elements over 128 threads: each element's owner swaps; the old values reach the copies through shared memory.
# SMALL:      atom.global.relaxed.sys.cas.b32
# SMALL-NOT:  atom.global
# SMALL:      st.shared
# SMALL:      bar.sync 0;
# SMALL:      ld.shared


@triton.jit
def float_max(p, x):
    tl.atomic_max(p, tl.load(x))


# Float max as Triton builds it: signed max of the bits of a non-negative value, unsigned min of a negative one's.
# FMAX:     atom.global.gpu.acq_rel.max.s32
# FMAX:     atom.global.gpu.acq_rel.min.u32


@triton.jit
def cas16(p, cmp, val, old):
    offs = tl.arange(0, 128)
    tl.store(old + offs, tl.atomic_cas(p + offs, tl.load(cmp + offs), tl.load(val + offs), sem="relaxed"))


# 16-bit integers live in .b32 registers; atom.cas.b16 takes .b16 ones (ptxas refused the .b32 operands),
# and the old value comes back sign-extended.
# CAS16:      cvt.u16.u32
# CAS16:      atom.global.relaxed.gpu.cas.b16 %h{{[0-9]+}}, [%rd{{[0-9]+}}], %h{{[0-9]+}}, %h{{[0-9]+}};
# CAS16-NEXT: cvt.s32.s16


@triton.jit
def bf16_acq_rel(p, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(p + offs, tl.full([BLOCK], 1.0, p.dtype.element_ty))


# acq_rel has no `red`: an `atom` whose old value nobody reads. For bf16 its result is a register, not
# the sink `_`, on which ptxas 13.0 crashes (segmentation fault).
# BFAR:     atom.global.gpu.acq_rel.add.noftz.bf16x2 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
# BFAR-NOT: , _,
