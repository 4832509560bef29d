# pingpong on the flash-attention loop of overlap_dots.py at 8 warps (two warpgroups, 64 query rows each) on sm_90a: the
# pipeline's CTA barrier at the top of the loop becomes a wait on the slot's "full" mbarrier, which every
# thread's copies arrive on when they land (async_copy_arrive after each commit group, the prologue's
# too); the warpgroups take turns around the two dots (warpgroup 1 passes warpgroup 0 its first turn
# before the loop, warpgroup 0 takes the last one back after it); the copies move up behind the dots,
# after a wait on the "empty" mbarrier of the slot they refill, and each warp releases its slot once the
# dots are done. After the loop the full phases of the copies past the end are waited for.
# Left alone: 4 warps (one warpgroup), sm_80, and a loop whose dots do too little per turn (D 64 with
# 64-key blocks: 2 x 4096 multiply-adds per row).
# REQUIRES: ptxas
# RUN: kiln compile %S/overlap_dots.py --kernel attn --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 128, 128" --num-warps 8 --num-stages 3 --arch sm_90a --emit ptx --dump-after=pingpong -o %t.ptx 2>&1 | FileCheck %s
# RUN: FileCheck %s --check-prefix=PTX < %t.ptx
# RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
# RUN: kiln compile %S/overlap_dots.py --kernel attn --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 128, 128" --num-warps 4 --num-stages 3 --arch sm_90a --emit gpu-ir 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %S/overlap_dots.py --kernel attn --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 128, 128" --num-warps 8 --num-stages 3 --arch sm_80 --emit gpu-ir 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: kiln compile %S/overlap_dots.py --kernel attn --signature "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, fp32, 64, 128, 64" --num-warps 8 --num-stages 3 --arch sm_90a --emit gpu-ir 2>&1 | FileCheck %s --check-prefix=KEEP
# CHECK:      // ----- IR after pingpong -----
# CHECK:      [[FULL:%[0-9]+]] = shared_alloc {pipelined = 1} : shared<1xi64, slots=3
# CHECK-NEXT: [[EMPTY:%[0-9]+]] = shared_alloc {pipelined = 1} : shared<1xi64, slots=3
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 256}
# CHECK:      mbarrier_init %{{[0-9]+}} {count = 8}
# CHECK:      {{^ +barrier$}}
# CHECK-NEXT: async_copy
# CHECK:      async_commit
# CHECK:      [[F0:%[0-9]+]] = shared_slot [[FULL]], %{{[0-9]+}}
# CHECK-NEXT: async_copy_arrive [[F0]]
# CHECK:      async_commit
# CHECK:      [[F1:%[0-9]+]] = shared_slot [[FULL]], %{{[0-9]+}}
# CHECK-NEXT: async_copy_arrive [[F1]]
# CHECK:      warpgroup_turn {barrier = 1, step = "start"}
# CHECK-NEXT: constant {value = 0}
# CHECK-NEXT: for
# CHECK-NEXT: ^(%{{[0-9]+}}: i32, {{.*}}, [[SLOT:%[0-9]+]]: i32, [[PHASE:%[0-9]+]]: i32):
# CHECK-NEXT:   [[FS:%[0-9]+]] = shared_slot [[FULL]], [[SLOT]]
# CHECK-NEXT:   mbarrier_wait [[FS]], [[PHASE]]
# CHECK-NEXT:   fence_async_shared
# CHECK-NOT:    {{^ +barrier$}}
# CHECK:        warpgroup_turn {barrier = 1, step = "wait"}
# CHECK-NEXT:   {{%[0-9]+}} = mma {{.*}}wgmma = 1
# CHECK-NEXT:   {{%[0-9]+}} = mma {{.*}}wgmma = 1
# CHECK-NEXT:   warpgroup_turn {barrier = 1, step = "pass"}
# CHECK:        [[ES:%[0-9]+]] = shared_slot [[EMPTY]],
# CHECK-NEXT:   mbarrier_wait [[ES]],
# CHECK:        async_copy
# CHECK:        async_copy
# CHECK-NEXT:   async_commit
# CHECK-NEXT:   [[FW:%[0-9]+]] = shared_slot [[FULL]],
# CHECK-NEXT:   async_copy_arrive [[FW]]
# CHECK-NEXT:   mma_wait {pending = 0}
# CHECK-NEXT:   [[ER:%[0-9]+]] = shared_slot [[EMPTY]], [[SLOT]]
# CHECK-NEXT:   mbarrier_arrive [[ER]] {per_warp = 1}
# CHECK-NEXT:   mma_wait %{{[0-9]+}} {pending = 1}
# CHECK:        exp2
# CHECK-NOT:    async_copy
# CHECK:        yield
# CHECK-NEXT: }
# CHECK-NEXT: warpgroup_turn {barrier = 1, step = "end"}
# CHECK-NEXT: shared_slot [[FULL]],
# CHECK-NEXT: mbarrier_wait
# CHECK:      mbarrier_wait
# CHECK:      async_wait {pending = 0}
# CHECK-NEXT: {{^ +barrier$}}
# PTX:        bar.arrive 1, 256;
# PTX:        $L{{[0-9]+}}_for:
# PTX:        mbarrier.try_wait.parity.shared::cta.b64
# PTX:        bar.sync 1, 256;
# PTX:        bar.sync 2, 256;
# PTX:        wgmma.mma_async
# PTX:        bar.arrive 2, 256;
# PTX:        bar.arrive 1, 256;
# PTX:        cp.async.cg.shared.global
# PTX:        cp.async.mbarrier.arrive.noinc.shared.b64
# PTX:        wgmma.wait_group.sync.aligned 0;
# PTX:        bar.warp.sync -1;
# PTX:        mbarrier.arrive.shared::cta.b64
# PTX:        ex2.approx
# PTX:        $L{{[0-9]+}}_for_end:
# PTX:        bar.sync 1, 256;
# KEEP-NOT:   warpgroup_turn
# KEEP-NOT:   async_copy_arrive
