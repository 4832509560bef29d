# Golden PTX of the module and entry frame (src/lower/emit_ptx.cpp, src/ptx/builder.cpp): header and
# target, one .param per runtime argument (constexprs are folded away), .align only where the
# signature promises it, .maxntid from num_warps, and the dynamic shared memory `smem` declared
# exactly when the kernel uses shared memory.
#
# RUN: kiln compile %s --kernel scale --signature "*fp32:16, *fp32:16, fp32, i32, i1, 512" --emit ptx --arch sm_80 --num-warps 1 | FileCheck %s --check-prefixes=HEAD80,W1
# RUN: kiln compile %s --kernel scale --signature "*fp32:16, *fp32:16, fp32, i32, i1, 512" --emit ptx --arch sm_90a --num-warps 8 | FileCheck %s --check-prefixes=HEAD90,W8
# RUN: kiln compile %s --kernel scale --signature "*fp32:16, *fp32:16, fp32, i32, i1, 512" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=NOSMEM
# RUN: kiln compile %s --kernel scale --signature "*fp32:16, *fp32, fp32, i32, i1, 512" --emit ptx --arch sm_80 | FileCheck %s --check-prefix=SMEM

# HEAD80:      {{^}}.version 9.0{{$}}
# HEAD80-NEXT: {{^}}.target sm_80{{$}}
# HEAD80-NEXT: {{^}}.address_size 64{{$}}
# HEAD90:      {{^}}.version 9.0{{$}}
# HEAD90-NEXT: {{^}}.target sm_90a{{$}}
# HEAD90-NEXT: {{^}}.address_size 64{{$}}

# W1:          .visible .entry scale(
# W1-NEXT:         .param .u64 .ptr .global .align 16 scale_x_ptr,
# W1-NEXT:         .param .u64 .ptr .global .align 16 scale_out_ptr,
# W1-NEXT:         .param .f32 scale_alpha,
# W1-NEXT:         .param .s32 scale_n,
# W1-NEXT:         .param .u8 scale_flag
# W1-NEXT:     )
# W1-NEXT:     .maxntid 32, 1, 1
# W1-NEXT:     {
# W1:              ld.param.u8 [[FLAG:%r[0-9]+]], [scale_flag];
# W1-NEXT:         setp.ne.u32 %p{{[0-9]+}}, [[FLAG]], 0;
# W8:          .maxntid 256, 1, 1

# NOSMEM-NOT:  smem
# NOSMEM-NOT:  .shared
# NOSMEM-NOT:  bar.sync

# An unaligned output pointer gets a different (scalar) layout from the aligned input: the
# conversion between them needs shared memory, declared once at module level and addressed via smem.
# SMEM:        {{^}}.extern .shared .align 16 .b8 smem[];{{$}}
# SMEM:            .param .u64 .ptr .global scale_out_ptr,
# SMEM:            mov.u32 %r{{[0-9]+}}, smem;
# SMEM:            // convert_layout through shared memory
# SMEM:            bar.sync 0;
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, alpha, n, flag, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if flag:
        x = x * alpha
    tl.store(out_ptr + offs, x, mask=offs < n)
