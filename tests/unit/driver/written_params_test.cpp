// writtenParams (src/driver/written_params.h) on compiled kernels: the pointer parameters a store can
// reach, through pointer arithmetic, loop-carried and branch-chosen pointers, and no others (an index
// loaded from an array does not make that array written).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver/compile.h"
#include "driver/written_params.h"
#include "kiln/kiln.h"

namespace {

constexpr const char* kSource = R"(import triton
import triton.language as tl

@triton.jit
def copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)

@triton.jit
def advance(src, dst, n, BLOCK: tl.constexpr):
    for _ in range(0, n, BLOCK):
        offs = tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs))
        src += BLOCK
        dst += BLOCK

@triton.jit
def walk(src, dst, n):
    i = 0
    while i < n:
        tl.store(dst, tl.load(src))
        dst += 1
        i += 1

@triton.jit
def choose(a, b, c, flag):
    if flag > 0:
        p = a
    else:
        p = b
    tl.store(p, tl.load(c))

@triton.jit
def scatter(idx_ptr, out_ptr, BLOCK: tl.constexpr):
    idx = tl.load(idx_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr + idx, 1)

@triton.jit
def reads_only(src, n):
    tl.device_assert(tl.load(src) < n)
)";

std::vector<bool> written(const char* kernel, const char* signature) {
  kiln::Result<kiln::Kernel> k = kiln::compile(kiln::Source::fromString(kSource, "written.py"), kernel, signature);
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().text);
  if (!k.ok()) return {};
  return kiln::writtenParams(k.value().impl().function());
}

TEST(WrittenParams, StoreTargetOnly) {
  EXPECT_EQ(written("copy", "*fp32, *fp32, i32, 16"), (std::vector<bool>{false, true, false}));
}

TEST(WrittenParams, PointersCarriedByAForLoopKeepTheirOwnSource) {
  EXPECT_EQ(written("advance", "*fp32, *fp32, i32, 16"), (std::vector<bool>{false, true, false}));
}

TEST(WrittenParams, PointersCarriedByAWhileLoopKeepTheirOwnSource) {
  EXPECT_EQ(written("walk", "*fp32, *fp32, i32"), (std::vector<bool>{false, true, false}));
}

TEST(WrittenParams, APointerChosenAtRunTimeCountsForEachChoice) {
  EXPECT_EQ(written("choose", "*fp32, *fp32, *fp32, i32"), (std::vector<bool>{true, true, false, false}));
}

TEST(WrittenParams, LoadedIndicesDoNotMakeTheirArrayWritten) {
  EXPECT_EQ(written("scatter", "*i32, *i32, 8"), (std::vector<bool>{false, true}));
}

TEST(WrittenParams, AKernelWithoutStoresWritesNothing) {
  EXPECT_EQ(written("reads_only", "*i32, i32"), (std::vector<bool>{false, false}));
}

}  // namespace
