// Structure tests of sema on the example kernels of examples/: each lowers to verified IR, with
// the loops, carried values and inlined helpers the source implies.
#include <fstream>
#include <sstream>

#include "structure_util.h"

namespace kiln::sema::test {
namespace {

using ir::Opcode;

std::unique_ptr<ir::Module> lowerExample(const std::string& file, const std::string& kernel, const std::string& sig) {
  std::string path = std::string(KILN_SOURCE_DIR) + "/examples/" + file;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  auto module = frontend::parseModule(makeSource(path, ss.str()));
  return lowerKernel(*module, kernel, parseSignature(sig));
}

TEST(StructureExamples, VectorAdd) {
  auto m = lowerExample("vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
  EXPECT_EQ(m->functions[0]->body.numArgs(), 4u);
  EXPECT_EQ(countOps(*m, Opcode::Store), 1);
  EXPECT_EQ(countOps(*m, Opcode::MultipleOf), 3);
}

TEST(StructureExamples, ControlFlow) {
  auto c = lowerExample("control_flow.py", "collatz_steps_kernel", "*i32, *i32, i32");
  const ir::Op* ifOp = findOp(*c, Opcode::If);
  ASSERT_TRUE(ifOp);
  const ir::Op* loop = findOp(ifOp->region(0), Opcode::While);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->numResults(), 2u);  // x, steps
  auto s = lowerExample("control_flow.py", "searchsorted_kernel", "*fp32, i32, *fp32, *i32");
  EXPECT_EQ(findOp(*s, Opcode::While)->numResults(), 2u);  // lo, hi
  auto p = lowerExample("control_flow.py", "polyval_kernel", "*fp32, *fp32, *fp32, i32, 3, 256");
  EXPECT_EQ(countOps(*p, Opcode::For), 0);
  EXPECT_EQ(countOps(*p, Opcode::Load), 5);  // x, then DEGREE + 1 coefficients
}

TEST(StructureExamples, Matmul) {
  const char* sig = "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, 1, i32, 1, i32, 1, 64, 64, 32, 8, ";
  auto plain = lowerExample("matmul.py", "matmul_kernel", std::string(sig) + "\"\"");
  const ir::Op* loop = findOp(*plain, Opcode::For);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->numResults(), 3u);  // accumulator, a_ptrs, b_ptrs
  EXPECT_EQ(countOps(*plain, Opcode::Dot), 1);
  EXPECT_EQ(countOps(*plain, Opcode::Select), 0);
  auto leaky = lowerExample("matmul.py", "matmul_kernel", std::string(sig) + "\"leaky_relu\"");
  EXPECT_EQ(countOps(*leaky, Opcode::Select), 1);  // the inlined leaky_relu
  EXPECT_EQ(leaky->functions[0]->body.numArgs(), 12u);
}

TEST(StructureExamples, FlashAttention) {
  auto m = lowerExample("flash_attention.py", "attn_fwd",
                        "*fp16, *fp16, *fp16, fp32, *fp32, *fp16, i32, i32, i32, 1, i32, i32, i32, 1, "
                        "i32, i32, i32, 1, i32, i32, i32, 1, i32, i32, 64, 128, 64, True");
  const ir::Op* loop = findOp(*m, Opcode::For);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->numResults(), 3u);  // acc, l_i, m_i
  EXPECT_EQ(countOps(*m, Opcode::Dot), 2);
  EXPECT_EQ(countOps(*m, Opcode::If), 0);  // CAUSAL is a constexpr
}

TEST(StructureExamples, Others) {
  auto sm = lowerExample("softmax.py", "softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, 1024, 4");
  EXPECT_EQ(findOp(*sm, Opcode::For)->intAttr("num_stages"), 4);
  auto ln = lowerExample("layernorm.py", "layer_norm_fwd_kernel",
                         "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 1024");
  EXPECT_EQ(countOps(*ln, Opcode::For), 3);
  auto rs = lowerExample("reductions.py", "row_stats_kernel", "*fp32, *fp32, *fp32, i32, i32, 1024");
  EXPECT_EQ(countOps(*rs, Opcode::Store), 2);
  auto ss = lowerExample("reductions.py", "segment_sum_kernel", "*fp32, *i32, *fp32, 256");
  EXPECT_EQ(findOp(*ss, Opcode::For)->numResults(), 1u);
  auto am = lowerExample("reductions.py", "argmax_kernel", "*fp32, *i32, *fp32, i32, i32, 1024");
  EXPECT_EQ(countOps(*am, Opcode::Reduce), 2);
  auto h = lowerExample("integer_ops.py", "hash_kernel", "*u32, *u32, *u32, i32, 3, 256");
  EXPECT_EQ(countOps(*h, Opcode::For), 0);
  auto ia = lowerExample("integer_ops.py", "int_arith_kernel", "*i32, *i32, *i32, *i32, *i32, *i32, i32, 256");
  EXPECT_GE(countOps(*ia, Opcode::Store), 1);
  auto g = lowerExample("grid2d.py", "add2d_kernel", "*fp32, *fp32, *fp32, i32, i32, i32, i32, i32, 32, 32");
  EXPECT_EQ(countOps(*g, Opcode::Store), 1);
  auto t = lowerExample("grid2d.py", "transpose_kernel", "*fp32, *fp32, i32, i32, i32, 1, i32, 1, 32, 32");
  EXPECT_EQ(countOps(*t, Opcode::Permute), 2);
}

}  // namespace
}  // namespace kiln::sema::test
