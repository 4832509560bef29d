// reduce_combine and scan on the interpreter, from IR text: the order of combination (a combine that is
// neither associative nor commutative shows it), reverse scans, several tiles at once, rounding after
// each step, scalar results and an assert inside the combine region.
#include <string>

#include "ir/scalar_eval.h"
#include "ir/text.h"
#include "kernel_builder.h"
#include "support/source.h"

namespace kiln::interp::test {
namespace {

std::unique_ptr<ir::Module> parse(const std::string& text) {
  auto m = ir::parseModule(makeSource("combine.tir", text));
  if (auto d = ir::verify(*m->functions.at(0))) ADD_FAILURE() << d->render();
  return m;
}

// f(acc, x) = acc * 10 + x: neither associative nor commutative, so the result spells the order.
const char* kDigits =
    "  ^(%a: i32, %b: i32):\n"
    "    %ten = constant {value = 10} : i32\n"
    "    %m = mul %a, %ten : i32\n"
    "    %s = add %m, %b : i32\n"
    "    yield %s\n"
    "  }\n";

// k(x, y): %v is x as an [R, C] i32 tile (row-major); `body` computes with it and stores to %y.
std::string tileKernel(int64_t R, int64_t C, const std::string& body) {
  const std::string rc = std::to_string(R) + "x" + std::to_string(C), n = std::to_string(R * C);
  return "func @k(%x: ptr<i32>, %y: ptr<i32>) {\n"
         "  %i = arange {end = " + n + ", start = 0} : tensor<" + n + "xi32>\n"
         "  %o = reshape %i : tensor<" + rc + "xi32>\n"
         "  %xs = splat %x : tensor<" + rc + "xptr<i32>>\n"
         "  %xp = ptr_add %xs, %o : tensor<" + rc + "xptr<i32>>\n"
         "  %v = load %xp : tensor<" + rc + "xi32>\n" + body + "  return\n}\n";
}

std::vector<int32_t> runTile(int64_t R, int64_t C, const std::string& body, std::vector<int32_t> x, size_t outN) {
  auto m = parse(tileKernel(R, C, body));
  std::vector<int32_t> y(outN, -1);
  run(*m->functions.at(0), {}, {buf(x), buf(y)});
  return y;
}

// Stores %r (shape `shape`, `n` elements) row-major to %y.
std::string storeResult(const std::string& shape, int64_t n) {
  const std::string t = "tensor<" + shape + "xi32>", flat = "tensor<" + std::to_string(n) + "xi32>";
  return "  %ri = arange {end = " + std::to_string(n) + ", start = 0} : " + flat + "\n"
         "  %rr = reshape %ri : " + t + "\n"
         "  %ys = splat %y : tensor<" + shape + "xptr<i32>>\n"
         "  %yp = ptr_add %ys, %rr : tensor<" + shape + "xptr<i32>>\n"
         "  store %yp, %r\n";
}

using V = std::vector<int32_t>;

TEST(Scan, CombinesWithTheAccumulatedValueFirst) {
  std::string body = "  %r = scan %v {axis = 1} : tensor<2x4xi32> {\n" + std::string(kDigits) + storeResult("2x4", 8);
  EXPECT_EQ(runTile(2, 4, body, {1, 2, 3, 4, 5, 6, 7, 8}, 8), (V{1, 12, 123, 1234, 5, 56, 567, 5678}));
}

TEST(Scan, ReverseStartsFromTheEnd) {
  std::string body =
      "  %r = scan %v {axis = 1, reverse = 1} : tensor<2x4xi32> {\n" + std::string(kDigits) + storeResult("2x4", 8);
  EXPECT_EQ(runTile(2, 4, body, {1, 2, 3, 4, 5, 6, 7, 8}, 8), (V{4321, 432, 43, 4, 8765, 876, 87, 8}));
}

TEST(Scan, AlongTheFirstAxis) {
  std::string fwd = "  %r = scan %v {axis = 0} : tensor<4x2xi32> {\n" + std::string(kDigits) + storeResult("4x2", 8);
  EXPECT_EQ(runTile(4, 2, fwd, {1, 2, 3, 4, 5, 6, 7, 8}, 8), (V{1, 2, 13, 24, 135, 246, 1357, 2468}));
  std::string rev =
      "  %r = scan %v {axis = 0, reverse = 1} : tensor<4x2xi32> {\n" + std::string(kDigits) + storeResult("4x2", 8);
  EXPECT_EQ(runTile(4, 2, rev, {1, 2, 3, 4, 5, 6, 7, 8}, 8), (V{7531, 8642, 753, 864, 75, 86, 7, 8}));
}

TEST(ReduceCombine, FoldsInIndexOrder) {
  std::string rows = "  %r = reduce_combine %v {axis = 1} : tensor<2xi32> {\n" + std::string(kDigits) + storeResult("2", 2);
  EXPECT_EQ(runTile(2, 4, rows, {1, 2, 3, 4, 5, 6, 7, 8}, 2), (V{1234, 5678}));
  std::string cols = "  %r = reduce_combine %v {axis = 0} : tensor<4xi32> {\n" + std::string(kDigits) + storeResult("4", 4);
  EXPECT_EQ(runTile(2, 4, cols, {1, 2, 3, 4, 5, 6, 7, 8}, 4), (V{15, 26, 37, 48}));
}

// Two tiles: (value, index) pairs where a tie keeps the later index (not commutative).
TEST(ReduceCombine, TuplesOfTiles) {
  std::string body =
      "  %z = arange {end = 4, start = 0} : tensor<4xi32>\n"
      "  %ze = expand_dims %z {axis = 0} : tensor<1x4xi32>\n"
      "  %idx = broadcast %ze : tensor<2x4xi32>\n"
      "  %m, %r = reduce_combine %v, %idx {axis = 1} : tensor<2xi32>, tensor<2xi32> {\n"
      "  ^(%va: i32, %ia: i32, %vb: i32, %ib: i32):\n"
      "    %gt = cmp %va, %vb {pred = \"gt\"} : i1\n"
      "    %vm = select %gt, %va, %vb : i32\n"
      "    %im = select %gt, %ia, %ib : i32\n"
      "    yield %vm, %im\n"
      "  }\n" +
      storeResult("2", 2);
  EXPECT_EQ(runTile(2, 4, body, {3, 7, 1, 7, 5, 5, 2, 0}, 2), (V{3, 1}));
}

TEST(ReduceCombine, RankOneGivesAScalarAndRoundsEachStep) {
  // f16 sums round after every step: [2048, 1, 1, 1] stays 2048 (1 is half an ulp, ties to even).
  auto m = parse(
      "func @k(%x: ptr<f16>, %y: ptr<f16>) {\n"
      "  %i = arange {end = 4, start = 0} : tensor<4xi32>\n"
      "  %xs = splat %x : tensor<4xptr<f16>>\n"
      "  %xp = ptr_add %xs, %i : tensor<4xptr<f16>>\n"
      "  %v = load %xp : tensor<4xf16>\n"
      "  %r = reduce_combine %v {axis = 0} : f16 {\n"
      "  ^(%a: f16, %b: f16):\n"
      "    %s = add %a, %b : f16\n"
      "    yield %s\n"
      "  }\n"
      "  store %y, %r\n"
      "  return\n}\n");
  auto h = [](double v) { return uint16_t(ir::toBits(ir::Scalar::F16, ir::floatElem(v))); };
  std::vector<uint16_t> big = {h(2048), h(1), h(1), h(1)}, small = {h(1), h(1), h(1), h(2048)}, y(1);
  run(*m->functions.at(0), {}, {buf(big), buf(y)});
  EXPECT_EQ(y[0], h(2048));
  run(*m->functions.at(0), {}, {buf(small), buf(y)});
  EXPECT_EQ(y[0], h(2052));
}

TEST(Scan, AssertInTheCombineRegionStopsTheRun) {
  auto m = parse(tileKernel(1, 4,
                            "  %r = scan %v {axis = 1} : tensor<1x4xi32> {\n"
                            "  ^(%a: i32, %b: i32):\n"
                            "    %s = add %a, %b : i32\n"
                            "    %lim = constant {value = 5} : i32\n"
                            "    %ok = cmp %s, %lim {pred = \"lt\"} : i1\n"
                            "    assert %ok {message = \"partial sum too large\"}\n"
                            "    yield %s\n"
                            "  }\n"));
  V fine = {1, 1, 1, 1}, big = {1, 2, 3, 4}, y(4);
  run(*m->functions.at(0), {}, {buf(fine), buf(y)});
  Diagnostic d = runExpectingError(*m->functions.at(0), {}, {buf(big), buf(y)});
  EXPECT_EQ(d.message, "kernel 'k': device assertion failed at program (0, 0, 0): partial sum too large");
  EXPECT_EQ(d.loc.line, 12);  // the assert's line in the text
}

}  // namespace
}  // namespace kiln::interp::test
