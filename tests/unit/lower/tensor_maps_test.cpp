// tensorMapSpecs: the specs the launcher encodes, read off a kernel's tensor_map ops in index order,
// each operand a parameter index or a constant, with the box, the swizzle and whether the kernel guards
// the map (guarded = 1: zeros where the launcher cannot encode it).
#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "lower/tensor_maps.h"

namespace kiln::lower::test {
namespace {

TEST(TensorMapSpecs, InIndexOrderWithTheirGuard) {
  auto m = parseGpu(
      "func @f(%x: ptr<f16>, %y: ptr<f32>, %rows: i32, %cols: i32, %ld: i32) {\n"
      "  %one = constant {value = 1} : i32\n"
      "  tensor_map %y, %rows, %one {box = [64], index = 1, swizzle = 0}\n"
      "  tensor_map %x, %rows, %cols, %ld, %one {box = [8, 64], guarded = 1, index = 0, swizzle = 128}\n"
      "  return\n"
      "}\n");
  const std::vector<TensorMapSpec> specs = tensorMapSpecs(*m->functions.at(0));
  ASSERT_EQ(specs.size(), 2u);
  const TensorMapSpec& a = specs[0];
  EXPECT_EQ(a.elem, ir::Scalar::F16);
  EXPECT_EQ(a.base, (TensorMapOperand{0, 0}));
  EXPECT_EQ(a.shape, (std::vector<TensorMapOperand>{{2, 0}, {3, 0}}));
  EXPECT_EQ(a.strides, (std::vector<TensorMapOperand>{{4, 0}, {-1, 1}}));
  EXPECT_EQ(a.box, (std::vector<int64_t>{8, 64}));
  EXPECT_EQ(a.swizzle, 128);
  EXPECT_TRUE(a.guarded);
  const TensorMapSpec& b = specs[1];
  EXPECT_EQ(b.elem, ir::Scalar::F32);
  EXPECT_EQ(b.base, (TensorMapOperand{1, 0}));
  EXPECT_FALSE(b.guarded);  // absent: a map the launcher must encode
}

}  // namespace
}  // namespace kiln::lower::test
