// Random numbers (tl.randint, tl.rand, tl.randn and their 4x forms, tl.philox, tl.philox_impl,
// tl.uint_to_uniform_float, tl.pair_uniform_to_normal; also under tl.random): the counter-based
// Philox-4x32-10 generator (Salmon et al., SC'11), expanded into ordinary integer and float Tile IR
// ops, so every stage (interpreter, passes, PTX) handles them with no op of their own. The streams
// match Triton's bit for bit: the same seed and offset give the same words.
#include <array>

#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

namespace {

// The round multipliers and the Weyl-sequence key increments of Philox-4xW.
struct PhiloxConstants {
  uint64_t roundA, roundB, keyA, keyB;
};
constexpr PhiloxConstants kPhilox32{0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85};
constexpr PhiloxConstants kPhilox64{0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15,
                                    0xBB67AE8584CAA73B};
constexpr int64_t kDefaultRounds = 10;

using Words = std::array<ir::Value*, 4>;

// A constant of the unsigned word type `word` (a scalar type) holding the bits `bits`.
ir::Value* wordConstant(Context& cx, uint64_t bits, Scalar word, const SourceLoc& loc) {
  return constantOf(cx, SValue::integer(int64_t(bits)), Type::scalar(word), loc);
}

// a OP b on one element type, broadcasting the two shapes against each other as Triton's
// operators do (a scalar key against a tile of counters).
ir::Value* wordOp(Context& cx, Opcode op, ir::Value* a, ir::Value* b, const SourceLoc& loc) {
  Shape s = broadcastShape(a->type.shape, b->type.shape, loc);
  a = broadcastTo(cx, a, s, loc);
  b = broadcastTo(cx, b, s, loc);
  return emit(cx, op, {a, b}, a->type, loc);
}

int64_t roundsArg(const CallArgs& a, size_t i) {
  if (!a.has(i)) return kDefaultRounds;
  int64_t n = a.intArg(i);
  if (n < 0) a.fail(a.display + "(): n_rounds must be >= 0, got " + std::to_string(n));
  return n;
}

// `rounds` Philox rounds on the counter words c with the key (k0, k1); every value has the element
// type `word` (u32 or u64).
Words philoxRounds(Context& cx, Words c, ir::Value* k0, ir::Value* k1, int64_t rounds, const SourceLoc& loc) {
  Scalar word = c[0]->type.elem;
  const PhiloxConstants& pc = word == Scalar::U32 ? kPhilox32 : kPhilox64;
  for (int64_t r = 0; r < rounds; ++r) {
    ir::Value* ma = wordConstant(cx, pc.roundA, word, loc);
    ir::Value* mb = wordConstant(cx, pc.roundB, word, loc);
    auto xor3 = [&](ir::Value* x, ir::Value* y, ir::Value* z) {
      return wordOp(cx, Opcode::Xor, wordOp(cx, Opcode::Xor, x, y, loc), z, loc);
    };
    ir::Value* n0 = xor3(wordOp(cx, Opcode::UMulHi, mb, c[2], loc), c[1], k0);
    ir::Value* n2 = xor3(wordOp(cx, Opcode::UMulHi, ma, c[0], loc), c[3], k1);
    ir::Value* n1 = wordOp(cx, Opcode::Mul, mb, c[2], loc);
    ir::Value* n3 = wordOp(cx, Opcode::Mul, ma, c[0], loc);
    c = {n0, n1, n2, n3};
    k0 = wordOp(cx, Opcode::Add, k0, wordConstant(cx, pc.keyA, word, loc), loc);
    k1 = wordOp(cx, Opcode::Add, k1, wordConstant(cx, pc.keyB, word, loc), loc);
  }
  return c;
}

SValue wordsTuple(const Words& w) {
  return SValue::tuple({SValue::irValue(w[0]), SValue::irValue(w[1]), SValue::irValue(w[2]), SValue::irValue(w[3])});
}

// The seed as a u64 value: any integer (Python int, scalar or tile), sign-extended as Triton's
// seed.to(tl.uint64) does.
ir::Value* seedValue(const CallArgs& a, size_t i) {
  const SValue& s = a.at(i);
  bool isInt = s.kind == SValue::Kind::Int || s.kind == SValue::Kind::Bool || (s.isIR() && s.ir->type.isInt());
  if (!isInt) a.fail(a.display + "(): the seed must be an integer, got " + s.describe());
  return castElem(*a.cx, toTensor(*a.cx, s, a.loc, "the seed"), Type::scalar(Scalar::U64), a.loc);
}

// Philox of the counters c (32- or 64-bit values, bitcast to unsigned words) keyed by the seed:
// 32-bit words take the seed's low and high halves as the key; 64-bit words take the whole seed
// and a zero of shape [1] (Triton's tl.full((1,), 0)) as the second key word.
Words philoxSeeded(Context& cx, ir::Value* seed64, Words c, int64_t rounds, const CallArgs& a) {
  const SourceLoc& loc = a.loc;
  for (size_t i = 0; i < c.size(); ++i)
    if (c[i]->type.isPtr())
      a.fail(a.display + "(): counters must be numbers, got c" + std::to_string(i) + " = " +
             SValue::irValue(c[i]).describe());
  int width = ir::bitWidth(c[0]->type.elem);
  if (width != 32 && width != 64)
    a.fail(a.display + "(): counters must be 32- or 64-bit values, got " + SValue::irValue(c[0]).describe());
  Scalar word = width == 32 ? Scalar::U32 : Scalar::U64;
  for (size_t i = 0; i < c.size(); ++i) {
    if (ir::bitWidth(c[i]->type.elem) != width)
      a.fail(a.display + "(): the counters must be numbers of one width (c0 has " + std::to_string(width) +
             " bits), got c" + std::to_string(i) + " = " + SValue::irValue(c[i]).describe());
    c[i] = bitcastElem(cx, c[i], Type::scalar(word), loc);
  }
  if (word == Scalar::U64) {
    ir::Value* zero = constantOf(cx, SValue::integer(0), Type::tensor({1}, Scalar::U64), loc);
    return philoxRounds(cx, c, seed64, zero, rounds, loc);
  }
  ir::Value* hi = wordOp(cx, Opcode::Shr, seed64, wordConstant(cx, 32, Scalar::U64, loc), loc);
  ir::Value* k0 = castElem(cx, seed64, Type::scalar(Scalar::U32), loc);
  ir::Value* k1 = castElem(cx, hi, Type::scalar(Scalar::U32), loc);
  return philoxRounds(cx, c, k0, k1, rounds, loc);
}

// The four u32 words for each offset: Philox of the counter (offset low half, offset high half, 0, 0).
Words randomWords(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* seed = seedValue(a, 0);
  const SValue& o = a.at(1);
  ir::Value* offset = toTensor(cx, o, a.loc, a.display + "()'s offset");
  if (!offset->type.isInt() || offset->type.isBool())
    a.fail(a.display + "(): offsets must be integers, got " + o.describe());
  ir::Value* lo = castElem(cx, offset, Type::scalar(Scalar::U32), a.loc);
  ir::Value* zero = zeroOf(cx, lo->type, a.loc);
  ir::Value* hi = zero;
  if (ir::bitWidth(offset->type.elem) > 32) {
    ir::Value* by32 = constantOf(cx, SValue::integer(32), offset->type.element(), a.loc);
    hi = castElem(cx, wordOp(cx, Opcode::Shr, offset, by32, a.loc), Type::scalar(Scalar::U32), a.loc);
  }
  return philoxSeeded(cx, seed, {lo, hi, zero, zero}, roundsArg(a, 2), a);
}

// Triton's uint_to_uniform_float: the bits as a signed integer, negatives folded onto the
// non-negatives (~x == -x - 1), times a scale just small enough that the largest value stays below 1.
ir::Value* uniformOf(Context& cx, ir::Value* x, const std::string& display, const SourceLoc& loc) {
  Scalar e = x->type.elem;
  bool narrow = e == Scalar::U32 || e == Scalar::I32;
  if (!narrow && e != Scalar::U64 && e != Scalar::I64)
    fail(loc, display + "() expects int32, uint32, int64 or uint64 values, got " + SValue::irValue(x).describe());
  Scalar sint = narrow ? Scalar::I32 : Scalar::I64;
  double scale = narrow ? 4.6566127342e-10 : 1.0842020432385337e-19;
  ir::Value* v = bitcastElem(cx, x, Type::scalar(sint), loc);
  ir::Value* negative = emit(cx, Opcode::Cmp, {v, zeroOf(cx, v->type, loc)}, v->type.withElem(Scalar::I1), loc,
                             {ir::Attr{"pred", std::string("lt")}});
  ir::Value* folded = emit(cx, Opcode::Select, {negative, emit(cx, Opcode::Not, {v}, v->type, loc), v}, v->type, loc);
  ir::Value* f = castElem(cx, folded, Type::scalar(Scalar::F32), loc);
  return emit(cx, Opcode::Mul, {f, constantOf(cx, SValue::real(scale), f->type, loc)}, f->type, loc);
}

// Box-Muller: two uniforms in [0, 1) to two independent standard normals.
std::pair<SValue, SValue> normalPair(Context& cx, const SValue& u1, const SValue& u2, const SourceLoc& loc) {
  using ast::BinOp;
  SValue m = elementwiseMinMax(cx, true, SValue::real(1.0e-7), u1, false, loc);
  SValue th = binary(cx, BinOp::Mul, SValue::real(6.283185307179586), u2, loc);
  auto math = [&](Opcode op, const SValue& x) {
    ir::Value* v = toTensor(cx, x, loc, "tl.pair_uniform_to_normal's argument");
    if (v->type.elem != Scalar::F32 && v->type.elem != Scalar::F64)
      fail(loc, "tl.pair_uniform_to_normal() expects f32 or f64 values, got " + x.describe());
    return SValue::irValue(emit(cx, op, {v}, v->type, loc));
  };
  SValue r = math(Opcode::Sqrt, binary(cx, BinOp::Mul, SValue::real(-2.0), math(Opcode::Log, m), loc));
  return {binary(cx, BinOp::Mul, r, math(Opcode::Cos, th), loc), binary(cx, BinOp::Mul, r, math(Opcode::Sin, th), loc)};
}

// ---- the builtins

SValue philoxImpl(CallArgs& a) {
  Context& cx = *a.cx;
  const SValue& first = a.at(0);
  Scalar word = first.isIR() ? first.ir->type.elem : Scalar::I32;
  if (word != Scalar::U32 && word != Scalar::U64)
    a.fail(a.display + "(): c0 must hold uint32 or uint64 values, got " + first.describe());
  // Triton's operators promote the other integers to c0's unsigned type; kiln converts them to it.
  auto operand = [&](size_t i) {
    const SValue& v = a.at(i);
    if (v.kind == SValue::Kind::Int) return wordConstant(cx, uint64_t(v.i), word, a.loc);
    if (!v.isIR() || !v.ir->type.isInt() || ir::bitWidth(v.ir->type.elem) > ir::bitWidth(word))
      a.fail(a.display + "(): '" + a.names[i] + "' must be an integer of at most c0's width (" +
             std::string(ir::name(word)) + "), got " + v.describe());
    return castElem(cx, v.ir, Type::scalar(word), a.loc);
  };
  Words c{operand(0), operand(1), operand(2), operand(3)};
  return wordsTuple(philoxRounds(cx, c, operand(4), operand(5), roundsArg(a, 6), a.loc));
}

SValue philox(CallArgs& a) {
  Context& cx = *a.cx;
  ir::Value* seed = seedValue(a, 0);
  Words c;
  for (size_t i = 0; i < 4; ++i) c[i] = toTensor(cx, a.at(i + 1), a.loc, a.display + "()'s counter");
  return wordsTuple(philoxSeeded(cx, seed, c, roundsArg(a, 5), a));
}

SValue randint4x(CallArgs& a) { return wordsTuple(randomWords(a)); }
SValue randint(CallArgs& a) { return SValue::irValue(randomWords(a)[0]); }

SValue rand(CallArgs& a) { return SValue::irValue(uniformOf(*a.cx, randomWords(a)[0], a.display, a.loc)); }

SValue rand4x(CallArgs& a) {
  Words w = randomWords(a);
  for (ir::Value*& v : w) v = uniformOf(*a.cx, v, a.display, a.loc);
  return wordsTuple(w);
}

SValue randn(CallArgs& a) {
  Words w = randomWords(a);
  auto u = [&](size_t i) { return SValue::irValue(uniformOf(*a.cx, w[i], a.display, a.loc)); };
  return normalPair(*a.cx, u(0), u(1), a.loc).first;
}

SValue randn4x(CallArgs& a) {
  Words w = randomWords(a);
  auto u = [&](size_t i) { return SValue::irValue(uniformOf(*a.cx, w[i], a.display, a.loc)); };
  auto [n1, n2] = normalPair(*a.cx, u(0), u(1), a.loc);
  auto [n3, n4] = normalPair(*a.cx, u(2), u(3), a.loc);
  return SValue::tuple({n1, n2, n3, n4});
}

SValue uintToUniformFloat(CallArgs& a) {
  const SValue& x = a.at(0);
  if (!x.isIR()) a.fail(a.display + "() expects a tensor of int32, uint32, int64 or uint64, got " + x.describe());
  return SValue::irValue(uniformOf(*a.cx, x.ir, a.display, a.loc));
}

SValue pairUniformToNormal(CallArgs& a) {
  auto [n1, n2] = normalPair(*a.cx, a.at(0), a.at(1), a.loc);
  return SValue::tuple({n1, n2});
}

constexpr unsigned kFn = kTl | kRandom;
constexpr BuiltinDef kRandomDefs[] = {
    {"philox_impl", kFn, "c0 c1 c2 c3 k0 k1 n_rounds?", philoxImpl},
    {"philox", kFn, "seed c0 c1 c2 c3 n_rounds?", philox},
    {"randint", kFn, "seed offset n_rounds?", randint},
    {"randint4x", kFn, "seed offset n_rounds?", randint4x},
    {"rand", kFn, "seed offset n_rounds?", rand},
    {"rand4x", kFn, "seed offsets n_rounds?", rand4x},
    {"randn", kFn, "seed offset n_rounds?", randn},
    {"randn4x", kFn, "seed offset n_rounds?", randn4x},
    {"uint_to_uniform_float", kFn, "x", uintToUniformFloat},
    {"pair_uniform_to_normal", kFn, "u1 u2", pairUniformToNormal},
};

}  // namespace

std::span<const BuiltinDef> randomBuiltins() { return kRandomDefs; }

}  // namespace kiln::sema
