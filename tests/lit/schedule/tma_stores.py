# The tma_stores pass on a descriptor store: on sm_90a the tile goes to a buffer in TMA's arrangement
# (128-byte rows of f16, swizzled, aligned to 1024), every thread's local_store, the fence and the barrier,
# then tma_store and its wait, with a tensor map at the entry; the store's addresses and mask are gone.
# The conversion the pointer store needed goes too (local_store takes the registers as they are). A row
# stride not proven 16-byte aligned keeps the pointer store, and so does sm_80; either loses the TMA
# description. (tests/python/test_tma_store.py assembles such kernels with ptxas.)
# RUN: kiln compile %s --kernel scale --signature "*fp16:16, *fp16:16, i32, i32:16, 64, 128" --arch sm_90a --emit ptx --dump-after=assign_layouts,tma_stores -o %t.ptx 2>&1 | FileCheck %s
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: kiln compile %s --kernel scale --signature "*fp16:16, *fp16:16, i32, i32, 64, 128" --arch sm_90a --emit ptx --dump-after=tma_stores -o %t.unaligned.ptx 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %s --kernel scale --signature "*fp16:16, *fp16:16, i32, i32:16, 64, 128" --arch sm_80 --emit ptx --dump-after=tma_stores -o %t.sm80.ptx 2>&1 | FileCheck %s --check-prefix=KEEP
# CHECK:      // ----- IR after assign_layouts -----
# CHECK:      store {{.*}}block = "tensor_descriptor", tma = 2
# CHECK:      // ----- IR after tma_stores -----
# CHECK:      tensor_map %y_ptr, {{.*}} {box = [64, 64], index = 0, swizzle = 128}
# CHECK-NOT:  convert_layout
# CHECK:      [[BUF:%[0-9]+]] = shared_alloc {align = 1024} : shared<64x128xf16
# CHECK-NEXT: local_store [[BUF]], %{{[0-9]+}}
# CHECK-NEXT: fence_async_shared
# CHECK-NEXT: barrier
# CHECK-NEXT: tma_store [[BUF]], %{{[0-9]+}}, %{{[0-9]+}} {map = 0}
# CHECK-NEXT: tma_store_wait {pending = 0}
# CHECK-NOT:  store
# CHECK:      return
# PTX-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
# PTX:        cp.async.bulk.commit_group;
# PTX:        cp.async.bulk.wait_group.read 0;
# PTX-NOT:    st.global
# KEEP:       // ----- IR after tma_stores -----
# KEEP-NOT:   tensor_map
# KEEP-NOT:   tma_store
# KEEP:       store %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} {block = "tensor_descriptor"}{{$}}
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    rows, cols = pm + tl.arange(0, BM), pn + tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < N))
    y = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y.store([pm, pn], x * 2)
