// The atomic builtins' IR: val and mask broadcast and converted to the pointer's shape and type, Triton's
// defaults for sem and scope, float max/min as two integer atomics on the value's bits, atomic_cas
// unconverted, tensor methods, debug_barrier, and the errors of misuse (each located at the call).
#include "values_util.h"

namespace kiln::sema::test {
namespace {

class ValuesAtomic : public Values {};

TEST_F(ValuesAtomic, ValAndMaskBroadcastAndConvert) {
  SValue p = ptrs({4, 8}, Scalar::F32);
  SValue old = callTl("atomic_add", {p, tile({8}, Scalar::I32)}, {{"mask", tile({4, 1}, Scalar::I1)}});
  EXPECT_EQ(ty(old), "tensor<4x8xf32>");
  const ir::Op* op = last(Opcode::AtomicRmw);
  ASSERT_TRUE(op);
  EXPECT_EQ(op->strAttr("kind"), "add");
  EXPECT_EQ(op->strAttr("sem"), "acq_rel");  // Triton's defaults
  EXPECT_EQ(op->strAttr("scope"), "gpu");
  EXPECT_EQ(op->operand(1)->type.str(), "tensor<4x8xf32>");
  EXPECT_EQ(op->operand(2)->type.str(), "tensor<4x8xi1>");
  SValue s = callTl("atomic_xchg", {ptrs({}, Scalar::I64), I(3)}, {{"sem", S("release")}, {"scope", S("sys")}});
  EXPECT_EQ(ty(s), "i64");
  EXPECT_EQ(last(Opcode::AtomicRmw)->strAttr("scope"), "sys");
  expectValid();
}

TEST_F(ValuesAtomic, FloatMaxIsTwoIntegerAtomics) {
  SValue old = callTl("atomic_max", {ptrs({16}, Scalar::F64), tile({16}, Scalar::F64)});
  EXPECT_EQ(ty(old), "tensor<16xf64>");
  EXPECT_EQ(count(Opcode::AtomicRmw), 2);
  std::vector<std::string> kinds, types;
  ir::walk(fn, [&](ir::Op& o) {
    if (o.opcode != Opcode::AtomicRmw) return;
    kinds.push_back(o.strAttr("kind"));
    types.push_back(o.result(0)->type.str());
  });
  EXPECT_EQ(kinds, (std::vector<std::string>{"max", "min"}));  // signed max first, then unsigned min
  EXPECT_EQ(types, (std::vector<std::string>{"tensor<16xi64>", "tensor<16xu64>"}));
  callTl("atomic_min", {ptrs({}, Scalar::F32), F(0.5)});
  EXPECT_EQ(last(Opcode::AtomicRmw)->strAttr("kind"), "max");  // min's negative half: unsigned max
  expectValid();
}

TEST_F(ValuesAtomic, CasTakesOperandsAsTheyAre) {
  SValue p = ptrs({8}, Scalar::F16);
  SValue old = callTl("atomic_cas", {p, tile({8}, Scalar::F16), tile({8}, Scalar::F16)}, {{"sem", S("relaxed")}});
  EXPECT_EQ(ty(old), "tensor<8xf16>");
  EXPECT_EQ(last(Opcode::AtomicCas)->strAttr("sem"), "relaxed");
  SValue m = method(ptrs({8}, Scalar::U32), "atomic_or", {tile({8}, Scalar::U32)});
  EXPECT_EQ(ty(m), "tensor<8xu32>");
  callTl("debug_barrier", {});
  EXPECT_EQ(count(Opcode::DebugBarrier), 1);
  expectValid();
}

TEST_F(ValuesAtomic, MisuseIsAnError) {
  EXPECT_EQ(error([&] { callTl("atomic_and", {ptrs({8}, Scalar::F32), I(1)}); }),
            "tl.atomic_and() does not support fp32 elements (atomic_and takes int32, uint32, int64 or uint64)");
  EXPECT_TRUE(has(error([&] { callTl("atomic_add", {ptrs({8}, Scalar::U16), I(1)}); }),
                  "does not support uint16 elements (atomic_add takes int32, uint32, int64, uint64, fp16, bf16"));
  EXPECT_TRUE(has(error([&] { callTl("atomic_min", {ptrs({8}, Scalar::BF16), F(1)}); }), "does not support bf16"));
  EXPECT_EQ(error([&] { callTl("atomic_cas", {ptrs({8}, Scalar::I8), I(0), I(1)}); }),
            "tl.atomic_cas() only supports elements 16, 32 or 64 bits wide, got int8");
  EXPECT_EQ(error([&] { callTl("atomic_cas", {ptrs({8}, Scalar::I32), tile({8}, Scalar::I32), I(1)}); }),
            "tl.atomic_cas(): val must be a tensor<8xi32>, the pointer's element type and shape (atomic_cas converts "
            "and broadcasts nothing), got a scalar of type i32");
  EXPECT_EQ(error([&] { callTl("atomic_add", {ptrs({8}, Scalar::I32), I(1)}, {{"sem", S("seq_cst")}}); }),
            "tl.atomic_add(): sem 'seq_cst' is not supported; use 'relaxed', 'acquire', 'release' or 'acq_rel'");
  EXPECT_EQ(error([&] { callTl("atomic_add", {ptrs({8}, Scalar::I32), I(1)}, {{"scope", S("cluster")}}); }),
            "tl.atomic_add(): scope 'cluster' is not supported; use 'gpu', 'cta' or 'sys'");
  EXPECT_TRUE(has(error([&] { callTl("atomic_add", {ptrs({8}, Scalar::I32), I(1)}, {{"sem", I(1)}}); }),
                  "'sem' must be a constexpr string"));
  EXPECT_EQ(error([&] { callTl("atomic_add", {ptrs({8}, Scalar::I32), tile({4}, Scalar::I32)}); }),
            "tl.atomic_add(): val of shape [4] does not broadcast to the pointer shape [8]");
  EXPECT_EQ(error([&] { callTl("atomic_add", {ptrs({}, Scalar::I32), tile({4}, Scalar::I32)}); }),
            "tl.atomic_add(): val must be a scalar when updating through a single pointer, got a tensor<4xi32>");
  EXPECT_EQ(error([&] { callTl("atomic_xor", {tile({4}, Scalar::I32), I(1)}); }),
            "tl.atomic_xor() expects a pointer or a tensor of pointers, got a tensor<4xi32>");
  EXPECT_TRUE(has(error([&] { callTl("debug_barrier", {I(1)}); }), "takes 0 positional argument(s) but 1 were given"));
}

}  // namespace
}  // namespace kiln::sema::test
