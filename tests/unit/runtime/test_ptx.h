// Hand-written PTX kernels for the runtime tests: a vector add (with and without a launch bound) and a
// kernel that fills and reverses a dynamic shared-memory buffer of any size.
#pragma once
#include <string>

// clang-format off: the PTX reads best as written.

namespace kiln::runtime::testing {

// c[i] = a[i] + b[i] for i < n (f32, one element per thread). maxntid: "" or e.g. ".maxntid 128, 1, 1".
inline std::string vectorAddPtx(const std::string& target = "sm_80", const std::string& maxntid = "") {
  return R"(.version 9.0
.target )" + target + R"(
.address_size 64

.visible .entry vector_add(
    .param .u64 .ptr .global .align 4 vector_add_a,
    .param .u64 .ptr .global .align 4 vector_add_b,
    .param .u64 .ptr .global .align 4 vector_add_c,
    .param .u32 vector_add_n)
)" + maxntid + R"(
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;

    ld.param.u64 %rd1, [vector_add_a];
    ld.param.u64 %rd2, [vector_add_b];
    ld.param.u64 %rd3, [vector_add_c];
    ld.param.u32 %r1, [vector_add_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.rn.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
)";
}

// vectorAddPtx with a syntax error on its add (line 36), for the assemblers' error paths.
inline std::string vectorAddPtxWithSyntaxError(const std::string& target) {
  std::string ptx = vectorAddPtx(target);
  const std::string good = "add.rn.f32 %f3, %f1, %f2;";
  ptx.replace(ptx.find(good), good.size(), "add.rn.f32 %f3, %f1, bogus %f2;");
  return ptx;
}

// Block b fills smem[i] = 3 * i + b for i < words, waits at a barrier, then writes
// out[b * words + i] = smem[words - 1 - i]. Needs words * 4 bytes of dynamic shared memory.
inline std::string sharedReversePtx(const std::string& target = "sm_80") {
  return R"(.version 9.0
.target )" + target + R"(
.address_size 64
.extern .shared .align 16 .b8 smem[];

.visible .entry shared_reverse(
    .param .u64 .ptr .global .align 4 shared_reverse_out,
    .param .u32 shared_reverse_words)
{
    .reg .pred %p<3>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [shared_reverse_out];
    ld.param.u32 %r1, [shared_reverse_words];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, smem;
    mov.u32 %r6, %r2;
FILL:
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra FILLED;
    mad.lo.u32 %r7, %r6, 3, %r4;
    shl.b32 %r8, %r6, 2;
    add.u32 %r9, %r5, %r8;
    st.shared.u32 [%r9], %r7;
    add.u32 %r6, %r6, %r3;
    bra FILL;
FILLED:
    barrier.sync 0;
    mov.u32 %r6, %r2;
COPY:
    setp.ge.u32 %p2, %r6, %r1;
    @%p2 bra DONE;
    sub.u32 %r10, %r1, 1;
    sub.u32 %r10, %r10, %r6;
    shl.b32 %r11, %r10, 2;
    add.u32 %r12, %r5, %r11;
    ld.shared.u32 %r13, [%r12];
    mad.lo.u32 %r14, %r4, %r1, %r6;
    mul.wide.u32 %rd2, %r14, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r13;
    add.u32 %r6, %r6, %r3;
    bra COPY;
DONE:
    ret;
}
)";
}

}  // namespace kiln::runtime::testing
