# The persistent option (CompileOptions::persistent, kiln.Config(persistent=True), --persistent): a kernel
# written one tile per program gets the logical grid as three parameters after its own and runs its body
# in a loop over the grid's programs, from the launched program's id in steps of the launched count.
# Scalar code that reads no program id (the tile counts) stays before the loop; the program id is the
# loop's index modulo grid_x (axis 1: divided by grid_x, modulo grid_y; axis 2: divided by grid_x * grid_y)
# and num_programs reads the grid. With warp specialization the tile loop is the root, as in tutorial
# 09's persistent kernel: one producer warpgroup walks every tile's k loop.
# REQUIRES: ptxas
# RUN: kiln compile %s --kernel tile_matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64" --num-warps 8 --num-stages 3 --arch sm_90a --persistent --emit ptx --dump-after=persistent -o %t.ptx 2>&1 | FileCheck %s
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: kiln compile %s --kernel tile_matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64" --num-warps 8 --num-stages 3 --arch sm_90a --persistent --warp-specialize --emit ptx --dump-after=warp_specialize -o %t.ws.ptx 2>&1 | FileCheck %s --check-prefix=WS
# RUN: %ptxas -arch=sm_90a %t.ws.ptx -o %t.ws.cubin
# RUN: kiln compile %s --kernel tile_matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, 128, 128, 64" --num-warps 8 --num-stages 3 --arch sm_80 --persistent --emit ptx -o %t.sm80.ptx
# RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
# RUN: kiln compile %s --kernel grid_3d --signature "*i32:16" --arch sm_90a --persistent --emit ptx --dump-after=persistent -o %t.3d.ptx 2>&1 | FileCheck %s --check-prefix=AXES
# RUN: %ptxas -arch=sm_90a %t.3d.ptx -o %t.3d.cubin
# RUN: kiln compile %s --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 64" --num-warps 8 --num-stages 3 --arch sm_90a --persistent --warp-specialize --emit ptx --dump-after=warp_specialize -o %t.ptr.ptx 2>&1 | FileCheck %s --check-prefix=PTR
# RUN: %ptxas -arch=sm_90a %t.ptr.ptx -o %t.ptr.cubin
# RUN: kiln compile %s --kernel ptr_matmul --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 256, 64" --num-warps 8 --num-stages 3 --arch sm_90a --persistent --warp-specialize --emit ptx --dump-after=warp_specialize -o %t.wide.ptx 2>&1 | FileCheck %s --check-prefix=WIDE
# RUN: %ptxas -arch=sm_90a %t.wide.ptx -o %t.wide.cubin
# RUN: kiln compile %s --kernel prints --signature "*i32:16" --arch sm_90a --persistent --emit gpu-ir 2>&1 | FileCheck %s --check-prefix=PRINTS
# CHECK:      // ----- IR after persistent -----
# CHECK-NEXT: func @tile_matmul({{.*}}, %K: i32, %grid_x: i32, %grid_y: i32, %grid_z: i32) {
# CHECK-NOT:  program_id
# CHECK:      [[FIRST:%[0-9]+]] = program_id {axis = 0} : i32
# CHECK-NEXT: [[LAUNCHED:%[0-9]+]] = num_programs {axis = 0} : i32
# CHECK-NEXT: [[PLANE:%[0-9]+]] = mul %grid_x, %grid_y : i32
# CHECK-NEXT: [[TOTAL:%[0-9]+]] = mul [[PLANE]], %grid_z : i32
# CHECK-NEXT: for [[FIRST]], [[TOTAL]], [[LAUNCHED]] {persistent = 1} {
# CHECK-NEXT: ^([[T:%[0-9]+]]: i32):
# CHECK-NEXT:   [[PID:%[0-9]+]] = rem [[T]], %grid_x : i32
# CHECK-NOT:    program_id
# CHECK:        div [[PID]]
# CHECK:        for
# CHECK:        store
# CHECK:        yield
# CHECK-NEXT: }
# CHECK-NEXT: return
# PTX:        .param .s32 tile_matmul_grid_x,
# PTX-NEXT:   .param .s32 tile_matmul_grid_y,
# PTX-NEXT:   .param .s32 tile_matmul_grid_z
# WS:         // ----- IR after warp_specialize -----
# WS:         warp_partition {lead_warp = [0, 1], registers = [232, 40], warps = [8, 4]} {
# WS:           for {{.*}}{persistent = 1, warp_specialize = 1}
# WS:             rem %{{[0-9]+}}, %grid_x
# WS:             mma {{.*}}wgmma = 1
# WS:           for %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, i32 {
# WS-NEXT:      ^(%{{[0-9]+}}: i32, %{{[0-9]+}}: i32, %{{[0-9]+}}: i32):
# WS-NEXT:        rem %{{[0-9]+}}, %grid_x
# WS:             tma_load
# WS:             tma_load
# Pointer-built tiles: the writes of earlier programs (the loop's earlier iterations) do not keep the k
# loop from TMA, so it runs in two versions inside the loop over programs, and the producer walks the
# check's `if` per tile (the cp.async version, in its else-region, is the consumers' alone).
# PTR:        // ----- IR after warp_specialize -----
# PTR:        warp_partition {lead_warp = [0, 1], registers = [232, 40], warps = [8, 4]} {
# PTR:          for {{.*}}{persistent = 1, warp_specialize = 1} : i32, i32 {
# PTR:            = if [[COND:%[0-9]+]] : tensor<{{.*}}>, i32, i32 {
# PTR:              mma {{.*}}wgmma = 1
# PTR:            } {
# PTR:              async_copy
# PTR:          for %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, i32 {
# PTR:            %{{[0-9]+}}, %{{[0-9]+}} = if %{{[0-9]+}} : i32, i32 {
# PTR-NEXT:         for %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32, i32 {
# PTR:                mbarrier_wait
# PTR:                tma_load
# PTR:                tma_load
# PTR:            } {
# PTR-NEXT:         yield %{{[0-9]+}}, %{{[0-9]+}}
# PTR-NEXT:       }
# At 128x256 twice the slots do not fit: the TMA version keeps its three, the cp.async version gets what
# is left, too little for two stages, and runs unpipelined (its dot stages each k step's operands).
# WIDE:       warp_partition {lead_warp = [0, 1], registers = [232, 40], warps = [8, 4]} {
# WIDE-NOT:   async_copy
# WIDE:       return
# AXES:       func @grid_3d(%out: ptr<i32>, %grid_x: i32, %grid_y: i32, %grid_z: i32) {
# AXES:       ^([[T:%[0-9]+]]: i32):
# AXES-NEXT:    [[X:%[0-9]+]] = rem [[T]], %grid_x : i32
# AXES-NEXT:    [[ROW:%[0-9]+]] = div [[T]], %grid_x : i32
# AXES-NEXT:    [[Y:%[0-9]+]] = rem [[ROW]], %grid_y : i32
# AXES-NEXT:    [[Z:%[0-9]+]] = div [[ROW]], %grid_y : i32
# AXES-DAG:     mul [[Z]], %grid_y
# AXES-DAG:     mul {{.*}}%grid_x
# PRINTS:     func @prints(%out: ptr<i32>) {
# PRINTS:     program_id {axis = 0}
# PRINTS-NOT: grid_x
import triton
import triton.language as tl


@triton.jit
def tile_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BN)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]), acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def ptr_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BN)
    offs_am = ((pid // num_pid_n) * BM + tl.arange(0, BM)) % M
    offs_bn = ((pid % num_pid_n) * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    offs_cm = (pid // num_pid_n) * BM + tl.arange(0, BM)
    offs_cn = (pid % num_pid_n) * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + offs_cn[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def grid_3d(out):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    linear = (z * tl.num_programs(1) + y) * tl.num_programs(0) + x
    tl.store(out + linear, linear)


@triton.jit
def prints(out):
    pid = tl.program_id(0)
    tl.device_print("pid", pid)
    tl.store(out + pid, pid)
