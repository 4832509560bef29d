// tl.dot_scaled (Triton 3.6): a matrix product of microscaled operands, lowered here into existing
// Tile IR ops as Triton lowers it for GPUs without block-scaled tensor cores: each operand is upcast to
// bf16 (f16 when either format is fp16), multiplied by its e8m0 scales (one per 32 elements along K,
// 0xFF a NaN unless fast_math), and the two go to an ordinary dot with an f32 accumulator.
#include <cctype>
#include <cmath>

#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

namespace {

constexpr int64_t kGroup = 32;  // elements along K that share one e8m0 scale

enum class Format { E2M1, E4M3, E5M2, BF16, FP16 };

// One operand as the call describes it.
struct Operand {
  const char* side;  // "lhs" or "rhs"
  ir::Value* value;
  Format format;
  std::string formatName;
  ir::Value* scale;  // null: no scales
  bool kPack;        // e2m1 only: false packs the two nibbles of a byte along M (lhs) or N (rhs)
};

// Triton's words where it has them, after the builtin's name.
[[noreturn]] void bad(const CallArgs& a, const std::string& msg) { a.fail(a.display + ": " + msg); }

std::string pyList(const Shape& s) {  // Python's repr of a shape list: "[64, 2]"
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

Format formatArg(CallArgs& a, size_t i, const char* side) {
  const SValue& v = a.at(i);
  if (v.kind != SValue::Kind::Str)
    bad(a, std::string(side) + "_format must be a constexpr string such as \"e2m1\", got " + v.describe());
  const std::string& f = v.str;
  static const std::pair<const char*, Format> kFormats[] = {
      {"e2m1", Format::E2M1}, {"e4m3", Format::E4M3}, {"e5m2", Format::E5M2}, {"bf16", Format::BF16},
      {"fp16", Format::FP16}};
  for (const auto& [name, format] : kFormats)
    if (f == name) return format;
  // Triton knows these names (case-insensitively) but does not implement them.
  std::string upper;
  for (char c : f) upper += char(std::toupper(static_cast<unsigned char>(c)));
  for (const char* known : {"E2M1", "E4M3", "E5M2", "BF16", "FP16", "E2M3", "E3M2"})
    if (upper == known) bad(a, "NYI: " + std::string(side) + "_format " + f + " (formats: e2m1, e4m3, e5m2, bf16, fp16)");
  bad(a, "Invalid float format: " + f + ". (formats: e2m1, e4m3, e5m2, bf16, fp16)");
}

// The operand's elements in their own float type (fp8, bf16, f16), or the packed uint8 bytes of e2m1.
ir::Value* asFormat(CallArgs& a, const Operand& op) {
  ir::Value* v = op.value;
  Scalar e = v->type.elem;
  Scalar own = Scalar::U8, bits = Scalar::U8;
  switch (op.format) {
    case Format::E2M1:
      if (e != Scalar::U8)
        bad(a, "e2m1 format must be packed as uint8. Got " + tritonDtypeName(v->type.element()) + " (" + op.side +
               ")");
      return v;
    case Format::E4M3: own = Scalar::F8E4M3; break;
    case Format::E5M2: own = Scalar::F8E5M2; break;
    case Format::BF16: own = Scalar::BF16, bits = Scalar::U16; break;
    case Format::FP16: own = Scalar::F16, bits = Scalar::U16; break;
  }
  if (e == own) return v;
  if (e != bits)
    bad(a, "Unexpected dtype for " + op.formatName + ". Got " + tritonDtypeName(v->type.element()) + " (" + op.side +
           " must hold " + tritonDtypeName(Type::scalar(own)) + " or its bits as " +
           tritonDtypeName(Type::scalar(bits)) + ")");
  return bitcastElem(*a.cx, v, Type::scalar(own), a.loc);
}

ir::Value* constLike(Context& cx, ir::Value* v, int64_t num, const SourceLoc& loc) {
  return constantOf(cx, SValue::integer(num), v->type, loc);
}

// The e2m1 nibbles n (in the low 4 bits of a u8 tile) as f16. A nibble s.ee.m placed as f16 bits
// s00000ee.m000000000 is 2^(e-15)(1+m/2) (e > 0) or m*2^-15 (e = 0, a subnormal), so times 2^14 it is
// exactly the e2m1 value: 2^(e-1)(1+m/2), or m/2.
ir::Value* decodeE2m1(Context& cx, ir::Value* n, const SourceLoc& loc) {
  ir::Value* w = castElem(cx, n, Type::scalar(Scalar::U16), loc);
  ir::Value* em = emit(cx, Opcode::Shl, {emit(cx, Opcode::And, {w, constLike(cx, w, 7, loc)}, w->type, loc),
                                         constLike(cx, w, 9, loc)},
                       w->type, loc);
  ir::Value* sign = emit(cx, Opcode::Shl, {emit(cx, Opcode::And, {w, constLike(cx, w, 8, loc)}, w->type, loc),
                                           constLike(cx, w, 12, loc)},
                         w->type, loc);
  ir::Value* half = bitcastElem(cx, emit(cx, Opcode::Or, {em, sign}, w->type, loc), Type::scalar(Scalar::F16), loc);
  return emit(cx, Opcode::Mul, {half, constantOf(cx, SValue::real(16384.0), half->type, loc)}, half->type, loc);
}

// Puts the size-2 last dim of `pairs` ([..., P, Q, 2]) next to dim `axis` (rank-2: P or rank-1: Q) and
// merges the two: element (p, q, j) lands at index 2p+j (or 2q+j) of that dim.
ir::Value* interleave(Context& cx, ir::Value* pairs, size_t axis, const SourceLoc& loc) {
  Shape s = pairs->type.shape;
  size_t rank = s.size() - 1;
  if (axis == rank - 2) {
    std::vector<int64_t> order;
    for (size_t d = 0; d < rank - 1; ++d) order.push_back(int64_t(d));
    order.push_back(int64_t(rank));
    order.push_back(int64_t(rank - 1));
    pairs = permute(cx, pairs, order, loc);
  }
  Shape out(s.begin(), s.end() - 1);
  out[axis] *= 2;
  return reshape(cx, pairs, out, loc);
}

// The operand upcast to `ct` (bf16 or f16): exact for e2m1, e4m3 and e5m2; bf16 operands round to f16
// when the other operand is fp16.
ir::Value* upcast(CallArgs& a, const Operand& op, Scalar ct) {
  Context& cx = *a.cx;
  ir::Value* v = asFormat(a, op);
  if (op.format != Format::E2M1) return castElem(cx, v, Type::scalar(ct), a.loc);
  ir::Value* low = emit(cx, Opcode::And, {v, constLike(cx, v, 15, a.loc)}, v->type, a.loc);
  ir::Value* high = emit(cx, Opcode::Shr, {v, constLike(cx, v, 4, a.loc)}, v->type, a.loc);  // logical: u8
  ir::Value* pairs = join(cx, decodeE2m1(cx, low, a.loc), decodeE2m1(cx, high, a.loc), a.loc);
  // The packed dim: K (lhs: last, rhs: second to last) or, without k_pack, M (lhs) or N (rhs).
  size_t rank = v->type.shape.size();
  bool lhs = std::string_view(op.side) == "lhs";
  size_t axis = lhs == op.kPack ? rank - 1 : rank - 2;
  return castElem(cx, interleave(cx, pairs, axis, a.loc), Type::scalar(ct), a.loc);
}

// The scales as `ct` tiles of the operand's shape: 2^(s-127) for a byte s, built as Triton builds it by
// shifting s into the exponent field (so s = 0 is 0.0 and s = 0xFF infinity), 0xFF a NaN unless
// fast_math. For f16 the value is made in f32 and rounded to f16 (overflowing to inf from s = 143).
ir::Value* scaleTile(CallArgs& a, const Operand& op, const Shape& shape, Scalar ct, bool fastMath) {
  Context& cx = *a.cx;
  ir::Value* s = op.scale;
  const bool bf16 = ct == Scalar::BF16;
  ir::Value* w = castElem(cx, s, Type::scalar(bf16 ? Scalar::U16 : Scalar::U32), a.loc);
  w = emit(cx, Opcode::Shl, {w, constLike(cx, w, bf16 ? 7 : 23, a.loc)}, w->type, a.loc);
  ir::Value* f = bitcastElem(cx, w, Type::scalar(bf16 ? Scalar::BF16 : Scalar::F32), a.loc);
  f = castElem(cx, f, Type::scalar(ct), a.loc);
  if (!fastMath) {
    ir::Value* isNan = emit(cx, Opcode::Cmp, {s, constLike(cx, s, 0xFF, a.loc)}, s->type.withElem(Scalar::I1), a.loc,
                            {ir::Attr{"pred", std::string("eq")}});
    f = emit(cx, Opcode::Select, {isNan, constantOf(cx, SValue::real(std::nan("")), f->type, a.loc), f}, f->type, a.loc);
  }
  // [..., R, K/32] -> [..., R, K/32, 32] -> [..., R, K]; the rhs's R is N, so it is transposed to [..., K, N].
  Shape g = f->type.shape;
  size_t rank = g.size();
  ir::Value* e = expandDims(cx, f, int64_t(rank), a.loc);
  Shape wide = g;
  wide.push_back(kGroup);
  e = broadcastTo(cx, e, wide, a.loc);
  Shape flat = g;
  flat[rank - 1] *= kGroup;
  e = reshape(cx, e, flat, a.loc);
  if (std::string_view(op.side) == "rhs") {
    std::vector<int64_t> order;
    for (size_t d = 0; d + 2 < rank; ++d) order.push_back(int64_t(d));
    order.push_back(int64_t(rank - 1));
    order.push_back(int64_t(rank - 2));
    e = permute(cx, e, order, a.loc);
  }
  if (e->type.shape != shape) throw InternalError(a.loc, "dot_scaled: scale tile " + e->type.str() + " for " + pyList(shape));
  return e;
}

// Checks the scale of one operand ([..., R, K/32] of uint8, R = M or N) and returns it (null for None).
ir::Value* scaleArg(CallArgs& a, size_t i, const char* side, const Shape& operandShape, int64_t r, int64_t k) {
  if (!a.has(i)) return nullptr;
  const SValue& v = a.at(i);
  if (!v.isIR() || !v.ir->type.isTensor())
    bad(a, std::string(side) + "_scale must be a uint8 tensor of e8m0 scales or None, got " + v.describe());
  ir::Value* s = v.ir;
  if (s->type.elem == Scalar::F8E4M3)
    bad(a, std::string(side) + "_scale: e4m3 scales (one per 16 elements, nvfp4) need Blackwell's block-scaled "
           "tensor cores and are not supported; give uint8 e8m0 scales, one per 32 elements along K");
  if (s->type.elem != Scalar::U8)
    bad(a, std::string(side) + "_scale must hold uint8 e8m0 scales, got " + s->type.str());
  if (k % kGroup != 0)
    bad(a, std::string(side) + "_scale: K (" + std::to_string(k) + ") must be a multiple of 32 to be scaled, one "
           "e8m0 scale per 32 elements");
  Shape want(operandShape.begin(), operandShape.end() - 2);
  want.push_back(r);
  want.push_back(k / kGroup);
  if (s->type.shape != want)
    bad(a, std::string(side) + "_scale must be a tensor of shape [..., " + std::to_string(r) + ", " +
           std::to_string(k / kGroup) + "]. Got " + pyList(s->type.shape) +
           (want.size() == 3 ? " (batched: " + pyList(want) + ")" : ""));
  return s;
}

ir::Value* operandArg(CallArgs& a, size_t i, const char* side) {
  const SValue& v = a.at(i);
  if (!v.isIR() || !v.ir->type.isTensor())
    bad(a, std::string(side) + " must be a tensor (dot_scaled operands must be block tensors, not scalars), got " +
           v.describe());
  return v.ir;
}

}  // namespace

SValue dotScaled(CallArgs& a) {
  Context& cx = *a.cx;
  Operand lhs{"lhs", operandArg(a, 0, "lhs"), formatArg(a, 2, "lhs"), a.at(2).str, nullptr, a.boolArg(8, true)};
  Operand rhs{"rhs", operandArg(a, 3, "rhs"), formatArg(a, 5, "rhs"), a.at(5).str, nullptr, a.boolArg(9, true)};
  const bool fastMath = a.boolArg(7, false);
  if (a.has(10) && a.dtypeArg(10).elem != Scalar::F32)
    bad(a, "Only float32 is supported for out_dtype at the moment, got " + dtypeExpr(a.dtypeArg(10)));
  const Shape &sa = lhs.value->type.shape, &sb = rhs.value->type.shape;
  if (!(sa.size() == sb.size() && (sa.size() == 2 || sa.size() == 3)))
    bad(a, "Both inputs must be either 2D or 3D; (lhs: " + pyList(sa) + " vs rhs: " + pyList(sb) + ")");
  for (const Operand* op : {&lhs, &rhs})
    if (!op->kPack && op->format != Format::E2M1)
      bad(a, std::string("only mxfp4 inputs can be packed along a dimension different than K (") + op->side +
             "_k_pack=False with " + op->side + "_format " + op->formatName + ")");
  // Logical sizes: an e2m1 byte holds two elements along K, or along M/N without k_pack.
  const size_t r = sa.size();
  int64_t m = sa[r - 2], kl = sa[r - 1], kr = sb[r - 2], n = sb[r - 1];
  if (lhs.format == Format::E2M1) (lhs.kPack ? kl : m) *= 2;
  if (rhs.format == Format::E2M1) (rhs.kPack ? kr : n) *= 2;
  if (kl != kr)
    bad(a, "Reduction dimension should pack the same number of elements; (lhs: " + pyList(sa) + " vs rhs: " +
           pyList(sb) + ")");
  if (r == 3 && sa[0] != sb[0])
    bad(a, "incompatible batch dimensions for dot_scaled: lhs is " + pyList(sa) + ", rhs is " + pyList(sb));
  const int64_t k = kl;
  Shape shapeA = sa, shapeB = sb;
  shapeA[r - 2] = m, shapeA[r - 1] = k, shapeB[r - 2] = k, shapeB[r - 1] = n;
  lhs.scale = scaleArg(a, 1, "lhs", sa, m, k);
  rhs.scale = scaleArg(a, 4, "rhs", sb, n, k);

  Shape rs = r == 3 ? Shape{sa[0], m, n} : Shape{m, n};
  validateShape(rs, a.loc);
  Type rt = Type::tensor(rs, Scalar::F32);
  ir::Value* acc;
  if (a.has(6)) {
    const SValue& c = a.at(6);
    if (!c.isIR() || c.ir->type != rt) bad(a, "acc must be a " + rt.str() + ", got " + c.describe());
    acc = c.ir;
  } else {
    acc = zeroOf(cx, rt, a.loc);
  }

  const Scalar ct = lhs.format == Format::FP16 || rhs.format == Format::FP16 ? Scalar::F16 : Scalar::BF16;
  ir::Value* x = upcast(a, lhs, ct);
  ir::Value* y = upcast(a, rhs, ct);
  if (lhs.scale) x = emit(cx, Opcode::Mul, {x, scaleTile(a, lhs, shapeA, ct, fastMath)}, x->type, a.loc);
  if (rhs.scale) y = emit(cx, Opcode::Mul, {y, scaleTile(a, rhs, shapeB, ct, fastMath)}, y->type, a.loc);
  return SValue::irValue(emit(cx, Opcode::Dot, {x, y, acc}, rt, a.loc));
}

}  // namespace kiln::sema
