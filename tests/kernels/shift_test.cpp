// `x >> y` and `x << y` over every signed/unsigned pair of integer widths (Triton's test_shift_op):
// the result has the promoted type, and `>>` is arithmetic exactly when the left operand is signed,
// even where the promoted type is unsigned (int8 >> uint8 is a uint8 of sign-filled bits). Checked
// exactly against shifts of C++ integers; the PTX assembles for sm_80 and sm_90a.
#include "harness.h"

namespace kt {
namespace {

using kiln::Arg;

constexpr const char* kShiftSource = R"(
import triton
import triton.language as tl


@triton.jit
def shift(x_ptr, y_ptr, r_ptr, l_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(r_ptr + offs, x >> y, mask=m)
    tl.store(l_ptr + offs, x << y, mask=m)
    x0 = tl.load(x_ptr)  # a scalar left operand follows the same rule
    tl.store(s_ptr + offs, x0 >> y, mask=m)
)";

struct IntType {
  const char* name;  // signature spelling
  int bits;
  bool isSigned;
};

// Triton's integer promotion: the wider type; at equal width the unsigned one.
IntType promoted(const IntType& x, const IntType& y) {
  if (x.bits != y.bits) return x.bits > y.bits ? x : y;
  return x.isSigned ? y : x;
}

// A value of `t` held in a uint64 (its low t.bits bits), read as the integer it denotes.
int64_t valueOf(const IntType& t, uint64_t bits) {
  const uint64_t mask = t.bits == 64 ? ~0ull : (1ull << t.bits) - 1;
  bits &= mask;
  if (t.isSigned && t.bits < 64 && (bits >> (t.bits - 1))) return int64_t(bits | ~mask);
  return int64_t(bits);
}

// The reference: x converted to the promoted width w (sign-extended from a signed x), shifted by
// y < w, arithmetic for a signed x, and kept to w bits.
uint64_t shiftRef(const IntType& tx, uint64_t xb, int w, uint64_t y, bool right) {
  const uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
  const int64_t x = valueOf(tx, xb);
  uint64_t r;
  if (!right) r = uint64_t(x) << y;
  else if (tx.isSigned) r = uint64_t(x >> y);  // arithmetic (C++20)
  else r = (uint64_t(x) & mask) >> y;
  return r & mask;
}

void store(std::vector<uint8_t>& buf, int bytes, size_t i, uint64_t v) {
  for (int b = 0; b < bytes; ++b) buf[i * size_t(bytes) + size_t(b)] = uint8_t(v >> (8 * b));
}
uint64_t load(const std::vector<uint8_t>& buf, int bytes, size_t i) {
  uint64_t v = 0;
  for (int b = 0; b < bytes; ++b) v |= uint64_t(buf[i * size_t(bytes) + size_t(b)]) << (8 * b);
  return v;
}

const IntType kTypes[] = {{"i8", 8, true},   {"i16", 16, true},  {"i32", 32, true},  {"i64", 64, true},
                          {"u8", 8, false},  {"u16", 16, false}, {"u32", 32, false}, {"u64", 64, false}};

void checkShift(const IntType& tx, const IntType& ty) {
  const IntType tz = promoted(tx, ty);
  SCOPED_TRACE(std::string(tx.name) + " >> " + ty.name + " -> " + tz.name);
  const int64_t n = 300, block = 128;
  const std::string sig = std::string("*") + tx.name + ", *" + ty.name + ", *" + tz.name + ", *" + tz.name + ", *" +
                          tz.name + ", i32, " + std::to_string(block);
  auto k = kiln::compile(kiln::Source::fromString(kShiftSource, "shift.py"), "shift", sig);
  ASSERT_TRUE(k) << k.error().text;
  for (const char* arch : {"sm_80", "sm_90a"}) {
    auto cubin = kiln::assembleCubin(k.value(), arch);
    EXPECT_TRUE(cubin) << arch << ": " << cubin.error().text;
  }
  KT_RNG(rng);
  const int bx = tx.bits / 8, by = ty.bits / 8, bz = tz.bits / 8;
  std::vector<uint8_t> x(size_t(n * bx)), y(size_t(n * by)), r(size_t(n * bz)), l(size_t(n * bz)), s(size_t(n * bz));
  for (int64_t i = 0; i < n; ++i) {
    // Negative and positive x (the sign bit set half the time), every shift amount below the width.
    uint64_t xv = uint64_t(rng.integer(INT64_MIN, INT64_MAX));
    if (i == 0) xv = uint64_t(-1) << (tx.bits - 1);  // the most negative value: x0, the scalar operand
    store(x, bx, size_t(i), xv);
    store(y, by, size_t(i), uint64_t(i < tz.bits ? i : rng.integer(0, tz.bits - 1)));
  }
  poison(r), poison(l), poison(s);
  ASSERT_TRUE(run(k.value(), {cdiv(n, block)},
                  {Arg::buffer(x), Arg::buffer(y), Arg::buffer(r), Arg::buffer(l), Arg::buffer(s), Arg::integer(n)}));
  int bad = 0;
  for (int64_t i = 0; i < n && bad < 5; ++i) {
    const uint64_t xv = load(x, bx, size_t(i)), yv = load(y, by, size_t(i));
    const uint64_t wantR = shiftRef(tx, xv, tz.bits, yv, true), wantL = shiftRef(tx, xv, tz.bits, yv, false);
    const uint64_t wantS = shiftRef(tx, load(x, bx, 0), tz.bits, yv, true);
    const uint64_t gotR = load(r, bz, size_t(i)), gotL = load(l, bz, size_t(i)), gotS = load(s, bz, size_t(i));
    if (gotR != wantR || gotL != wantL || gotS != wantS) {
      ++bad;
      ADD_FAILURE() << "element " << i << ": x bits 0x" << std::hex << xv << ", y " << std::dec << yv << ": >> gave 0x"
                    << std::hex << gotR << " (want 0x" << wantR << "), << gave 0x" << gotL << " (want 0x" << wantL
                    << "), x0 >> y gave 0x" << gotS << " (want 0x" << wantS << ")";
    }
  }
}

// The pairs of Triton's test_shift_op: every integer type shifted by every unsigned type.
TEST(Shift, ByUnsignedAmounts) {
  for (const IntType& tx : kTypes)
    for (const IntType& ty : kTypes)
      if (!ty.isSigned) checkShift(tx, ty);
}

// Signed amounts: the promoted type is signed wherever the left operand is, so only the width moves.
TEST(Shift, BySignedAmounts) {
  for (const IntType& tx : kTypes)
    for (const IntType& ty : kTypes)
      if (ty.isSigned) checkShift(tx, ty);
}

}  // namespace
}  // namespace kt
