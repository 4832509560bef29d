// examples/control_flow.py: while loops with data-dependent trip counts (Collatz steps, binary
// search with scalar loads) and tl.static_range unrolling (Horner), against C++ references.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

int32_t collatzSteps(int64_t x) {
  int32_t steps = 0;
  while (x > 1) x = (x % 2 == 0) ? x / 2 : 3 * x + 1, ++steps;
  return steps;
}

class CollatzSig : public ::testing::TestWithParam<const char*> {};

TEST_P(CollatzSig, WhileLoop) {
  auto k = compileExample("control_flow.py", "collatz_steps_kernel", GetParam());
  ASSERT_TRUE(k);
  KT_RNG(rng);
  // Starting values below 10000 stay below 2^31 along their orbits (27114424 at most).
  auto start = rng.ints<int32_t>(60, 1, 9999);
  for (int32_t v : {1, 2, 27, 0, -7, 9663}) start.push_back(v);  // 27: 111 steps; <= 1: none
  const int64_t n = static_cast<int64_t>(start.size());
  std::vector<int32_t> steps(n), ref(n);
  poison(steps);
  // Three programs more than values: the `if pid < n` guard must keep them out of the buffers.
  ASSERT_TRUE(run(*k, {static_cast<uint32_t>(n + 3)}, {Arg::buffer(start), Arg::buffer(steps), Arg::integer(n)}));
  for (int64_t i = 0; i < n; ++i) ref[i] = collatzSteps(start[i]);
  EXPECT_TRUE(allEqual(steps, ref));
}

INSTANTIATE_TEST_SUITE_P(ControlFlow, CollatzSig, ::testing::Values("*i32, *i32, i32", "*i32:16, *i32:16, i32"));

template <class T>
void checkSearch(const kiln::Kernel& k, std::vector<T> sorted, const std::vector<T>& queries) {
  std::sort(sorted.begin(), sorted.end());
  const int64_t nq = static_cast<int64_t>(queries.size());
  std::vector<T> q = queries;
  std::vector<int32_t> out(nq), ref(nq);
  poison(out);
  ASSERT_TRUE(run(k, {static_cast<uint32_t>(nq)},
                  {Arg::buffer(sorted), Arg::integer(static_cast<int64_t>(sorted.size())), Arg::buffer(q),
                   Arg::buffer(out)}));
  for (int64_t i = 0; i < nq; ++i)
    ref[i] = static_cast<int32_t>(std::lower_bound(sorted.begin(), sorted.end(), q[i]) - sorted.begin());
  EXPECT_TRUE(allEqual(out, ref));
}

class SearchSortedSig : public ::testing::TestWithParam<const char*> {};

TEST_P(SearchSortedSig, Float) {
  auto k = compileExample("control_flow.py", "searchsorted_kernel", GetParam());
  ASSERT_TRUE(k);
  KT_RNG(rng);
  auto sorted = rng.f32(1000, -10, 10);
  auto queries = rng.f32(40, -12, 12);
  for (int i = 0; i < 10; ++i) queries.push_back(sorted[rng.integer(0, 999)]);  // exact hits
  checkSearch(*k, sorted, queries);
  checkSearch(*k, std::vector<float>{0.5f}, std::vector<float>{0.0f, 0.5f, 1.0f});  // one element
}

INSTANTIATE_TEST_SUITE_P(ControlFlow, SearchSortedSig,
                         ::testing::Values("*fp32, i32, *fp32, *i32", "*fp32:16, i32, *fp32:16, *i32:16"));

TEST(ControlFlow, SearchSortedIntWithDuplicates) {
  auto k = compileExample("control_flow.py", "searchsorted_kernel", "*i32, i32, *i32, *i32");
  ASSERT_TRUE(k);
  KT_RNG(rng);
  // Few distinct values: long runs of duplicates, where the leftmost position matters.
  checkSearch(*k, rng.ints<int32_t>(777, -20, 20), rng.ints<int32_t>(64, -25, 25));
}

TEST(ControlFlow, SearchSortedEmpty) {
  // No elements: the loop never runs and never loads from the (empty) array.
  auto k = compileExample("control_flow.py", "searchsorted_kernel", "*i32, i32, *i32, *i32");
  ASSERT_TRUE(k);
  checkSearch(*k, std::vector<int32_t>{}, std::vector<int32_t>{-1, 0, 5});
}

void checkPolyval(int degree, int64_t n, int64_t block, bool hints = false) {
  SCOPED_TRACE("DEGREE " + std::to_string(degree) + ", n " + std::to_string(n));
  const std::string sig = hints ? "*fp32:16, *fp32:16, *fp32:16, i32:16, " : "*fp32, *fp32, *fp32, i32, ";
  auto k = compileExample("control_flow.py", "polyval_kernel", sig + std::to_string(degree) + ", " + std::to_string(block));
  ASSERT_TRUE(k);
  KT_RNG(rng);
  auto x = rng.f32(n, -1.5, 1.5), coeff = rng.f32(degree + 1, -1, 1);
  std::vector<float> out(n);
  poison(out);
  ASSERT_TRUE(run(*k, {cdiv(n, block)}, {Arg::buffer(x), Arg::buffer(coeff), Arg::buffer(out), Arg::integer(n)}));
  std::vector<double> ref(n), scale(n);
  for (int64_t i = 0; i < n; ++i) {
    double p = 0, pw = 1;
    for (int d = 0; d <= degree; ++d) p += coeff[d] * pw, scale[i] += std::fabs(coeff[d] * pw), pw *= x[i];
    ref[i] = p;
  }
  EXPECT_TRUE(allClose(toDouble(out), ref, Tol{1e-5, 0}, scale));
}

TEST(ControlFlow, StaticRangeHorner) {
  checkPolyval(0, 10, 16);  // a constant polynomial: one unrolled step
  checkPolyval(3, 1000, 256);
  checkPolyval(7, 1, 16);
  checkPolyval(4, 992, 128, true);  // ":16" hints: n divisible by 16
}

TEST(ControlFlow, StaticRangeUnrollsInIR) {
  // The loop is gone from the IR: one scalar coefficient load per unrolled iteration.
  auto k = compileExample("control_flow.py", "polyval_kernel", "*fp32, *fp32, *fp32, i32, 5, 64");
  ASSERT_TRUE(k);
  const std::string& ir = k->ir();
  EXPECT_EQ(ir.find(" for "), std::string::npos) << ir;
  size_t loads = 0;
  for (size_t at = ir.find("= load "); at != std::string::npos; at = ir.find("= load ", at + 1)) ++loads;
  EXPECT_EQ(loads, 1u + 6u) << ir;  // x, then coefficients 5..0
}

}  // namespace
}  // namespace kt
