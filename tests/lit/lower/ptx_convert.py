# Golden PTX of layout conversions (src/lower/lower_convert.cpp). tl.trans is a permute (no data
# moves) followed by a convert_layout to the coalesced store layout; across warps the data goes
# through shared memory (store, bar.sync, vector loads, bar.sync), inside one warp by shfl.sync.idx.
# (ldmatrix, the other shared-memory read of conversions, is checked in ptx_dot.py.)
#
# RUN: kiln compile %s --kernel transpose --signature "*fp32:16, *fp32:16, 64, 64" --emit gpu-ir --arch sm_80 | FileCheck %s --check-prefix=IR
# RUN: kiln compile %s --kernel transpose --signature "*fp32:16, *fp32:16, 64, 64" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SHARED
# RUN: kiln compile %s --kernel transpose --signature "*fp32:16, *fp32:16, 8, 4" --emit ptx --arch sm_80 --num-warps 1 | FileCheck %s --check-prefix=SHUFFLE

# IR:          = permute %{{[0-9]+}} {order = [1, 0]}
# IR-NEXT:     = convert_layout

# Each thread stores its 32 loaded elements, scalar (the transposed order is not contiguous in
# its registers), then reads its 32 stored elements back as 16-byte vectors.
# SHARED:      .extern .shared .align 16 .b8 smem[];
# SHARED:      ld.global.v4.f32
# SHARED:      mov.u32 [[BASE:%r[0-9]+]], smem;
# SHARED:      // convert_layout through shared memory
# SHARED-NOT:  bar.sync
# SHARED-COUNT-32: st.shared.f32 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %f{{[0-9]+}};
# SHARED-NOT:  ld.shared
# SHARED:      bar.sync 0;
# SHARED-COUNT-8: ld.shared.v4.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, [%r{{[0-9]+}}{{(\+[0-9]+)?}}];
# SHARED-NEXT: bar.sync 0;
# SHARED-NOT:  shared
# SHARED:      st.global.v4.f32
# SHARED-NOT:  .local

# 8x4 in one warp, one element per lane: the transpose is a lane permutation, one shuffle.
# SHUFFLE:     .maxntid 32, 1, 1
# SHUFFLE-NOT: smem
# SHUFFLE:     ld.global.f32 [[V:%f[0-9]+]], [%rd{{[0-9]+}}];
# SHUFFLE:     shfl.sync.idx.b32 [[W:%f[0-9]+]], [[V]], [[SRC:%r[0-9]+]], 31, 0xFFFFFFFF;
# SHUFFLE-NEXT: st.global.f32 [%rd{{[0-9]+}}], [[W]];
# SHUFFLE-NOT: bar.sync
import triton
import triton.language as tl


@triton.jit
def transpose(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], tl.trans(x))
