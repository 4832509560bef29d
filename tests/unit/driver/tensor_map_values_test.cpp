// The launcher side of TMA tensor maps without a GPU: a spec bound to a kernel's parameters, the
// concrete values a launch's packed arguments give (reordered for the driver, strides in bytes), every
// check and its message, the reuse of the last encoding while a launch repeats its values, and guarded
// maps, which travel as zeros where they cannot be encoded.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "driver/tensor_map_args.h"
#include "driver/tensor_map_values.h"

namespace kiln {
namespace {

namespace cu = runtime::cu;

TensorMapOperand param(int k) { return {k, 0}; }
TensorMapOperand constant(int64_t v) { return {-1, v}; }

// A kernel's packed arguments: each value in the low bytes of an 8-byte slot, as the launcher packs them.
struct Packed {
  std::vector<uint64_t> slots;
  std::vector<void*> pointers;
  explicit Packed(std::vector<uint64_t> values) : slots(std::move(values)) {
    for (uint64_t& s : slots) pointers.push_back(&s);
  }
  void* const* data() const { return pointers.data(); }
};

// The kernel of the examples: a_ptr (f16), M, K, stride_am (i32), big (i64), count (u64).
const std::vector<Param> kParams = {{"a_ptr", "ptr<f16>", true}, {"M", "i32", false},   {"K", "i32", false},
                                    {"stride_am", "i32", false}, {"big", "i64", false}, {"count", "u64", false}};
const std::vector<std::string> kWhere = {"argument 0 ('a_ptr')",     "argument 1 ('M')",   "argument 2 ('K')",
                                         "argument 3 ('stride_am')", "argument 5 ('big')", "argument 6 ('count')"};

// A 2-D f16 map over a_ptr: shape (M, K), strides (stride_am, 1), box 64 x 64, swizzle 128.
TensorMapSpec matrixSpec() {
  TensorMapSpec s;
  s.elem = ir::Scalar::F16;
  s.base = param(0);
  s.shape = {param(1), param(2)};
  s.strides = {param(3), constant(1)};
  s.box = {64, 64};
  s.swizzle = 128;
  return s;
}

TensorMapReader bindOrFail(const TensorMapSpec& spec, const std::vector<Param>& params = kParams) {
  std::string why;
  std::optional<TensorMapReader> r = TensorMapReader::bind(spec, 0, params, why);
  EXPECT_TRUE(r) << why;
  return *r;
}

// The message of reading `spec` with arguments `values`, or "" when it reads.
std::string readProblem(const TensorMapSpec& spec, std::vector<uint64_t> values) {
  TensorMapReader r = bindOrFail(spec);
  Packed p(std::move(values));
  runtime::TensorMapValues out;
  return r.read(p.data(), kWhere, out).value_or("");
}

std::string bindProblem(const TensorMapSpec& spec, const std::vector<Param>& params = kParams) {
  std::string why;
  EXPECT_FALSE(TensorMapReader::bind(spec, 2, params, why));
  return why;
}

uint64_t bits(int64_t v) { return uint64_t(v); }
uint64_t bits32(int32_t v) { return uint32_t(v); }  // an i32 slot: the upper bytes are zero

TEST(TensorMapValues, MatrixInDriverOrder) {
  TensorMapReader r = bindOrFail(matrixSpec());
  EXPECT_EQ(r.rank(), 2u);
  EXPECT_EQ(r.base(), 0);
  Packed p({0x7f0000001000, 100, 72, 80, 0, 0});
  runtime::TensorMapValues v;
  ASSERT_EQ(r.read(p.data(), kWhere, v), std::nullopt);
  EXPECT_EQ(v.dataType, cu::kTensorMapDataTypeFloat16);
  EXPECT_EQ(v.rank, 2u);
  EXPECT_EQ(v.address, 0x7f0000001000u);
  EXPECT_EQ(v.dims[0], 72u);  // the contiguous dim first
  EXPECT_EQ(v.dims[1], 100u);
  EXPECT_EQ(v.dims[2], 0u);
  EXPECT_EQ(v.strides[0], 160u);  // 80 f16 elements
  EXPECT_EQ(v.strides[1], 0u);
  EXPECT_EQ(v.box[0], 64u);
  EXPECT_EQ(v.box[1], 64u);
  EXPECT_EQ(v.swizzle, cu::kTensorMapSwizzle128B);
  EXPECT_EQ(runtime::describe(v),
            "FLOAT16 at 0x7f0000001000, dims [72, 100], byte strides [160], box [64, 64], swizzle 128B");
}

TEST(TensorMapValues, FiveDimsWithConstantsReverse) {
  TensorMapSpec s;
  s.elem = ir::Scalar::F32;
  s.base = param(0);
  s.shape = {constant(2), constant(3), param(1), constant(5), param(2)};
  s.strides = {param(4), constant(4096), constant(512), param(3), constant(1)};
  s.box = {1, 2, 4, 8, 16};
  s.swizzle = 64;
  TensorMapReader r = bindOrFail(s);
  Packed p({0x1000, 7, 11, 12, bits(1 << 20), 0});
  runtime::TensorMapValues v;
  ASSERT_EQ(r.read(p.data(), kWhere, v), std::nullopt);
  EXPECT_EQ(v.dataType, cu::kTensorMapDataTypeFloat32);
  EXPECT_EQ(v.rank, 5u);
  const uint64_t dims[] = {11, 5, 7, 3, 2};
  const uint64_t strides[] = {48, 2048, 16384, 4u << 20};
  const uint32_t box[] = {16, 8, 4, 2, 1};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(v.dims[i], dims[i]) << i;
    EXPECT_EQ(v.box[i], box[i]) << i;
  }
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v.strides[i], strides[i]) << i;
  EXPECT_EQ(v.swizzle, cu::kTensorMapSwizzle64B);
}

TEST(TensorMapValues, ElementTypes) {
  struct Case {
    ir::Scalar elem;
    int dataType;
    int64_t box;  // a contiguous box of 16 bytes
  };
  const Case cases[] = {{ir::Scalar::F8E4M3, cu::kTensorMapDataTypeUint8, 16}, {ir::Scalar::F8E5M2, cu::kTensorMapDataTypeUint8, 16},
                        {ir::Scalar::I8, cu::kTensorMapDataTypeUint8, 16},     {ir::Scalar::U8, cu::kTensorMapDataTypeUint8, 16},
                        {ir::Scalar::I16, cu::kTensorMapDataTypeUint16, 8},    {ir::Scalar::BF16, cu::kTensorMapDataTypeBfloat16, 8},
                        {ir::Scalar::I32, cu::kTensorMapDataTypeInt32, 4},     {ir::Scalar::U32, cu::kTensorMapDataTypeUint32, 4},
                        {ir::Scalar::I64, cu::kTensorMapDataTypeInt64, 2},     {ir::Scalar::U64, cu::kTensorMapDataTypeUint64, 2},
                        {ir::Scalar::F64, cu::kTensorMapDataTypeFloat64, 2}};
  for (const Case& c : cases) {
    TensorMapSpec s = matrixSpec();
    s.elem = c.elem;
    s.box = {4, c.box};
    s.swizzle = 0;
    std::vector<Param> params = kParams;
    params[0].type = "ptr<" + std::string(ir::name(c.elem)) + ">";
    TensorMapReader r = bindOrFail(s, params);
    Packed p({0x2000, 10, 64, 64, 0, 0});
    runtime::TensorMapValues v;
    ASSERT_EQ(r.read(p.data(), kWhere, v), std::nullopt) << ir::name(c.elem);
    EXPECT_EQ(v.dataType, c.dataType) << ir::name(c.elem);
    EXPECT_EQ(v.strides[0], uint64_t(64 * ir::bitWidth(c.elem) / 8)) << ir::name(c.elem);
  }
}

TEST(TensorMapValues, NarrowAndUnsignedParameters) {
  // M and K as i32 read sign-extended from 4 bytes; a u64 count above 2^63 is still positive.
  TensorMapSpec s = matrixSpec();
  EXPECT_EQ(readProblem(s, {0x1000, bits32(-1), 64, 64, 0, 0}),
            "argument 1 ('M'): the tensor map over argument 0 ('a_ptr') needs dims from 1 to 2^32 elements; got -1");
  s.shape = {param(5), param(2)};
  EXPECT_EQ(readProblem(s, {0x1000, 0, 64, 64, 0, ~uint64_t(0)}),
            "argument 6 ('count'): the tensor map over argument 0 ('a_ptr') needs dims from 1 to 2^32 elements; got "
            "18446744073709551615");
  EXPECT_EQ(readProblem(s, {0x1000, 0, 64, 64, 0, uint64_t(1) << 32}), "");  // 2^32 is allowed
}

TEST(TensorMapValues, LaunchChecksNameTheParameters) {
  const TensorMapSpec s = matrixSpec();
  EXPECT_EQ(readProblem(s, {0x1008, 100, 72, 80, 0, 0}),
            "argument 0 ('a_ptr'): the tensor map over it needs a 16-byte aligned address; got 0x1008");
  EXPECT_EQ(readProblem(s, {0x1000, 0, 72, 80, 0, 0}),
            "argument 1 ('M'): the tensor map over argument 0 ('a_ptr') needs dims from 1 to 2^32 elements; got 0");
  EXPECT_EQ(readProblem(s, {0x1000, 100, 72, 100, 0, 0}),
            "argument 3 ('stride_am'): the tensor map over argument 0 ('a_ptr') needs row strides that are multiples "
            "of 16 bytes; got 100 elements of f16 = 200 bytes");
  EXPECT_EQ(readProblem(s, {0x1000, 100, 72, 0, 0, 0}),
            "argument 3 ('stride_am'): the tensor map over argument 0 ('a_ptr') needs positive row strides; got 0 "
            "elements of f16");
  EXPECT_EQ(readProblem(s, {0x1000, 100, 72, bits32(-64), 0, 0}),
            "argument 3 ('stride_am'): the tensor map over argument 0 ('a_ptr') needs positive row strides; got -64 "
            "elements of f16");
  TensorMapSpec wide = s;
  wide.shape = {param(4), param(2)};
  wide.strides = {param(4), constant(1)};
  EXPECT_EQ(readProblem(wide, {0x1000, 0, 72, 0, bits(int64_t(1) << 33), 0}),
            "argument 5 ('big'): the tensor map over argument 0 ('a_ptr') needs dims from 1 to 2^32 elements; got "
            "8589934592");
  wide.shape = {param(1), param(2)};
  EXPECT_EQ(readProblem(wide, {0x1000, 4, 72, 0, bits(int64_t(1) << 39), 0}),
            "argument 5 ('big'): the tensor map over argument 0 ('a_ptr') needs row strides below 2^40 bytes; got "
            "549755813888 elements of f16 = 1099511627776 bytes");
  EXPECT_EQ(readProblem(wide, {0x1000, 4, 72, 0, bits((int64_t(1) << 39) - 8), 0}), "");
  TensorMapSpec constants = s;
  constants.shape = {constant(0), param(2)};
  EXPECT_EQ(readProblem(constants, {0x1000, 100, 72, 80, 0, 0}),
            "the tensor map over argument 0 ('a_ptr') needs dims from 1 to 2^32 elements; got the constant 0 (dim 0)");
  constants.shape = {param(1), param(2)};
  constants.strides = {constant(36), constant(1)};
  EXPECT_EQ(readProblem(constants, {0x1000, 100, 72, 80, 0, 0}),
            "the tensor map over argument 0 ('a_ptr') needs row strides that are multiples of 16 bytes; got the "
            "constant 36 elements of f16 = 72 bytes (stride 0)");
}

TEST(TensorMapValues, BoxPastTheEndIsAllowed) {
  // TMA reads the out-of-bounds part of a box as zeros: a 64 x 64 box over a 3 x 8 tensor is fine.
  EXPECT_EQ(readProblem(matrixSpec(), {0x1000, 3, 8, 8, 0, 0}), "");
}

TEST(TensorMapValues, BindChecksWhatTheSpecFixes) {
  TensorMapSpec s = matrixSpec();
  s.shape = {};
  s.strides = {};
  s.box = {};
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': TMA takes 1 to 5 dims, got 0");
  s = matrixSpec();
  s.shape.assign(6, constant(2));
  s.strides.assign(6, constant(64));
  s.strides.back() = constant(1);
  s.box.assign(6, 8);
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': TMA takes 1 to 5 dims, got 6");
  s = matrixSpec();
  s.box = {64};
  EXPECT_EQ(bindProblem(s),
            "tensor map 2 over parameter 'a_ptr': shape, strides and box must have one entry per dim, got 2, 2 and 1");
  s = matrixSpec();
  s.elem = ir::Scalar::I1;
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': TMA has no data type for i1 elements");
  s = matrixSpec();
  s.box = {0, 64};
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': each box dim must be from 1 to 256 elements, got [0, 64]");
  s.box = {257, 64};
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': each box dim must be from 1 to 256 elements, got [257, 64]");
  s = matrixSpec();
  s.box = {64, 4};
  s.swizzle = 0;
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': the box [64, 4] spans 8 bytes along the contiguous "
                            "dim; TMA needs a multiple of 16");
  s.box = {64, 32};
  s.swizzle = 32;
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': the box [64, 32] spans 64 bytes along the contiguous "
                            "dim; TMA needs a multiple of 16 and at most the swizzle (32 bytes)");
  s.swizzle = 16;
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': swizzle must be 0, 32, 64 or 128 bytes, got 16");
  s = matrixSpec();
  s.base = constant(4096);
  EXPECT_EQ(bindProblem(s), "tensor map 2: its base must be a kernel parameter, got a constant");
  s.base = param(1);
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'M': its base must be a pointer parameter, got i32");
  s = matrixSpec();
  s.shape = {param(9), param(2)};
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': its dim 0 names parameter #9, but the kernel has 6");
  s = matrixSpec();
  std::vector<Param> params = kParams;
  params[3] = {"scale", "f32", false};
  EXPECT_EQ(bindProblem(s, params),
            "tensor map 2 over parameter 'a_ptr': its stride 0 is parameter 'scale' of type f32, not an integer");
  s.strides = {param(2), param(2)};
  EXPECT_EQ(bindProblem(s), "tensor map 2 over parameter 'a_ptr': its contiguous (last) stride must be the constant 1");
}

// An encode that counts its calls and returns a map marked with the values' address.
struct FakeEncode {
  int calls = 0;
  cu::TensorMap operator()(const runtime::TensorMapValues& v) {
    ++calls;
    cu::TensorMap m{};
    m.opaque[0] = v.address;
    m.opaque[1] = v.dims[0];
    return m;
  }
};

TEST(TensorMapEncoder, ReusesTheLastEncodingOfEachMap) {
  runtime::TensorMapEncoder encoder(2);
  FakeEncode fake;
  auto encode = [&](const runtime::TensorMapValues& v) { return fake(v); };
  runtime::TensorMapValues a;
  a.rank = 1;
  a.address = 0x100;
  a.dims[0] = 64;
  runtime::TensorMapValues b = a;
  b.address = 0x200;
  cu::TensorMap out{};
  encoder.get(0, a, out, encode);
  EXPECT_EQ(out.opaque[0], 0x100u);
  encoder.get(0, a, out, encode);
  encoder.get(1, b, out, encode);
  EXPECT_EQ(out.opaque[0], 0x200u);
  EXPECT_EQ(fake.calls, 2);  // map 0 once, map 1 once
  encoder.get(0, a, out, encode);
  EXPECT_EQ(fake.calls, 2);
  runtime::TensorMapValues a2 = a;
  a2.dims[0] = 65;  // any field differing encodes again
  encoder.get(0, a2, out, encode);
  EXPECT_EQ(fake.calls, 3);
  EXPECT_EQ(out.opaque[1], 65u);
  EXPECT_EQ(encoder.encodes(), 3u);
  // A failing encode keeps nothing: the next launch with those values tries again.
  auto failing = [](const runtime::TensorMapValues&) -> cu::TensorMap {
    throw runtime::CudaError(runtime::CudaError::Kind::CallFailed, "refused");
  };
  EXPECT_THROW(encoder.get(0, a, out, failing), runtime::CudaError);
  encoder.get(0, a2, out, encode);
  EXPECT_EQ(fake.calls, 4);
}

TEST(TensorMapArgs, NoSpecsNoMaps) {
  std::string why;
  EXPECT_EQ(TensorMapArgs::bind({}, kParams, why), nullptr);
  EXPECT_EQ(why, "");
  TensorMapSpec bad = matrixSpec();
  bad.swizzle = 8;
  EXPECT_EQ(TensorMapArgs::bind({matrixSpec(), bad}, kParams, why), nullptr);
  EXPECT_EQ(why, "tensor map 1 over parameter 'a_ptr': swizzle must be 0, 32, 64 or 128 bytes, got 8");
}

TEST(TensorMapArgs, FillsEveryMapAndReusesThem) {
  std::string why;
  TensorMapSpec second = matrixSpec();
  second.shape = {param(2), param(1)};  // the transpose's dims over the same base
  second.strides = {constant(64), constant(1)};
  std::unique_ptr<TensorMapArgs> args = TensorMapArgs::bind({matrixSpec(), second}, kParams, why);
  ASSERT_TRUE(args) << why;
  ASSERT_EQ(args->size(), 2u);
  FakeEncode fake;
  TensorMapArgs::Encode encode = [&](const runtime::TensorMapValues& v) { return fake(v); };
  cu::TensorMap maps[2];
  Packed p({0x4000, 100, 72, 80, 0, 0});
  ASSERT_EQ(args->fill(p.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_EQ(maps[0].opaque[0], 0x4000u);
  EXPECT_EQ(maps[0].opaque[1], 72u);
  EXPECT_EQ(maps[1].opaque[1], 100u);
  ASSERT_EQ(args->fill(p.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_EQ(fake.calls, 2);
  EXPECT_EQ(args->encodes(), 2u);
  Packed moved({0x8000, 100, 72, 80, 0, 0});  // a new buffer: both maps change
  ASSERT_EQ(args->fill(moved.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_EQ(fake.calls, 4);
  EXPECT_EQ(maps[1].opaque[0], 0x8000u);
  Packed bad({0x8000, 100, 72, 81, 0, 0});
  EXPECT_EQ(args->fill(bad.data(), kWhere, encode, maps),
            "argument 3 ('stride_am'): the tensor map over argument 0 ('a_ptr') needs row strides that are multiples "
            "of 16 bytes; got 81 elements of f16 = 162 bytes");
}

TEST(TensorMapArgs, DriverRefusalNamesTheBase) {
  std::string why;
  std::unique_ptr<TensorMapArgs> args = TensorMapArgs::bind({matrixSpec()}, kParams, why);
  ASSERT_TRUE(args) << why;
  TensorMapArgs::Encode refuse = [](const runtime::TensorMapValues& v) -> cu::TensorMap {
    throw runtime::CudaError(runtime::CudaError::Kind::CallFailed,
                             "cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE (invalid argument) for " +
                                 runtime::describe(v));
  };
  cu::TensorMap maps[1];
  Packed p({0x4000, 100, 72, 80, 0, 0});
  EXPECT_EQ(args->fill(p.data(), kWhere, refuse, maps),
            "argument 0 ('a_ptr'): the driver cannot encode the tensor map over it: cuTensorMapEncodeTiled failed: "
            "CUDA_ERROR_INVALID_VALUE (invalid argument) for FLOAT16 at 0x4000, dims [72, 100], byte strides [160], "
            "box [64, 64], swizzle 128B");
  TensorMapArgs::Encode noDriver = [](const runtime::TensorMapValues&) -> cu::TensorMap {
    throw runtime::CudaError(runtime::CudaError::Kind::NoDriver, "no cuTensorMapEncodeTiled");
  };
  EXPECT_THROW(args->fill(p.data(), kWhere, noDriver, maps), runtime::CudaError);
}

// A guarded copy of matrixSpec: its kernel checks M, K and stride_am itself before copying through it.
TensorMapSpec guardedSpec() {
  TensorMapSpec s = matrixSpec();
  s.guarded = true;
  return s;
}

bool isZeros(const cu::TensorMap& m) {
  for (uint64_t w : m.opaque)
    if (w != 0) return false;
  return true;
}

TEST(TensorMapArgs, GuardedMapsTheReaderRefusesAreZeros) {
  // Map 0 guarded over (M, K); map 1 strict, over constants, after it.
  std::string why;
  TensorMapSpec fixed = matrixSpec();
  fixed.shape = {constant(64), constant(64)};
  fixed.strides = {constant(64), constant(1)};
  EXPECT_FALSE(guardedSpec() == matrixSpec());
  std::unique_ptr<TensorMapArgs> args = TensorMapArgs::bind({guardedSpec(), fixed}, kParams, why);
  ASSERT_TRUE(args) << why;
  FakeEncode fake;
  TensorMapArgs::Encode encode = [&](const runtime::TensorMapValues& v) { return fake(v); };
  cu::TensorMap maps[2];
  std::memset(maps, 0xff, sizeof maps);
  Packed emptyK({0x4000, 100, 0, 80, 0, 0});  // K = 0: legal for the kernel, no tensor map for TMA
  ASSERT_EQ(args->fill(emptyK.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_TRUE(isZeros(maps[0]));
  EXPECT_EQ(maps[1].opaque[0], 0x4000u);  // the strict map after it is still filled
  EXPECT_EQ(maps[1].opaque[1], 64u);
  EXPECT_EQ(fake.calls, 1);
  Packed negative({0x4000, 100, 72, bits32(-80), 0, 0});
  std::memset(maps, 0xff, sizeof maps);
  ASSERT_EQ(args->fill(negative.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_TRUE(isZeros(maps[0]));
  EXPECT_EQ(maps[1].opaque[0], 0x4000u);
  // Good values encode; a failed read in between keeps that encoding for the next launch that repeats them.
  Packed good({0x4000, 100, 72, 80, 0, 0});
  ASSERT_EQ(args->fill(good.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_EQ(maps[0].opaque[0], 0x4000u);
  EXPECT_EQ(maps[0].opaque[1], 72u);
  EXPECT_EQ(fake.calls, 2);
  ASSERT_EQ(args->fill(emptyK.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_TRUE(isZeros(maps[0]));
  ASSERT_EQ(args->fill(good.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_EQ(maps[0].opaque[1], 72u);
  EXPECT_EQ(fake.calls, 2);
  // The same values through a strict map are still an error.
  std::unique_ptr<TensorMapArgs> strict = TensorMapArgs::bind({matrixSpec(), fixed}, kParams, why);
  ASSERT_TRUE(strict) << why;
  EXPECT_EQ(strict->fill(emptyK.data(), kWhere, encode, maps),
            "argument 2 ('K'): the tensor map over argument 0 ('a_ptr') needs dims from 1 to 2^32 elements; got 0");
}

TEST(TensorMapArgs, GuardedMapsTheDriverRefusesAreZeros) {
  // Map 0 guarded over (M, K); map 1 strict, over constants. The driver refuses every map with M = 7.
  std::string why;
  TensorMapSpec fixed = matrixSpec();
  fixed.shape = {constant(64), constant(64)};
  fixed.strides = {constant(64), constant(1)};
  std::unique_ptr<TensorMapArgs> args = TensorMapArgs::bind({guardedSpec(), fixed}, kParams, why);
  ASSERT_TRUE(args) << why;
  FakeEncode fake;
  int refusals = 0;
  TensorMapArgs::Encode encode = [&](const runtime::TensorMapValues& v) -> cu::TensorMap {
    if (v.dims[1] == 7) {
      ++refusals;
      throw runtime::CudaError(runtime::CudaError::Kind::CallFailed, "cuTensorMapEncodeTiled failed");
    }
    return fake(v);
  };
  cu::TensorMap maps[2];
  Packed good({0x4000, 100, 72, 80, 0, 0}), refused({0x4000, 7, 72, 80, 0, 0});
  ASSERT_EQ(args->fill(good.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_EQ(fake.calls, 2);
  std::memset(maps, 0xff, sizeof maps);
  ASSERT_EQ(args->fill(refused.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_TRUE(isZeros(maps[0]));
  EXPECT_EQ(maps[1].opaque[0], 0x4000u);  // the strict map after it is still filled (reused)
  EXPECT_EQ(maps[1].opaque[1], 64u);
  EXPECT_EQ(refusals, 1);
  // Nothing is kept for the refused values: the same launch asks the driver again and gets zeros again.
  std::memset(maps, 0xff, sizeof maps);
  ASSERT_EQ(args->fill(refused.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_TRUE(isZeros(maps[0]));
  EXPECT_EQ(refusals, 2);
  // A following launch with good values gets its map.
  ASSERT_EQ(args->fill(good.data(), kWhere, encode, maps), std::nullopt);
  EXPECT_EQ(maps[0].opaque[0], 0x4000u);
  EXPECT_EQ(maps[0].opaque[1], 72u);
  EXPECT_EQ(maps[1].opaque[1], 64u);
  // A driver without the entry point is still an error, guarded or not.
  TensorMapArgs::Encode noDriver = [](const runtime::TensorMapValues&) -> cu::TensorMap {
    throw runtime::CudaError(runtime::CudaError::Kind::NoDriver, "no cuTensorMapEncodeTiled");
  };
  EXPECT_THROW(args->fill(refused.data(), kWhere, noDriver, maps), runtime::CudaError);
  // The same refusal of a strict map is an error.
  std::unique_ptr<TensorMapArgs> strict = TensorMapArgs::bind({matrixSpec()}, kParams, why);
  ASSERT_TRUE(strict) << why;
  EXPECT_EQ(strict->fill(refused.data(), kWhere, encode, maps),
            "argument 0 ('a_ptr'): the driver cannot encode the tensor map over it: cuTensorMapEncodeTiled failed");
}

}  // namespace
}  // namespace kiln
