// emitPtx: the entry's parameters, launch bound and EntryInfo, and vector add end to end: the
// exact loads with and without the ":16" hints, and ptxas accepting the result without spills.
#include "codegen_ptx_eval.h"
#include "codegen_test_util.h"

namespace kiln::lower::test {
namespace {

// examples/vector_add.py's Tile IR with a layout on every tile; `hints` adds the ":16" facts.
std::string vectorAdd(bool hints, const std::string& t = "f32") {
  std::string h = hints ? R"(
  %x = multiple_of %x_ptr {values = [16]} : ptr<T>
  %y = multiple_of %y_ptr {values = [16]} : ptr<T>
  %o = multiple_of %output_ptr {values = [16]} : ptr<T>
  %n = multiple_of %n_elements {values = [16]} : i32)"
                        : R"(
  %x = multiple_of %x_ptr {values = [1]} : ptr<T>
  %y = multiple_of %y_ptr {values = [1]} : ptr<T>
  %o = multiple_of %output_ptr {values = [1]} : ptr<T>
  %n = multiple_of %n_elements {values = [1]} : i32)";
  std::string text = "func @add_kernel(%x_ptr: ptr<T>, %y_ptr: ptr<T>, %output_ptr: ptr<T>, %n_elements: i32) {" + h + R"(
  %3 = program_id {axis = 0} : i32
  %4 = constant {value = 1024} : i32
  %5 = mul %3, %4 : i32
  %6 = arange {end = 1024, start = 0} : tensor<1024xi32, #L>
  %7 = splat %5 : tensor<1024xi32, #L>
  %8 = add %7, %6 : tensor<1024xi32, #L>
  %9 = splat %n : tensor<1024xi32, #L>
  %10 = cmp %8, %9 {pred = "lt"} : tensor<1024xi1, #L>
  %11 = splat %x : tensor<1024xptr<T>, #L>
  %12 = ptr_add %11, %8 : tensor<1024xptr<T>, #L>
  %13 = load %12, %10 : tensor<1024xT, #L>
  %14 = splat %y : tensor<1024xptr<T>, #L>
  %15 = ptr_add %14, %8 : tensor<1024xptr<T>, #L>
  %16 = load %15, %10 : tensor<1024xT, #L>
  %17 = add %13, %16 : tensor<1024xT, #L>
  %18 = splat %o : tensor<1024xptr<T>, #L>
  %19 = ptr_add %18, %8 : tensor<1024xptr<T>, #L>
  store %19, %17, %10
  return
})";
  for (size_t at = text.find('T', 0); at != std::string::npos; at = text.find('T', at))
    if (text[at - 1] == '<' || text[at - 1] == 'x') text.replace(at, 1, t);
    else ++at;
  return text;
}

const Layouts kVec4{{"L", blocked1d(1024, 4)}};

TEST(CodegenEntry, VectorAddWithHintsLoadsFourFloatsAtOnce) {
  Emitted e = emit(vectorAdd(true), kVec4);
  // 8 elements per thread in two runs of 4 (registers 0-3 and 4-7, 512 elements apart).
  EXPECT_EQ(count(e.ptx, "@%p"), 6) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(^\s+@%p\d+ ld\.global\.v4\.f32 \{%f\d+, %f\d+, %f\d+, %f\d+\}, \[%rd\d+\];)"), 4) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(^\s+@%p\d+ st\.global\.v4\.f32 \[%rd\d+\], \{%f\d+, %f\d+, %f\d+, %f\d+\};)"), 2) << e.ptx;
  EXPECT_EQ(count(e.ptx, "ld.global"), 4);
  EXPECT_EQ(count(e.ptx, ".param .u64 .ptr .global .align 16 add_kernel_x_ptr"), 1) << e.ptx;
  EXPECT_EQ(count(e.ptx, ".param .u64 .ptr .global .align 16 add_kernel_output_ptr"), 1) << e.ptx;
  EXPECT_EQ(count(e.ptx, ".param .s32 add_kernel_n_elements"), 1) << e.ptx;
  EXPECT_EQ(count(e.ptx, ".maxntid 128, 1, 1"), 1) << e.ptx;
  EXPECT_EQ(e.info.name, "add_kernel");
  EXPECT_EQ(e.info.numWarps, 4);
  EXPECT_EQ(e.info.sharedBytes, 0);
  EXPECT_EQ(count(e.ptx, ".extern .shared"), 0);
}

TEST(CodegenEntry, VectorAddOfIntegersUsesB32Vectors) {
  Emitted e = emit(vectorAdd(true, "i32"), kVec4);
  EXPECT_EQ(countMatching(e.ptx, R"(@%p\d+ ld\.global\.v4\.b32 \{%r\d+, %r\d+, %r\d+, %r\d+\}, \[%rd\d+\];)"), 4) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(@%p\d+ st\.global\.v4\.b32 )"), 2) << e.ptx;
}

TEST(CodegenEntry, VectorAddWithoutHintsLoadsOneElementAtATime) {
  Emitted e = emit(vectorAdd(false), kVec4);
  EXPECT_EQ(countMatching(e.ptx, R"(^\s+@%p\d+ ld\.global\.f32 %f\d+, \[%rd\d+(\+\d+)?\];)"), 16) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(^\s+@%p\d+ st\.global\.f32 \[%rd\d+(\+\d+)?\], %f\d+;)"), 8) << e.ptx;
  // The addresses of four contiguous elements are one register and immediate offsets.
  EXPECT_EQ(countMatching(e.ptx, R"(ld\.global\.f32 %f\d+, \[%rd\d+\+12\];)"), 4) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(mad\.wide\.s32 %rd)"), 6) << e.ptx;
  EXPECT_EQ(count(e.ptx, ".v4"), 0);
  EXPECT_EQ(count(e.ptx, ".align"), 0) << e.ptx;  // nothing promised about the pointers
  // A masked load without `other` gives 0 where the mask is off: the fill comes first.
  EXPECT_EQ(countMatching(e.ptx, R"(^\s+mov\.f32 %f\d+, 0f00000000;)"), 16) << e.ptx;
}

TEST(CodegenEntry, VectorAddAssemblesWithoutSpills) {
  expectAssembles(vectorAdd(true), kVec4);
  expectAssembles(vectorAdd(false), kVec4);
  expectAssembles(vectorAdd(true, "f16"), {{"L", blocked1d(1024, 8)}});
  expectAssembles(vectorAdd(false, "bf16"), {{"L", blocked1d(1024, 2)}});
}

// Every thread stores what it computed for each element it holds: run the PTX for every thread of
// program 1 and collect the addresses.
TEST(CodegenEntry, VectorAddStoresEveryElementOnceWithItsIndex) {
  Emitted e = emit(vectorAdd(false, "i32"), kVec4);
  std::map<uint64_t, int> seen;
  for (uint32_t tid = 0; tid < 128; ++tid) {
    PtxThread t;
    t.tid = tid;
    t.ctaid[0] = 1;
    t.params = {{"add_kernel_x_ptr", 0x10000}, {"add_kernel_y_ptr", 0x20000}, {"add_kernel_output_ptr", 0x30000},
                {"add_kernel_n_elements", 1500}};
    for (uint32_t i = 0; i < 2048; ++i) t.memory[0x10000 + 4 * i] = i, t.memory[0x20000 + 4 * i] = 7 * i;
    runThread(e.ptx, t);
    ASSERT_EQ(t.error, "");
    for (const Store& s : t.stores) {
      ASSERT_EQ(s.bytes, 4);
      uint64_t i = (s.address - 0x30000) / 4;
      EXPECT_EQ(s.value, 8 * i) << "element " << i;
      ++seen[i];
    }
  }
  // Program 1 covers elements 1024..2047; the mask keeps 1024..1499.
  EXPECT_EQ(seen.size(), 1500u - 1024u);
  for (const auto& [i, n] : seen) {
    EXPECT_TRUE(i >= 1024 && i < 1500) << i;
    EXPECT_EQ(n, 1) << i;
  }
}

// The whole module of a small copy, one element per thread: parameters, thread indices, the lane
// and warp parts of the coordinate, one address per access.
TEST(CodegenEntry, ExactTextOfACopy) {
  Emitted e = emit(R"(func @copy(%in: ptr<f32>, %out: ptr<f32>) {
  %a = arange {end = 128, start = 0} : tensor<128xi32, #L>
  %ip = splat %in : tensor<128xptr<f32>, #L>
  %ia = ptr_add %ip, %a : tensor<128xptr<f32>, #L>
  %v = load %ia : tensor<128xf32, #L>
  %op = splat %out : tensor<128xptr<f32>, #L>
  %oa = ptr_add %op, %a : tensor<128xptr<f32>, #L>
  store %oa, %v
  return
})",
                   {{"L", blocked1d(128, 1)}});
  EXPECT_EQ(e.ptx, R"(.version 9.0
.target sm_80
.address_size 64

.visible .entry copy(
    .param .u64 .ptr .global copy_in,
    .param .u64 .ptr .global copy_out
)
.maxntid 128, 1, 1
{
    .reg .b32 %r<7>;
    .reg .b64 %rd<4>;
    .reg .f32 %f<1>;

    ld.param.u64 %rd0, [copy_in];
    ld.param.u64 %rd1, [copy_out];
    mov.u32 %r0, %tid.x;
    and.b32 %r1, %r0, 31;
    shr.u32 %r2, %r0, 5;
    bfe.u32 %r3, %r1, 0, 5;
    bfe.u32 %r4, %r2, 0, 2;
    shl.b32 %r5, %r4, 5;
    xor.b32 %r6, %r3, %r5;
    mad.wide.s32 %rd2, %r6, 4, %rd0;
    ld.global.f32 %f0, [%rd2];
    mad.wide.s32 %rd3, %r6, 4, %rd1;
    st.global.f32 [%rd3], %f0;
    ret;
}
)");
}

// Four elements per thread, 16-byte aligned pointers: one v4 access each way, at coordinate 4 * tid.
TEST(CodegenEntry, ExactTextOfAVectorCopy) {
  Emitted e = emit(R"(func @copy(%in: ptr<f32>, %out: ptr<f32>) {
  %i = multiple_of %in {values = [16]} : ptr<f32>
  %o = multiple_of %out {values = [16]} : ptr<f32>
  %a = arange {end = 512, start = 0} : tensor<512xi32, #L>
  %ip = splat %i : tensor<512xptr<f32>, #L>
  %ia = ptr_add %ip, %a : tensor<512xptr<f32>, #L>
  %v = load %ia : tensor<512xf32, #L>
  %op = splat %o : tensor<512xptr<f32>, #L>
  %oa = ptr_add %op, %a : tensor<512xptr<f32>, #L>
  store %oa, %v
  return
})",
                   {{"L", blocked1d(512, 4)}});
  EXPECT_EQ(body(e.ptx), R"(ld.param.u64 %rd0, [copy_in];
ld.param.u64 %rd1, [copy_out];
mov.u32 %r0, %tid.x;
and.b32 %r1, %r0, 31;
shr.u32 %r2, %r0, 5;
bfe.u32 %r3, %r1, 0, 5;
shl.b32 %r4, %r3, 2;
bfe.u32 %r5, %r2, 0, 2;
shl.b32 %r6, %r5, 7;
xor.b32 %r7, %r4, %r6;
mad.wide.s32 %rd2, %r7, 4, %rd0;
ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd2];
mad.wide.s32 %rd3, %r7, 4, %rd1;
st.global.v4.f32 [%rd3], {%f0, %f1, %f2, %f3};
ret;
)");
  EXPECT_EQ(count(e.ptx, ".param .u64 .ptr .global .align 16 copy_in"), 1);
}

TEST(CodegenEntry, ScalarParametersAndTheirRegisters) {
  std::string text = R"(func @params(%b: i1, %c: i8, %d: u16, %h: f16, %g: bf16, %f8: f8e4m3, %l: i64, %u: u64, %x: f64, %out: ptr<f64>) {
  %0 = cast %b : f64
  %1 = cast %c : f64
  %2 = cast %d : f64
  %3 = cast %h : f64
  %4 = cast %g : f64
  %5 = cast %f8 : f64
  %6 = cast %l : f64
  %7 = cast %u : f64
  %s1 = add %0, %1 : f64
  %s2 = add %s1, %2 : f64
  %s3 = add %s2, %3 : f64
  %s4 = add %s3, %4 : f64
  %s5 = add %s4, %5 : f64
  %s6 = add %s5, %6 : f64
  %s7 = add %s6, %7 : f64
  %s8 = add %s7, %x : f64
  store %out, %s8
  return
})";
  Emitted e = emit(text, {}, ptx::kSm90a);
  for (const char* decl : {".param .u8 params_b", ".param .s8 params_c", ".param .u16 params_d", ".param .b16 params_h",
                           ".param .b16 params_g", ".param .b8 params_f8", ".param .s64 params_l", ".param .u64 params_u",
                           ".param .f64 params_x", ".param .u64 .ptr .global params_out"})
    EXPECT_EQ(count(e.ptx, decl), 1) << decl << "\n" << e.ptx;
  EXPECT_EQ(count(e.ptx, ".align"), 0);
  EXPECT_EQ(count(e.ptx, "ld.param"), 10);
  // The bool parameter becomes a predicate; the fp8 byte lands in a 16-bit register.
  EXPECT_EQ(countMatching(e.ptx, R"(setp\.ne\.u32 %p\d+, %r\d+, 0;)"), 1) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(ld\.param\.u8 %h\d+, \[params_f8\];)"), 1) << e.ptx;
  // The scalar store: thread 0 only.
  std::smatch tid;
  ASSERT_TRUE(std::regex_search(e.ptx, tid, std::regex(R"(mov\.u32 (%r\d+), %tid\.x;)")));
  EXPECT_EQ(count(e.ptx, "setp.eq.u32 %p1, " + tid[1].str() + ", 0;"), 1) << e.ptx;
  EXPECT_EQ(countMatching(e.ptx, R"(@%p\d+ st\.global\.f64 \[%rd\d+\], %fd\d+;)"), 1) << e.ptx;
  auto m = parseGpu(text);
  expectAssembles(*m->functions.at(0));
}

TEST(CodegenEntry, ParameterNamesThatPtxCannotSpellAreNumbered) {
  auto m = parseGpu(R"(func @k(%a.b: i32, %c: i32) {
  return
})");
  Emitted e = emit(*m->functions.at(0));
  EXPECT_EQ(count(e.ptx, ".param .s32 k_arg0"), 1) << e.ptx;
  EXPECT_EQ(count(e.ptx, ".param .s32 k_c"), 1) << e.ptx;
  EXPECT_EQ(count(e.ptx, "ret;"), 1) << e.ptx;
}

TEST(CodegenEntry, LaunchBoundFollowsNumWarps) {
  auto m = parseGpu("func @k() {\n  return\n}");
  EXPECT_EQ(count(emit(*m->functions.at(0), ptx::kSm80, 8).ptx, ".maxntid 256, 1, 1"), 1);
  EXPECT_EQ(count(emit(*m->functions.at(0), ptx::kSm80, 1).ptx, ".maxntid 32, 1, 1"), 1);
  EXPECT_THROW(emit(*m->functions.at(0), ptx::kSm80, 3), InternalError);
}

TEST(CodegenEntry, TileWithoutALayoutIsAnInternalError) {
  auto m = parseGpu(R"(func @k(%p: ptr<f32>) {
  %0 = arange {end = 16, start = 0} : tensor<16xi32>
  return
})");
  EXPECT_THROW(emit(*m->functions.at(0)), InternalError);
}

}  // namespace
}  // namespace kiln::lower::test
