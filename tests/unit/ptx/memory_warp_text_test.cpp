// Exact-text tests of the memory and warp selections: vector loads/stores with packing, masks and
// `other`, cache hints, cp.async, ldmatrix, shuffles, barriers, special registers and mma.
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

using ir::Scalar;

struct Access {
  Entry e{"k", kSm80};
  Reg address, pred;
  std::vector<Reg> vals, other;
  Access(Scalar t, int n, bool shared = false, bool withOther = false) {
    address = e.reg(shared ? RegClass::B32 : RegClass::B64);
    pred = e.reg(RegClass::Pred);
    for (int i = 0; i < n; ++i) vals.push_back(e.reg(regClassOf(t)));
    if (withOther)
      for (int i = 0; i < n; ++i) other.push_back(e.reg(regClassOf(t)));
  }
};

std::string load(Scalar t, int n, Guard mask = {}, bool withOther = false, MemHints h = {}, bool shared = false) {
  Access a(t, n, shared, withOther);
  if (mask.active()) mask.pred = a.pred;
  loadVector(a.e, shared ? Space::Shared : Space::Global, t, a.vals, a.address, 0, h, mask, a.other);
  return bodyOf(a.e);
}

std::string store(Scalar t, int n, Guard mask = {}, MemHints h = {}) {
  Access a(t, n);
  if (mask.active()) mask.pred = a.pred;
  storeVector(a.e, Space::Global, t, a.vals, a.address, 8, h, mask);
  return bodyOf(a.e);
}

const Guard kMasked = when(Reg{RegClass::Pred, 0});

TEST(PtxMemory, DirectVectorAccesses) {
  EXPECT_EQ(load(Scalar::F32, 4), "    ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd0];\n");
  EXPECT_EQ(load(Scalar::I64, 2), "    ld.global.v2.b64 {%rd1, %rd2}, [%rd0];\n");
  EXPECT_EQ(load(Scalar::BF16, 4), "    ld.global.v4.b16 {%h0, %h1, %h2, %h3}, [%rd0];\n");
  EXPECT_EQ(load(Scalar::I8, 4), "    ld.global.v4.s8 {%r0, %r1, %r2, %r3}, [%rd0];\n");  // sign-extends
  EXPECT_EQ(load(Scalar::U16, 2), "    ld.global.v2.u16 {%r0, %r1}, [%rd0];\n");
  EXPECT_EQ(load(Scalar::F32, 1, {}, false, {}, true), "    ld.shared.f32 %f0, [%r0];\n");
  EXPECT_EQ(store(Scalar::F64, 2), "    st.global.v2.f64 [%rd0+8], {%fd0, %fd1};\n");
  EXPECT_EQ(store(Scalar::U8, 2), "    st.global.v2.u8 [%rd0+8], {%r0, %r1};\n");
  EXPECT_EQ(store(Scalar::I32, 1, kMasked), "    @%p0 st.global.b32 [%rd0+8], %r0;\n");
}

TEST(PtxMemory, MasksFillOtherOrZeroFirst) {
  EXPECT_EQ(load(Scalar::F32, 2, kMasked),
            "    mov.f32 %f0, 0f00000000;\n    mov.f32 %f1, 0f00000000;\n"
            "    @%p0 ld.global.v2.f32 {%f0, %f1}, [%rd0];\n");
  EXPECT_EQ(load(Scalar::I32, 2, kMasked, true),
            "    mov.b32 %r0, %r2;\n    mov.b32 %r1, %r3;\n    @%p0 ld.global.v2.b32 {%r0, %r1}, [%rd0];\n");
  EXPECT_EQ(load(Scalar::I1, 2, kMasked, true),
            "    selp.b32 %r0, 1, 0, %p3;\n    selp.b32 %r1, 1, 0, %p4;\n"
            "    @%p0 ld.global.v2.u8 {%r0, %r1}, [%rd0];\n"
            "    setp.ne.u32 %p1, %r0, 0;\n    setp.ne.u32 %p2, %r1, 0;\n");
}

TEST(PtxMemory, SubWordElementsPastFourTravelAsWords) {
  EXPECT_EQ(load(Scalar::F16, 8),
            "    ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%rd0];\n"
            "    mov.b32 {%h0, %h1}, %r0;\n    mov.b32 {%h2, %h3}, %r1;\n"
            "    mov.b32 {%h4, %h5}, %r2;\n    mov.b32 {%h6, %h7}, %r3;\n");
  // `other` is packed into the words the masked load writes; no select after unpacking.
  EXPECT_EQ(load(Scalar::I8, 8, kMasked, true),
            "    prmt.b32 %r16, %r8, %r9, 0x40;\n    prmt.b32 %r17, %r10, %r11, 0x40;\n"
            "    prmt.b32 %r18, %r16, %r17, 0x5410;\n    prmt.b32 %r19, %r12, %r13, 0x40;\n"
            "    prmt.b32 %r20, %r14, %r15, 0x40;\n    prmt.b32 %r21, %r19, %r20, 0x5410;\n"
            "    @%p0 ld.global.v2.b32 {%r18, %r21}, [%rd0];\n"
            "    bfe.s32 %r0, %r18, 0, 8;\n    bfe.s32 %r1, %r18, 8, 8;\n    bfe.s32 %r2, %r18, 16, 8;\n"
            "    bfe.s32 %r3, %r18, 24, 8;\n    bfe.s32 %r4, %r21, 0, 8;\n    bfe.s32 %r5, %r21, 8, 8;\n"
            "    bfe.s32 %r6, %r21, 16, 8;\n    bfe.s32 %r7, %r21, 24, 8;\n");
  EXPECT_EQ(store(Scalar::F16, 8),
            "    mov.b32 %r0, {%h0, %h1};\n    mov.b32 %r1, {%h2, %h3};\n    mov.b32 %r2, {%h4, %h5};\n"
            "    mov.b32 %r3, {%h6, %h7};\n    st.global.v4.b32 [%rd0+8], {%r0, %r1, %r2, %r3};\n");
  EXPECT_EQ(store(Scalar::U16, 8).rfind("    prmt.b32 %r8, %r0, %r1, 0x5410;\n", 0), 0u);
  EXPECT_EQ(store(Scalar::F8E4M3, 8),
            "    mov.b32 %r0, {%h0, %h1};\n    mov.b32 %r1, {%h2, %h3};\n    prmt.b32 %r2, %r0, %r1, 0x6420;\n"
            "    mov.b32 %r3, {%h4, %h5};\n    mov.b32 %r4, {%h6, %h7};\n    prmt.b32 %r5, %r3, %r4, 0x6420;\n"
            "    st.global.v2.b32 [%rd0+8], {%r2, %r5};\n");
  EXPECT_EQ(load(Scalar::F8E5M2, 8).rfind(
                "    ld.global.v2.b32 {%r0, %r1}, [%rd0];\n    bfe.u32 %r2, %r0, 0, 8;\n    cvt.u16.u32 %h0, %r2;\n"
                "    bfe.u32 %r3, %r0, 8, 8;\n",
                0),
            0u);
}

TEST(PtxMemory, CacheHints) {
  EXPECT_EQ(load(Scalar::F32, 1, {}, false, {CacheOp::CG, Evict::None, false}), "    ld.global.cg.f32 %f0, [%rd0];\n");
  EXPECT_EQ(load(Scalar::F32, 1, {}, false, {CacheOp::None, Evict::Last, false}),
            "    ld.global.L1::evict_last.f32 %f0, [%rd0];\n");
  // .cop and .L1::evict_* do not combine: the priority becomes an L2 cache-hint policy
  EXPECT_EQ(load(Scalar::F32, 1, {}, false, {CacheOp::CS, Evict::First, false}),
            "    createpolicy.fractional.L2::evict_first.b64 %rd1, 1.0;\n"
            "    ld.global.cs.L2::cache_hint.f32 %f0, [%rd0], %rd1;\n");
  EXPECT_EQ(load(Scalar::F32, 1, {}, false, {CacheOp::CG, Evict::First, true}),
            "    ld.volatile.global.f32 %f0, [%rd0];\n");
  EXPECT_EQ(load(Scalar::F32, 1, {}, false, {CacheOp::CG, Evict::None, false}, true), "    ld.shared.f32 %f0, [%r0];\n");
  EXPECT_EQ(store(Scalar::I32, 1, {}, {CacheOp::WT, Evict::None, false}), "    st.global.wt.b32 [%rd0+8], %r0;\n");
  ir::Op op(ir::Opcode::Load, {});
  op.setAttr("cache", std::string("cg"));
  op.setAttr("evict", std::string("evict_last"));
  op.setAttr("volatile", int64_t(1));
  MemHints h = memHintsOf(op);
  EXPECT_EQ(h.cache, CacheOp::CG);
  EXPECT_EQ(h.evict, Evict::Last);
  EXPECT_TRUE(h.isVolatile);
  op.setAttr("cache", std::string("xx"));
  EXPECT_THROW(memHintsOf(op), InternalError);
}

TEST(PtxMemory, MisuseIsAnInternalError) {
  EXPECT_THROW(load(Scalar::F32, 8), InternalError);   // 32 bytes
  EXPECT_THROW(load(Scalar::F16, 3), InternalError);   // not a power of two
  Access a(Scalar::F32, 1);
  Reg wrong[] = {a.e.reg(RegClass::B32)};
  EXPECT_THROW(loadVector(a.e, Space::Global, Scalar::F32, wrong, a.address, 0), InternalError);
  EXPECT_THROW(loadVector(a.e, Space::Shared, Scalar::F32, a.vals, a.address, 0), InternalError);  // 64-bit address
  EXPECT_THROW(loadVector(a.e, Space::Global, Scalar::F32, a.vals, a.address, 0, {}, {}, a.vals), InternalError);
}

TEST(PtxMemory, AsyncCopiesAndLdmatrix) {
  Entry e("k", kSm80);
  Reg s = e.reg(RegClass::B32), g = e.reg(RegClass::B64), n = e.reg(RegClass::B32);
  cpAsync(e, s, g, 16);
  cpAsync(e, s, g, 16, Operand(n));
  cpAsync(e, s, g, 4);
  cpAsync(e, s, g, 16, std::nullopt, true);
  cpAsyncCommit(e);
  cpAsyncWait(e, 1);
  std::vector<Reg> frag = {e.reg(RegClass::B32), e.reg(RegClass::B32), e.reg(RegClass::B32), e.reg(RegClass::B32)};
  ldmatrix(e, frag, s, true);
  ldmatrix(e, std::span<const Reg>(frag).first(2), s, false);
  EXPECT_EQ(bodyOf(e),
            "    cp.async.cg.shared.global [%r0], [%rd0], 16;\n"
            "    cp.async.cg.shared.global [%r0], [%rd0], 16, %r1;\n"
            "    cp.async.ca.shared.global [%r0], [%rd0], 4;\n"
            "    cp.async.ca.shared.global [%r0], [%rd0], 16;\n"
            "    cp.async.commit_group;\n"
            "    cp.async.wait_group 1;\n"
            "    ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r2, %r3, %r4, %r5}, [%r0];\n"
            "    ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r2, %r3}, [%r0];\n");
  EXPECT_THROW(cpAsync(e, s, g, 2), InternalError);
  EXPECT_THROW(ldmatrix(e, std::span<const Reg>(frag).first(3), s, false), InternalError);
}

std::string shfl(ShflMode mode, Scalar t, Operand lane, int width = 32) {
  Entry e("k", kSm80);
  Reg s = e.reg(regClassOf(t)), d = e.reg(regClassOf(t));
  shuffle(e, mode, t, d, s, lane, width);
  return bodyOf(e);
}

TEST(PtxWarp, ShufflesOfEveryWidth) {
  EXPECT_EQ(shfl(ShflMode::Bfly, Scalar::F32, 16), "    shfl.sync.bfly.b32 %f1, %f0, 16, 31, 0xFFFFFFFF;\n");
  EXPECT_EQ(shfl(ShflMode::Up, Scalar::I32, 1), "    shfl.sync.up.b32 %r1, %r0, 1, 0, 0xFFFFFFFF;\n");
  // segments of 8 lanes: segment mask 24 in bits 12:8
  EXPECT_EQ(shfl(ShflMode::Down, Scalar::I32, 2, 8), "    shfl.sync.down.b32 %r1, %r0, 2, 6175, 0xFFFFFFFF;\n");
  EXPECT_EQ(shfl(ShflMode::Idx, Scalar::F64, 0),
            "    mov.b64 {%r0, %r1}, %fd0;\n"
            "    shfl.sync.idx.b32 %r0, %r0, 0, 31, 0xFFFFFFFF;\n"
            "    shfl.sync.idx.b32 %r1, %r1, 0, 31, 0xFFFFFFFF;\n"
            "    mov.b64 %fd1, {%r0, %r1};\n");
  EXPECT_EQ(shfl(ShflMode::Bfly, Scalar::F16, 1),
            "    cvt.u32.u16 %r0, %h0;\n    shfl.sync.bfly.b32 %r0, %r0, 1, 31, 0xFFFFFFFF;\n    cvt.u16.u32 %h1, %r0;\n");
  EXPECT_EQ(shfl(ShflMode::Bfly, Scalar::I1, 1),
            "    selp.b32 %r0, 1, 0, %p0;\n    shfl.sync.bfly.b32 %r0, %r0, 1, 31, 0xFFFFFFFF;\n"
            "    setp.ne.u32 %p1, %r0, 0;\n");
  EXPECT_THROW(shfl(ShflMode::Bfly, Scalar::F32, 1, 12), InternalError);
}

TEST(PtxWarp, SpecialRegistersAndBarriers) {
  Entry e("k", kSm80);
  readSpecial(e, SpecialReg::TidX);
  readSpecial(e, SpecialReg::NctaidZ);
  readSpecial(e, SpecialReg::LaneId);
  readSpecial(e, SpecialReg::WarpId);
  barSync(e);
  barSync(e, 2, 128);
  EXPECT_EQ(bodyOf(e),
            "    mov.u32 %r0, %tid.x;\n"
            "    mov.u32 %r1, %nctaid.z;\n"
            "    mov.u32 %r3, %tid.x;\n    and.b32 %r2, %r3, 31;\n"
            "    mov.u32 %r5, %tid.x;\n    shr.u32 %r4, %r5, 5;\n"
            "    bar.sync 0;\n"
            "    bar.sync 2, 128;\n");
  EXPECT_THROW(barSync(e, 16), InternalError);
  EXPECT_THROW(barSync(e, 0, 48), InternalError);
}

TEST(PtxWarp, Mma) {
  Entry e("k", kSm80);
  auto regs = [&](int n, RegClass c) {
    std::vector<Reg> v;
    for (int i = 0; i < n; ++i) v.push_back(e.reg(c));
    return v;
  };
  auto c = regs(4, RegClass::F32), a = regs(4, RegClass::B32), b = regs(2, RegClass::B32);
  mma(e, MmaKind::BF16_F32, c, a, b, c);
  auto ci = regs(4, RegClass::B32);
  mma(e, MmaKind::S8_S32, ci, a, b, ci);
  Reg t = e.reg(RegClass::B32);
  truncateToTf32(e, t, c[0]);
  EXPECT_EQ(bodyOf(e),
            "    mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, "
            "{%r4, %r5}, {%f0, %f1, %f2, %f3};\n"
            "    mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r6, %r7, %r8, %r9}, {%r0, %r1, %r2, %r3}, "
            "{%r4, %r5}, {%r6, %r7, %r8, %r9};\n"
            "    mov.b32 %r10, %f0;\n"
            "    and.b32 %r10, %r10, 0xFFFFE000;\n");
  EXPECT_EQ(mmaShape(MmaKind::TF32_F32).k, 8);
  EXPECT_THROW(mma(e, MmaKind::E4M3_F32, c, a, b, c), CompileError);  // sm_89+
  EXPECT_THROW(mma(e, MmaKind::F16_F16, c, a, b, c), InternalError);  // f16 accumulators are 2 x b32
}

}  // namespace
}  // namespace kiln::ptx::test
