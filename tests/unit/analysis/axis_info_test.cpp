// Axis info on the typical kernel patterns: vector-add offsets, 2-D pointer grids, masks, vector
// widths, hints, wrap-around and the seeds (arguments, constants, ranges).
#include "analysis_test.h"

namespace kiln::analysis::test {
namespace {

// The vector-add kernel as sema emits it, with the ":16" hints on the pointers and, when `nHint`,
// on n as well.
std::string vectorAdd(const std::string& elem, bool ptrHints, bool nHint) {
  std::string p = ptrHints ? "%xh" : "%x";
  std::string s = "func @add(%x: ptr<" + elem + ">, %n: i32) {\n";
  if (ptrHints) s += "  %xh = multiple_of %x {values = [16]} : ptr<" + elem + ">\n";
  std::string n = nHint ? "%nh" : "%n";
  if (nHint) s += "  %nh = multiple_of %n {values = [16]} : i32\n";
  s += R"(  %pid = program_id {axis = 0} : i32
  %c = constant {value = 1024} : i32
  %start = mul %pid, %c : i32
  %r = arange {end = 1024, start = 0} : tensor<1024xi32>
  %starts = splat %start : tensor<1024xi32>
  %offs = add %starts, %r : tensor<1024xi32>
  %ns = splat )" + n + R"( : tensor<1024xi32>
  %mask = cmp %offs, %ns {pred = "lt"} : tensor<1024xi1>
  %base = splat )" + p + " : tensor<1024xptr<" + elem + R"(>>
  %ptrs = ptr_add %base, %offs : tensor<1024xptr<)" + elem + R"(>>
  %v = load %ptrs, %mask : tensor<1024x)" + elem + R"(>
  store %ptrs, %v, %mask
  return
}
)";
  return s;
}

TEST(AxisInfo, VectorAddWithHints) {
  Analyzed a = analyze(vectorAdd("f32", true, true));
  EXPECT_EQ(a.facts("pid"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(a.facts("start"), "contiguity=[1] divisibility=[1024] constancy=[1]");
  EXPECT_EQ(a.facts("r"), "contiguity=[1024] divisibility=[4611686018427387904] constancy=[1]");
  EXPECT_EQ(a.facts("starts"), "contiguity=[1] divisibility=[1024] constancy=[1024]");
  EXPECT_EQ(a.facts("offs"), "contiguity=[1024] divisibility=[1024] constancy=[1]");
  EXPECT_EQ(a.facts("xh"), "contiguity=[1] divisibility=[16] constancy=[1]");
  EXPECT_EQ(a.facts("ptrs"), "contiguity=[1024] divisibility=[16] constancy=[1]");
  // offs < n flips only at n, a multiple of 16, and offs runs start at multiples of 16.
  EXPECT_EQ(a.facts("mask"), "contiguity=[1] divisibility=[1] constancy=[16]");
  EXPECT_EQ(a.analysis->vectorElements(a.v("ptrs"), 0), 4);
  EXPECT_EQ(a.analysis->maskConstancy(a.v("mask"), 0), 16);
  EXPECT_TRUE(a["offs"].nonNegative);
}

TEST(AxisInfo, VectorAddWithoutHints) {
  Analyzed a = analyze(vectorAdd("f32", false, false));
  // An unhinted pointer is only known to be aligned to its element.
  EXPECT_EQ(a.facts("x"), "contiguity=[1] divisibility=[4] constancy=[1]");
  EXPECT_EQ(a.facts("n"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(a.facts("ptrs"), "contiguity=[1024] divisibility=[4] constancy=[1]");
  EXPECT_EQ(a.facts("mask"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(a.analysis->vectorElements(a.v("ptrs"), 0), 1);
  EXPECT_EQ(a.analysis->maskConstancy(a.v("mask"), 0), 1);
  EXPECT_EQ(a.analysis->maskConstancy(nullptr, 0), std::numeric_limits<int64_t>::max());
}

TEST(AxisInfo, VectorElementsPerElementType) {
  // 16-byte alignment: 16 bytes per vector whatever the element; without it: one element.
  for (auto [elem, want] : std::vector<std::pair<std::string, int64_t>>{
           {"f32", 4}, {"f16", 8}, {"bf16", 8}, {"i8", 16}, {"u8", 16}, {"f8e4m3", 16}, {"f64", 2}, {"i32", 4}}) {
    SCOPED_TRACE(elem);
    Analyzed hinted = analyze(vectorAdd(elem, true, false));
    EXPECT_EQ(hinted.analysis->vectorElements(hinted.v("ptrs"), 0), want);
    Analyzed plain = analyze(vectorAdd(elem, false, false));
    EXPECT_EQ(plain.analysis->vectorElements(plain.v("ptrs"), 0), 1);
  }
  // A scalar pointer is one element.
  Analyzed a = analyze(vectorAdd("f32", true, false));
  EXPECT_EQ(a.analysis->vectorElements(a.v("xh"), 0), 1);
}

TEST(AxisInfo, VectorElementsLimitedByContiguity) {
  Analyzed a = analyze(R"(
func @f(%x: ptr<i8>) {
  %xh = multiple_of %x {values = [16]} : ptr<i8>
  %r = arange {end = 8, start = 0} : tensor<8xi32>
  %two = constant {value = 2} : tensor<8xi32>
  %half = div %r, %two : tensor<8xi32>
  %base = splat %xh : tensor<8xptr<i8>>
  %p = ptr_add %base, %r : tensor<8xptr<i8>>
  %q = ptr_add %base, %half : tensor<8xptr<i8>>
  return
})");
  EXPECT_EQ(a.analysis->vectorElements(a.v("p"), 0), 8);
  EXPECT_EQ(a.facts("half"), "contiguity=[1] divisibility=[1] constancy=[2]");
  EXPECT_EQ(a.analysis->vectorElements(a.v("q"), 0), 1);
}

// ptr + offs_m[:, None] * stride_m + offs_n[None, :] * stride_n over a 32x64 f16 tile, with the
// strides given as IR values (a hinted argument, a constant 1, or an unknown argument).
std::string grid(const std::string& strideM, const std::string& strideN, const std::string& extra = "") {
  return R"(
func @grid(%x: ptr<f16>, %sm: i32, %sn: i32, %M: i32, %N: i32) {
  %xh = multiple_of %x {values = [16]} : ptr<f16>
  %smh = multiple_of %sm {values = [16]} : i32
  %Mh = multiple_of %M {values = [16]} : i32
  %Nh = multiple_of %N {values = [16]} : i32
  %one = constant {value = 1} : i32
  %pm = program_id {axis = 0} : i32
  %pn = program_id {axis = 1} : i32
  %c32 = constant {value = 32} : i32
  %c64 = constant {value = 64} : i32
  %sm0 = mul %pm, %c32 : i32
  %sn0 = mul %pn, %c64 : i32
  %rm = arange {end = 32, start = 0} : tensor<32xi32>
  %rn = arange {end = 64, start = 0} : tensor<64xi32>
  %sm1 = splat %sm0 : tensor<32xi32>
  %sn1 = splat %sn0 : tensor<64xi32>
  %offm = add %sm1, %rm : tensor<32xi32>
  %offn = add %sn1, %rn : tensor<64xi32>
  %om = expand_dims %offm {axis = 1} : tensor<32x1xi32>
  %on = expand_dims %offn {axis = 0} : tensor<1x64xi32>
  %stm = splat )" + strideM + R"( : tensor<32x1xi32>
  %stn = splat )" + strideN + R"( : tensor<1x64xi32>
  %rowoff = mul %om, %stm : tensor<32x1xi32>
  %coloff = mul %on, %stn : tensor<1x64xi32>
  %rowb = broadcast %rowoff : tensor<32x64xi32>
  %colb = broadcast %coloff : tensor<32x64xi32>
  %off = add %rowb, %colb : tensor<32x64xi32>
  %base = splat %xh : tensor<32x64xptr<f16>>
  %ptrs = ptr_add %base, %off : tensor<32x64xptr<f16>>
)" + extra + R"(  return
})";
}

TEST(AxisInfo, GridWithHintedRowStrideAndUnitColumnStride) {
  Analyzed a = analyze(grid("%smh", "%one"));
  EXPECT_EQ(a.facts("offm"), "contiguity=[32] divisibility=[32] constancy=[1]");
  EXPECT_EQ(a.facts("om"), "contiguity=[32, 1] divisibility=[32, 1] constancy=[1, 1]");
  EXPECT_EQ(a.facts("rowoff"), "contiguity=[1, 1] divisibility=[16, 16] constancy=[1, 1]");
  EXPECT_EQ(a.facts("rowb"), "contiguity=[1, 1] divisibility=[16, 16] constancy=[1, 64]");
  EXPECT_EQ(a.facts("coloff"), "contiguity=[1, 64] divisibility=[1, 64] constancy=[1, 1]");
  EXPECT_EQ(a.facts("off"), "contiguity=[1, 64] divisibility=[1, 16] constancy=[1, 1]");
  EXPECT_EQ(a.facts("ptrs"), "contiguity=[1, 64] divisibility=[2, 16] constancy=[1, 1]");
  EXPECT_EQ(a.analysis->vectorElements(a.v("ptrs"), 1), 8);
  EXPECT_EQ(a.analysis->vectorElements(a.v("ptrs"), 0), 1);
}

TEST(AxisInfo, GridWithUnknownStrides) {
  // An unknown row stride misaligns every row; an unknown column stride breaks the runs.
  Analyzed rows = analyze(grid("%sm", "%one"));
  EXPECT_EQ(rows.facts("ptrs"), "contiguity=[1, 64] divisibility=[2, 2] constancy=[1, 1]");
  EXPECT_EQ(rows.analysis->vectorElements(rows.v("ptrs"), 1), 1);
  Analyzed cols = analyze(grid("%smh", "%sn"));
  EXPECT_EQ(cols.facts("ptrs"), "contiguity=[1, 1] divisibility=[2, 2] constancy=[1, 1]");
  EXPECT_EQ(cols.analysis->vectorElements(cols.v("ptrs"), 1), 1);
}

TEST(AxisInfo, GridWithUnitRowStrideIsContiguousButUnalignedAlongRows) {
  // x + offs_m[:, None] + offs_n[None, :]: runs along both dims, but a run's start mixes both.
  Analyzed a = analyze(grid("%one", "%one"));
  EXPECT_EQ(a.facts("off"), "contiguity=[32, 64] divisibility=[1, 1] constancy=[1, 1]");
  EXPECT_EQ(a.analysis->vectorElements(a.v("ptrs"), 1), 1);
}

TEST(AxisInfo, TwoDimensionalMasks) {
  const std::string masks = R"(  %Ms = splat %Mh : tensor<32x1xi32>
  %Ns = splat %Nh : tensor<1x64xi32>
  %Nu = splat %N : tensor<1x64xi32>
  %mm = cmp %om, %Ms {pred = "lt"} : tensor<32x1xi1>
  %mn = cmp %on, %Ns {pred = "lt"} : tensor<1x64xi1>
  %mu = cmp %on, %Nu {pred = "lt"} : tensor<1x64xi1>
  %mmb = broadcast %mm : tensor<32x64xi1>
  %mnb = broadcast %mn : tensor<32x64xi1>
  %mub = broadcast %mu : tensor<32x64xi1>
  %mask = and %mmb, %mnb : tensor<32x64xi1>
  %masku = and %mmb, %mub : tensor<32x64xi1>
)";
  Analyzed a = analyze(grid("%smh", "%one", masks));
  EXPECT_EQ(a.facts("mm"), "contiguity=[1, 1] divisibility=[1, 1] constancy=[16, 1]");
  EXPECT_EQ(a.facts("mmb"), "contiguity=[1, 1] divisibility=[1, 1] constancy=[16, 64]");
  EXPECT_EQ(a.facts("mnb"), "contiguity=[1, 1] divisibility=[1, 1] constancy=[32, 16]");
  EXPECT_EQ(a.facts("mask"), "contiguity=[1, 1] divisibility=[1, 1] constancy=[16, 16]");
  EXPECT_EQ(a.facts("masku"), "contiguity=[1, 1] divisibility=[1, 1] constancy=[16, 1]");
  EXPECT_EQ(a.analysis->maskConstancy(a.v("mask"), 1), 16);
  EXPECT_EQ(a.analysis->maskConstancy(a.v("masku"), 1), 1);
}

TEST(AxisInfo, ComparisonDirections) {
  Analyzed a = analyze(R"(
func @f(%n: i32) {
  %nh = multiple_of %n {values = [8]} : i32
  %r = arange {end = 64, start = 0} : tensor<64xi32>
  %ns = splat %nh : tensor<64xi32>
  %lt = cmp %r, %ns {pred = "lt"} : tensor<64xi1>
  %ge = cmp %r, %ns {pred = "ge"} : tensor<64xi1>
  %gt = cmp %ns, %r {pred = "gt"} : tensor<64xi1>
  %le = cmp %ns, %r {pred = "le"} : tensor<64xi1>
  %le2 = cmp %r, %ns {pred = "le"} : tensor<64xi1>
  %eq = cmp %r, %ns {pred = "eq"} : tensor<64xi1>
  return
})");
  for (const char* n : {"lt", "ge", "gt", "le"}) EXPECT_EQ(a[n].constancy[0], 8) << n;
  // r <= n flips after n (not a multiple of 8); r == n holds at one element.
  EXPECT_EQ(a["le2"].constancy[0], 1);
  EXPECT_EQ(a["eq"].constancy[0], 1);
}

TEST(AxisInfo, WrapAroundLosesContiguity) {
  Analyzed a = analyze(R"(
func @f(%M: i32) {
  %pid = program_id {axis = 0} : i32
  %c = constant {value = 128} : i32
  %s = mul %pid, %c : i32
  %r = arange {end = 128, start = 0} : tensor<128xi32>
  %ss = splat %s : tensor<128xi32>
  %offs = add %ss, %r : tensor<128xi32>
  %Ms = splat %M : tensor<128xi32>
  %wrapped = rem %offs, %Ms : tensor<128xi32>
  %c64 = constant {value = 64} : tensor<128xi32>
  %mod64 = rem %offs, %c64 : tensor<128xi32>
  %c48 = constant {value = 48} : tensor<128xi32>
  %mod48 = rem %offs, %c48 : tensor<128xi32>
  %Mss = splat %M : tensor<128xi32>
  %signed = add %Mss, %r : tensor<128xi32>
  %smod = rem %signed, %c64 : tensor<128xi32>
  %c63 = constant {value = 63} : tensor<128xi32>
  %amod = and %signed, %c63 : tensor<128xi32>
  %hinted = multiple_of %wrapped {values = [128]} : tensor<128xi32>
  %hinted2 = max_contiguous %hinted {values = [128]} : tensor<128xi32>
  %odd = multiple_of %wrapped {values = [24]} : tensor<128xi32>
  return
})");
  EXPECT_EQ(a.facts("wrapped"), "contiguity=[1] divisibility=[1] constancy=[1]");
  // A power-of-two modulus keeps runs of non-negative offsets up to the modulus.
  EXPECT_EQ(a.facts("mod64"), "contiguity=[64] divisibility=[64] constancy=[1]");
  EXPECT_EQ(a.facts("mod48"), "contiguity=[1] divisibility=[1] constancy=[1]");
  // M + r may be negative: C's remainder then runs backwards; `and` is a floor modulus.
  EXPECT_EQ(a.facts("signed"), "contiguity=[128] divisibility=[1] constancy=[1]");
  EXPECT_EQ(a.facts("smod"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(a.facts("amod"), "contiguity=[1] divisibility=[1] constancy=[1]");
  // The usual repair: tl.max_contiguous(tl.multiple_of(offs % M, 128), 128).
  EXPECT_EQ(a.facts("hinted2"), "contiguity=[128] divisibility=[128] constancy=[1]");
  EXPECT_EQ(a.facts("odd"), "contiguity=[1] divisibility=[8] constancy=[1]");
}

TEST(AxisInfo, FloorModulusByAndWithALowMask) {
  Analyzed a = analyze(R"(
func @f(%n: i32) {
  %nh = multiple_of %n {values = [64]} : i32
  %r = arange {end = 128, start = 0} : tensor<128xi32>
  %ns = splat %nh : tensor<128xi32>
  %x = sub %r, %ns : tensor<128xi32>
  %c31 = constant {value = 31} : tensor<128xi32>
  %m = and %x, %c31 : tensor<128xi32>
  %sign = shr %x, %c31 : tensor<128xi32>
  %c2 = constant {value = 2} : tensor<128xi32>
  %q4 = shr %x, %c2 : tensor<128xi32>
  %d2 = div %x, %c2 : tensor<128xi32>
  return
})");
  EXPECT_EQ(a.facts("x"), "contiguity=[128] divisibility=[64] constancy=[1]");
  EXPECT_EQ(a.facts("m"), "contiguity=[32] divisibility=[32] constancy=[1]");
  // Arithmetic shift right floors for either sign; truncating division does not.
  EXPECT_EQ(a.facts("q4"), "contiguity=[1] divisibility=[1] constancy=[4]");
  EXPECT_EQ(a.facts("d2"), "contiguity=[1] divisibility=[1] constancy=[1]");
  // The sign of a run that starts at multiples of 64 changes at most at a multiple of 64.
  EXPECT_EQ(a.facts("sign"), "contiguity=[1] divisibility=[1] constancy=[64]");
}

TEST(AxisInfo, DivisionOfARunGivesConstancy) {
  Analyzed a = analyze(R"(
func @f() {
  %pid = program_id {axis = 0} : i32
  %c = constant {value = 128} : i32
  %s = mul %pid, %c : i32
  %r = arange {end = 128, start = 0} : tensor<128xi32>
  %ss = splat %s : tensor<128xi32>
  %offs = add %ss, %r : tensor<128xi32>
  %c4 = constant {value = 4} : tensor<128xi32>
  %q = div %offs, %c4 : tensor<128xi32>
  %c256 = constant {value = 256} : tensor<128xi32>
  %q2 = div %offs, %c256 : tensor<128xi32>
  %c3 = constant {value = 3} : tensor<128xi32>
  %q3 = div %offs, %c3 : tensor<128xi32>
  %sq = div %ss, %c4 : tensor<128xi32>
  %sh = shl %offs, %c3 : tensor<128xi32>
  %m = mul %offs, %c4 : tensor<128xi32>
  return
})");
  EXPECT_EQ(a.facts("q"), "contiguity=[1] divisibility=[1] constancy=[4]");
  EXPECT_EQ(a.facts("q2"), "contiguity=[1] divisibility=[1] constancy=[128]");
  EXPECT_EQ(a.facts("q3"), "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(a.facts("sq"), "contiguity=[1] divisibility=[32] constancy=[128]");
  EXPECT_EQ(a.facts("sh"), "contiguity=[1] divisibility=[8] constancy=[1]");
  EXPECT_EQ(a.facts("m"), "contiguity=[1] divisibility=[4] constancy=[1]");
}

TEST(AxisInfo, ConstantsAndFolding) {
  Analyzed a = analyze(R"(
func @f() {
  %a = constant {value = 48} : i32
  %b = constant {value = 0} : i32
  %c = constant {value = -8} : i32
  %d = add %a, %c : i32
  %t = constant {value = 12} : tensor<4x8xi32>
  %big = constant {value = 4611686018427387904} : i64
  %w = constant {value = 255} : i8
  %one = arange {end = 6, start = 5} : tensor<1xi32>
  return
})");
  EXPECT_EQ(a.facts("a"), "contiguity=[1] divisibility=[16] constancy=[1] constant=48");
  EXPECT_EQ(a.facts("b"), "contiguity=[1] divisibility=[4611686018427387904] constancy=[1] constant=0");
  EXPECT_EQ(a.facts("c"), "contiguity=[1] divisibility=[8] constancy=[1] constant=-8");
  EXPECT_EQ(a.facts("d"), "contiguity=[1] divisibility=[8] constancy=[1] constant=40");
  EXPECT_EQ(a.facts("t"), "contiguity=[1, 1] divisibility=[4, 4] constancy=[4, 8] constant=12");
  EXPECT_EQ(a["big"].divisibility[0], kMaxDivisibility);
  EXPECT_EQ(a.facts("w"), "contiguity=[1] divisibility=[1] constancy=[1] constant=-1");  // wrapped to i8
  EXPECT_EQ(a.facts("one"), "contiguity=[1] divisibility=[1] constancy=[1] constant=5");
  EXPECT_FALSE(a["c"].nonNegative);
  EXPECT_TRUE(a["a"].nonNegative);
}

TEST(AxisInfo, FloatsCarryOnlyConstancy) {
  Analyzed a = analyze(R"(
func @f(%x: ptr<f32>) {
  %c = constant {value = 2.0} : tensor<4x8xf32>
  %r = arange {end = 8, start = 0} : tensor<8xi32>
  %re = expand_dims %r {axis = 0} : tensor<1x8xi32>
  %rb = broadcast %re : tensor<4x8xi32>
  %f = cast %rb : tensor<4x8xf32>
  %g = mul %f, %c : tensor<4x8xf32>
  %cmp = cmp %g, %c {pred = "lt"} : tensor<4x8xi1>
  return
})");
  EXPECT_EQ(a.facts("c"), "contiguity=[1, 1] divisibility=[1, 1] constancy=[4, 8]");
  EXPECT_EQ(a.facts("g"), "contiguity=[1, 1] divisibility=[1, 1] constancy=[4, 1]");
  EXPECT_EQ(a.facts("cmp"), "contiguity=[1, 1] divisibility=[1, 1] constancy=[4, 1]");
}

}  // namespace
}  // namespace kiln::analysis::test
