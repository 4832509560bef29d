# overlap_dots and defer_mma_waits on a flash-attention loop (two chained wgmma dots, sm_90a). The loop
# is rotated by one iteration under an `if` (it may run no iteration): a prologue runs the first dot and
# the softmax of the first key block; the rotated loop (from lb + step) issues the first dot of block j,
# then the second dot of block j - 1 (its P and rescaled accumulator carried from the iteration before),
# then the softmax of block j; an epilogue runs the last block's second dot. After the pipeline,
# defer_mma_waits moves the first dot's wait past the second dot (pending = 1: P V keeps running during
# the softmax) and the second dot's wait down to the rescale that reads its result. On sm_80 (mma.sync
# is synchronous) and without pipelining (num_stages 1) the loop is left as it is.
# REQUIRES: ptxas
# RUN: kiln compile %s --kernel attn --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 64, 64" --num-warps 4 --num-stages 3 --arch sm_90a --emit ptx --dump-after=overlap_dots,defer_mma_waits -o %t.ptx 2>&1 | FileCheck %s
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: kiln compile %s --kernel attn --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 64, 64" --num-warps 4 --num-stages 3 --arch sm_80 --emit ptx --dump-after=overlap_dots -o %t.sm80.ptx 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %s --kernel attn --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 64, 64" --num-warps 4 --num-stages 1 --arch sm_90a --emit ptx --dump-after=overlap_dots -o %t.s1.ptx 2>&1 | FileCheck %s --check-prefix=KEEP
# CHECK:      // ----- IR after overlap_dots -----
# CHECK:      [[RUNS:%[0-9]+]] = cmp %{{[0-9]+}}, %{{[0-9]+}} {pred = "lt"} : i1
# CHECK-NEXT: {{.*}} = if [[RUNS]] :
# CHECK:        [[S0:%[0-9]+]] = dot
# CHECK:        exp2
# CHECK:        [[FROM:%[0-9]+]] = add %{{[0-9]+}}, %{{[0-9]+}} : i32
# CHECK-NEXT:   {{.*}} = for [[FROM]],
# CHECK:          [[S:%[0-9]+]] = dot
# CHECK-NOT:      exp2
# CHECK:          [[ACC:%[0-9]+]] = dot
# CHECK:          exp2
# CHECK:          mul [[ACC]],
# CHECK:          yield
# CHECK-NEXT:   }
# CHECK:        [[LAST:%[0-9]+]] = dot
# CHECK-NEXT:   yield %{{[0-9]+}}, [[LAST]], %{{[0-9]+}}
# CHECK-NEXT: } {
# CHECK-NEXT:   yield
# CHECK-NEXT: }
# CHECK-NOT:  for
# CHECK:      // ----- IR after defer_mma_waits -----
# CHECK:      for
# CHECK:        [[MS:%[0-9]+]] = mma {{.*}}wgmma = 1
# CHECK-NEXT:   [[MA:%[0-9]+]] = mma {{.*}}wgmma = 1
# CHECK-NEXT:   mma_wait [[MS]] {pending = 1}
# CHECK:        exp2
# CHECK:        exp2
# CHECK:        [[DONE:%[0-9]+]] = mma_wait [[MA]] {pending = 0}
# CHECK-NEXT:   mul [[DONE]],
# PTX:        wgmma.wait_group.sync.aligned 1;
# PTX:        ex2.approx
# PTX:        wgmma.wait_group.sync.aligned 0;
# KEEP:       // ----- IR after overlap_dots -----
# KEEP-NOT:   if
# KEEP:       for
# KEEP-NOT:   if
# KEEP:       return
import triton
import triton.language as tl


@triton.jit
def attn(Q, K, V, Out, N_CTX, qk_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for start_n in range(0, N_CTX, BN):
        k = tl.load(K + (start_n + offs_n)[None, :] * D + offs_d[:, None])
        qk = tl.dot(q, k) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + (start_n + offs_n)[:, None] * D + offs_d[None, :])
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    tl.store(Out + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16))
