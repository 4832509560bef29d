# Golden PTX of block-pointer and tensor-descriptor accesses (src/sema/block_access.cpp): lowered to
# pointer tiles and masks, they vectorise like hand-written ones when the innermost stride is the
# constant 1 (16-byte vectors under one predicate per vector), in straight-line code and in a loop
# that advances the block pointer; every kernel assembles with ptxas for sm_80 and sm_90a.
# REQUIRES: ptxas
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: kiln compile %s --kernel block_copy --signature "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 32, 64" --emit ptx --arch sm_80 -o %t/block80.ptx
# RUN: FileCheck %s --check-prefix=VEC < %t/block80.ptx
# RUN: %ptxas -arch=sm_80 %t/block80.ptx -o %t/block80.cubin
# RUN: kiln compile %s --kernel desc_copy --signature "*fp16:16, *fp16:16, i32:16, i32:16, i32:16, 32, 64" --emit ptx --arch sm_90a -o %t/desc90.ptx
# RUN: FileCheck %s --check-prefix=HALF < %t/desc90.ptx
# RUN: %ptxas -arch=sm_90a %t/desc90.ptx -o %t/desc90.cubin
# RUN: kiln compile %s --kernel desc_copy --signature "*fp16:16, *fp16:16, i32:16, i32:16, i32:16, 32, 64" --emit ptx --arch sm_80 -o %t/desc80.ptx
# RUN: FileCheck %s --check-prefix=HALF80 < %t/desc80.ptx
# RUN: %ptxas -arch=sm_80 %t/desc80.ptx -o %t/desc80.cubin
# RUN: kiln compile %s --kernel block_loop --signature "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 32, 64" --emit ptx --arch sm_90a -o %t/loop90.ptx
# RUN: FileCheck %s --check-prefix=LOOP < %t/loop90.ptx
# RUN: %ptxas -arch=sm_90a %t/loop90.ptx -o %t/loop90.cubin
# RUN: kiln compile %s --kernel block_loop --signature "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 32, 64" --emit ptx --arch sm_80 -o %t/loop80.ptx
# RUN: %ptxas -arch=sm_80 %t/loop80.ptx -o %t/loop80.cubin
import triton
import triton.language as tl


# A 32x64 f32 block over 128 threads: four 16-byte vectors per thread, each under one predicate
# (rows and columns both checked), for the load and the store alike.
# VEC:       .visible .entry block_copy(
# VEC-COUNT-4: @%p{{[0-9]+}} ld.global.v4.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, [%rd{{[0-9]+}}];
# VEC-COUNT-4: @%p{{[0-9]+}} st.global.v4.f32 [%rd{{[0-9]+}}], {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}};
# VEC-NOT:   ld.global.f32
# VEC-NOT:   st.global.f32
@triton.jit
def block_copy(x_ptr, y_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    x = tl.make_block_ptr(x_ptr, (M, N), (stride, 1), (pm, pn), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride, 1), (pm, pn), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1), padding_option="zero"), boundary_check=(0, 1))


# Halves: eight per 16-byte access. On sm_90a the descriptor store is a TMA store (tma_stores pass,
# docs/schedule.md); on sm_80 it vectorises like the load.
# HALF:      .target sm_90a
# HALF:      ld.global.v4.b32
# HALF:      cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
# HALF-NOT:  ld.global.b16
# HALF80:    .target sm_80
# HALF80:    ld.global.v4.b32
# HALF80:    st.global.v4.b32
# HALF80-NOT: st.global.b16
@triton.jit
def desc_copy(x_ptr, y_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    x = tl.make_tensor_descriptor(x_ptr, [M, N], [stride, 1], [BM, BN])
    y = tl.make_tensor_descriptor(y_ptr, [M, N], [stride, 1], [BM, BN])
    y.store([pm, pn], x.load([pm, pn]))


# The block pointer is carried by the loop (its offsets are loop values) and its loads still vectorise.
# LOOP:      .visible .entry block_loop(
# LOOP:      ld.global.v4.f32
# LOOP-NOT:  ld.global.f32
@triton.jit
def block_loop(a_ptr, out_ptr, M, K, stride, BM: tl.constexpr, BK: tl.constexpr):
    a = tl.make_block_ptr(a_ptr, (M, K), (stride, 1), (tl.program_id(0) * BM, 0), (BM, BK), (1, 0))
    acc = tl.zeros((BM, BK), tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.load(a, boundary_check=(1,))
        a = tl.advance(a, (0, BK))
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BK + tl.arange(0, BK)[None, :], acc)
