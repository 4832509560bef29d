// Scalar kernel parameters on the GPU path, without a GPU: the f16/bf16 bit patterns of host floats
// (exact), how each argument is packed into its slot, the slots' widths and offsets against the .param
// declarations of a real kernel's PTX, and the signatures that give a kernel an fp16 parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "driver/param_slots.h"
#include "kiln/launcher.h"
#include "ptx/ptxas.h"

namespace {

using kiln::bfloat16Bits;
using kiln::float16Bits;
using kiln::LaunchArg;
using kiln::ParamSlot;

TEST(ParamSlots, Float16BitsAreExact) {
  EXPECT_EQ(float16Bits(1.0), 0x3C00);
  EXPECT_EQ(float16Bits(-2.5), 0xC100);
  EXPECT_EQ(float16Bits(0.0), 0x0000);
  EXPECT_EQ(float16Bits(-0.0), 0x8000);
  EXPECT_EQ(float16Bits(65504.0), 0x7BFF);   // the largest finite half
  EXPECT_EQ(float16Bits(65519.99), 0x7BFF);  // below the halfway point to 2^16: rounds down
  EXPECT_EQ(float16Bits(65520.0), 0x7C00);   // the tie rounds to even, which is 2^16: inf
  EXPECT_EQ(float16Bits(-1e300), 0xFC00);
  EXPECT_EQ(float16Bits(INFINITY), 0x7C00);
  EXPECT_EQ(float16Bits(std::ldexp(1.0, -24)), 0x0001);        // the smallest subnormal
  EXPECT_EQ(float16Bits(std::ldexp(1.0, -25)), 0x0000);        // half of it: the tie goes to even (0)
  EXPECT_EQ(float16Bits(std::ldexp(3.0, -26)), 0x0001);        // above the tie
  EXPECT_EQ(float16Bits(std::ldexp(1.0, -14)), 0x0400);        // the smallest normal
  EXPECT_EQ(float16Bits(1.0 + std::ldexp(1.0, -11)), 0x3C00);  // tie between 0x3C00 and 0x3C01: even
  EXPECT_EQ(float16Bits(1.0 + std::ldexp(3.0, -11)), 0x3C02);  // tie between 0x3C01 and 0x3C02: even
  // Rounded once from the double: through float the 2^-40 would be lost and the tie go down.
  EXPECT_EQ(float16Bits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3C01);
  const uint16_t nan = float16Bits(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0) << "NaN must stay NaN, not become inf";
  EXPECT_EQ(float16Bits(-std::numeric_limits<double>::quiet_NaN()) & 0x8000, 0x8000);
}

TEST(ParamSlots, BFloat16BitsAreExact) {
  EXPECT_EQ(bfloat16Bits(1.0), 0x3F80);
  EXPECT_EQ(bfloat16Bits(-2.5), 0xC020);
  EXPECT_EQ(bfloat16Bits(1.0 + std::ldexp(1.0, -8)), 0x3F80);  // tie: to even (down)
  EXPECT_EQ(bfloat16Bits(1.0 + std::ldexp(3.0, -8)), 0x3F82);  // tie: to even (up)
  EXPECT_EQ(bfloat16Bits(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)), 0x3F81);  // past the tie
  EXPECT_EQ(bfloat16Bits(std::ldexp(255.0, 120)), 0x7F7F);  // the largest finite bfloat16
  EXPECT_EQ(bfloat16Bits(std::ldexp(511.0, 119)), 0x7F80);  // the tie above it rounds to inf
  EXPECT_EQ(bfloat16Bits(std::ldexp(1.0, -133)), 0x0001);   // the smallest subnormal
  EXPECT_EQ(bfloat16Bits(-1e300), 0xFF80);
  const uint16_t nan = bfloat16Bits(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(nan & 0x7F80, 0x7F80);
  EXPECT_NE(nan & 0x007F, 0);
}

ParamSlot slotOf(const std::string& type) {
  kiln::Param p;
  p.type = type;
  p.pointer = type.rfind("ptr<", 0) == 0;
  return kiln::paramSlotOf(p);
}

uint64_t pack(ParamSlot s, const LaunchArg& a) {
  uint64_t bits = 0xDEADBEEFDEADBEEFull;
  std::optional<std::string> why = kiln::packArgument(s, a, bits);
  EXPECT_FALSE(why) << *why;
  return bits;
}

TEST(ParamSlots, PacksEachKindInTheLowBytes) {
  EXPECT_EQ(pack(slotOf("f16"), LaunchArg::real(1.0)), 0x3C00u);  // the rest of the slot is zero
  EXPECT_EQ(pack(slotOf("f16"), LaunchArg::real(-2.5, "fp16")), 0xC100u);
  EXPECT_EQ(pack(slotOf("f16"), LaunchArg::integer(2)), 0x4000u);
  EXPECT_EQ(pack(slotOf("f16"), LaunchArg::boolean(true)), 0x3C00u);
  EXPECT_EQ(pack(slotOf("f16"), LaunchArg::real(1e6)), 0x7C00u);
  EXPECT_EQ(pack(slotOf("bf16"), LaunchArg::real(-2.5)), 0xC020u);
  EXPECT_EQ(pack(slotOf("f32"), LaunchArg::real(1.5)), 0x3FC00000u);
  EXPECT_EQ(pack(slotOf("f64"), LaunchArg::real(1.5)), 0x3FF8000000000000u);
  EXPECT_EQ(pack(slotOf("f32"), LaunchArg::integer(3)), 0x40400000u);
  EXPECT_EQ(pack(slotOf("i8"), LaunchArg::integer(-1)), 0xFFu);
  EXPECT_EQ(pack(slotOf("i32"), LaunchArg::integer(-1)), 0xFFFFFFFFu);
  EXPECT_EQ(pack(slotOf("i64"), LaunchArg::integer(-1)), ~uint64_t(0));
  EXPECT_EQ(pack(slotOf("i1"), LaunchArg::integer(5)), 1u);
  EXPECT_EQ(pack(slotOf("f8e5m2"), LaunchArg::real(1.0)), 0x3Cu);
  EXPECT_EQ(pack(slotOf("f8e4m3"), LaunchArg::real(1.0)), 0x38u);
  EXPECT_EQ(pack(slotOf("ptr<f16>"), LaunchArg::devicePointer(0x7f0012345600, "fp16")), 0x7f0012345600u);
}

TEST(ParamSlots, RejectsArgumentsAParameterCannotTake) {
  uint64_t bits = 0;
  LaunchArg none;
  none.kind = LaunchArg::Kind::None;
  std::optional<std::string> why = kiln::packArgument(slotOf("f16"), none, bits);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "is None, but the kernel's parameter takes a number at run time");
  LaunchArg entry = LaunchArg::string("fp16");
  entry.kind = LaunchArg::Kind::Signature;
  why = kiln::packArgument(slotOf("i32"), entry, bits);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "is a signature entry (for warmup only), but the kernel's parameter takes an integer at run time");
  EXPECT_TRUE(kiln::packArgument(slotOf("ptr<f32>"), LaunchArg::integer(0), bits));
  EXPECT_TRUE(kiln::packArgument(slotOf("i32"), LaunchArg::real(1.0), bits));
}

TEST(ParamSlots, LayoutAlignsEachParameterToItsSize) {
  std::vector<ParamSlot> slots;
  for (const char* t : {"ptr<f32>", "f16", "i32", "bf16", "f32", "i1", "f64", "i8", "f16", "ptr<bf16>"})
    slots.push_back(slotOf(t));
  kiln::ParamLayout l = kiln::paramLayout(slots);
  EXPECT_EQ(l.offsets, (std::vector<size_t>{0, 8, 12, 16, 20, 24, 32, 40, 42, 48}));
  EXPECT_EQ(l.bytes, 56u);
}

// A kernel with a scalar of every width, compiled to PTX for sm_90a: the slots must be exactly as wide
// as the .param declarations (a .b16 for f16 and bf16), in the same order.
constexpr const char* kMixed = R"(import triton
import triton.language as tl

@triton.jit
def mixed(out_ptr, a, n, b, s, flag, d, c, e):
    v = a.to(tl.float32) + n + b.to(tl.float32) + s + d.to(tl.float32) + c + e.to(tl.float32)
    v = tl.where(flag, v, -v)
    tl.store(out_ptr, v)
)";

size_t ptxParamBytes(const std::string& type) {
  if (type == "u8" || type == "s8" || type == "b8") return 1;
  if (type == "u16" || type == "s16" || type == "b16") return 2;
  if (type == "u32" || type == "s32" || type == "b32" || type == "f32") return 4;
  if (type == "u64" || type == "s64" || type == "b64" || type == "f64") return 8;
  ADD_FAILURE() << "unexpected .param type " << type;
  return 0;
}

TEST(ParamSlots, MatchTheDeclaredPtxParameters) {
  kiln::CompileOptions options;
  options.arch = "sm_90a";
  kiln::Result<kiln::Kernel> k = kiln::compile(kiln::Source::fromString(kMixed, "mixed.py"), "mixed",
                                               "*fp32:16, fp16, i32, bf16, fp32, i1, fp64, i8, fp16", options);
  ASSERT_TRUE(k.ok()) << k.error().text;
  const std::string ptx = k->stage("ptx");
  std::vector<std::string> declared;
  std::regex param(R"(\.param \.(\w+)( \.ptr \.global( \.align \d+)?)? mixed_(\w+))");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), param); it != std::sregex_iterator(); ++it)
    declared.push_back((*it)[1]);
  ASSERT_EQ(declared.size(), k->params().size()) << ptx;
  EXPECT_EQ(declared[1], "b16");
  EXPECT_EQ(declared[3], "b16");
  std::vector<ParamSlot> slots;
  size_t offset = 0;
  std::vector<size_t> ptxOffsets;
  for (size_t i = 0; i < declared.size(); ++i) {
    slots.push_back(kiln::paramSlotOf(k->params()[i]));
    size_t bytes = ptxParamBytes(declared[i]);
    EXPECT_EQ(slots.back().bytes, bytes) << k->params()[i].name << ": " << declared[i];
    offset = (offset + bytes - 1) / bytes * bytes;
    ptxOffsets.push_back(offset);
    offset += bytes;
  }
  EXPECT_EQ(slots[1].kind, ParamSlot::Kind::F16);
  EXPECT_EQ(slots[3].kind, ParamSlot::Kind::BF16);
  EXPECT_EQ(kiln::paramLayout(slots).offsets, ptxOffsets);
}

// The parameters ptxas laid out in a cubin: the EIATTR_KPARAM_INFO records (attribute 0x17) of the
// section ".nv.info.<entry>", as (ordinal -> offset, size). What cuLaunchKernel packs the values by.
std::map<int, std::pair<size_t, size_t>> cubinParams(const std::string& elf, const std::string& entry) {
  auto u16 = [&](size_t at) { uint16_t v; std::memcpy(&v, elf.data() + at, 2); return size_t(v); };
  auto u32 = [&](size_t at) { uint32_t v; std::memcpy(&v, elf.data() + at, 4); return size_t(v); };
  auto u64 = [&](size_t at) { uint64_t v; std::memcpy(&v, elf.data() + at, 8); return size_t(v); };
  std::map<int, std::pair<size_t, size_t>> out;
  const size_t shoff = u64(0x28), shentsize = u16(0x3A), shnum = u16(0x3C), names = u64(shoff + u16(0x3E) * shentsize + 0x18);
  for (size_t i = 0; i < shnum; ++i) {
    const size_t sh = shoff + i * shentsize, off = u64(sh + 0x18), size = u64(sh + 0x20);
    if (std::string(elf.data() + names + u32(sh)) != ".nv.info." + entry) continue;
    for (size_t p = off; p + 4 <= off + size;) {
      const uint8_t format = uint8_t(elf[p]), attr = uint8_t(elf[p + 1]);
      if (format != 4) {  // EIFMT_HVAL and smaller records: no payload beyond the 4-byte header
        p += 4;
        continue;
      }
      const size_t bytes = u16(p + 2);
      if (attr == 0x17) out[int(u16(p + 8))] = {u16(p + 10), (u32(p + 12) >> 18) & 0x3FFF};
      p += 4 + bytes;
    }
  }
  return out;
}

TEST(ParamSlots, MatchTheLayoutPtxasGivesTheParameters) {
  if (!kiln::ptx::findPtxas()) GTEST_SKIP() << "no ptxas";
  kiln::CompileOptions options;
  options.arch = "sm_90a";
  kiln::Result<kiln::Kernel> k = kiln::compile(kiln::Source::fromString(kMixed, "mixed.py"), "mixed",
                                               "*fp32:16, fp16, i32, bf16, fp32, i1, fp64, i8, fp16", options);
  ASSERT_TRUE(k.ok()) << k.error().text;
  kiln::ptx::AssembleResult r = kiln::ptx::assemble(k->stage("ptx"), "sm_90a");
  ASSERT_TRUE(r.ok) << r.log;
  std::map<int, std::pair<size_t, size_t>> placed = cubinParams(r.cubin, "mixed");
  ASSERT_EQ(placed.size(), k->params().size());
  std::vector<ParamSlot> slots;
  for (const kiln::Param& p : k->params()) slots.push_back(kiln::paramSlotOf(p));
  kiln::ParamLayout layout = kiln::paramLayout(slots);
  for (size_t i = 0; i < slots.size(); ++i) {
    EXPECT_EQ(placed[int(i)].first, layout.offsets[i]) << k->params()[i].name;
    EXPECT_EQ(placed[int(i)].second, slots[i].bytes) << k->params()[i].name;
  }
}

// How a kernel gets an fp16 scalar: a float typed fp16 (a NumPy float16 in Python), an annotation
// (`scale: tl.float16`, as in Triton), or a signature entry given to warmup.
constexpr const char* kScale = R"(import triton
import triton.language as tl

@triton.jit
def scale(out_ptr, x, h: tl.float16, g: "bf16", n: tl.int8):
    tl.store(out_ptr, x.to(tl.float32))
    tl.store(out_ptr + 1, h.to(tl.float32))
    tl.store(out_ptr + 2, g.to(tl.float32))
    tl.store(out_ptr + 3, n.to(tl.float32))
)";

kiln::JitFunction scaleKernel() {
  kiln::Result<kiln::JitFunction> f =
      kiln::JitFunction::create(kiln::Runtime(), kiln::Source::fromString(kScale, "scale.py"), "scale");
  EXPECT_TRUE(f.ok()) << f.error().text;
  return f.value();
}

TEST(ParamSlots, SignaturesThatGiveAnFp16Scalar) {
  kiln::JitFunction f = scaleKernel();
  EXPECT_EQ(f.parameters()[2].type, "fp16");
  EXPECT_EQ(f.parameters()[3].type, "bf16");
  EXPECT_EQ(f.parameters()[4].type, "i8");
  std::vector<float> out(4);
  std::vector<LaunchArg> args = {LaunchArg::hostBuffer(out.data(), 16, "fp32"), LaunchArg::real(0.1, "fp16"),
                                 LaunchArg::real(0.1), LaunchArg::integer(3), LaunchArg::integer(32)};
  kiln::Result<std::string> sig = f.signature(args);
  ASSERT_TRUE(sig.ok()) << sig.error().text;
  // Annotated floats are not specialized on their value; annotated ints keep their divisibility.
  EXPECT_EQ(sig.value(), "*fp32:16, fp16, fp16, bf16, i8:16");
  kiln::LaunchOptions o;
  o.interpret = true;
  kiln::LaunchStatus s = f.launch(kiln::Grid{}, args, o);
  ASSERT_TRUE(s.ok()) << s.error->text;
  EXPECT_EQ(out[0], 0.0999755859375f);  // 0.1 as the nearest half
  EXPECT_EQ(out[1], 0.0999755859375f);
  EXPECT_EQ(out[2], 3.0f);
  EXPECT_EQ(out[3], 32.0f);

  args[4] = LaunchArg::integer(300);
  sig = f.signature(args);
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.error().message,
            "kernel 'scale': argument 4 ('n') is 300, which does not fit the parameter's annotated type i8");
  args[4] = LaunchArg::real(1.0);
  sig = f.signature(args);
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.error().message, "kernel 'scale': argument 4 ('n') is a float, but the parameter is annotated i8");
}

}  // namespace
