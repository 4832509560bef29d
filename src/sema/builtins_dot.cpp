// tl.dot: shape checks (2-D or batched 3-D, inner dimensions equal; any M, N, K, as Triton's
// interpreter allows: the GPU lowering pads or falls back to FMA), operand dtypes as Triton allows,
// the result type (i32 for int8, f32 for f32/bf16, f64 for f64, out_dtype for f16/fp8) and the
// accumulator.
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

namespace {

bool isF8(Scalar s) { return ir::isFloat(s) && ir::bitWidth(s) == 8; }

std::string dims(const Shape& s) {  // "[64,32]"
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

SValue dot(CallArgs& a) {
  Context& cx = *a.cx;
  for (size_t i = 0; i < 2; ++i)
    if (!a.at(i).isIR() || !a.at(i).ir->type.isTensor())
      a.fail("tl.dot needs tensor operands, got " + a.at(i).describe());
  ir::Value* x = a.at(0).ir;
  ir::Value* y = a.at(1).ir;
  // Triton upcasts fp8e4b15 (and, where the target lacks them, fp8e4b8/fp8e5b16) operands to f16.
  for (ir::Value** v : {&x, &y}) {
    Scalar e = (*v)->type.elem;
    if (e == Scalar::F8E4B15 || e == Scalar::F8E4B8 || e == Scalar::F8E5B16)
      *v = castElem(cx, *v, Type::scalar(Scalar::F16), a.loc);
  }
  const Shape &sa = x->type.shape, &sb = y->type.shape;
  Scalar ea = x->type.elem, eb = y->type.elem;
  if (!(sa.size() == sb.size() && (sa.size() == 2 || sa.size() == 3)))
    a.fail("tl.dot operands must both be 2-D or both 3-D, got " + x->type.str() + " and " + y->type.str());
  {
    for (Scalar e : {ea, eb})
      if (!isF8(e) && e != Scalar::I8 && e != Scalar::U8 && e != Scalar::F16 && e != Scalar::BF16 && e != Scalar::F32 &&
          e != Scalar::F64)
        a.fail("tl.dot does not support operands of type " + std::string(ir::name(e)) +
               " (supported: i8, f8e4m3, f8e5m2, f16, bf16, f32, f64)");
    if (ea != eb)  // Triton also mixes fp8 formats; kiln's dot takes one operand type
      a.fail("tl.dot operands must have the same dtype, got " + std::string(ir::name(ea)) + " and " +
             std::string(ir::name(eb)));
  }
  bool batched = sa.size() == 3;
  int64_t m = sa[sa.size() - 2], k = sa.back(), kb = sb[sb.size() - 2], n = sb.back();
  if (k != kb)
    a.fail(std::string("incompatible dimensions for dot: a is ") + (batched ? "[B,M,K]=" : "[M,K]=") + dims(sa) +
           ", b is " + dims(sb));
  if (batched && sa[0] != sb[0])
    a.fail("incompatible batch dimensions for dot: a is [B,M,K]=" + dims(sa) + ", b is [B,K,N]=" + dims(sb));

  if (a.has(3) && a.has(4)) a.fail("tl.dot: only one of input_precision and allow_tf32 can be given");
  std::string precision = a.has(3) ? a.strArg(3, "") : (a.boolArg(4, true) ? "tf32" : "ieee");
  if (precision != "tf32" && precision != "tf32x3" && precision != "ieee" && precision != "bf16x3" &&
      precision != "bf16x6")
    a.fail("tl.dot: input_precision must be 'tf32', 'tf32x3', 'ieee', 'bf16x3' or 'bf16x6', got '" + precision + "'");
  if (a.has(5)) {
    int64_t maxImprecise = a.intArg(5);  // only meaningful for fp8 on sm_90; checked, otherwise unused
    if (isF8(ea) && maxImprecise > k)
      a.fail("tl.dot: max_num_imprecise_acc (" + std::to_string(maxImprecise) + ") must be <= K (" +
             std::to_string(k) + ")");
  }
  // Without out_dtype, an f16 accumulator makes the output f16 (Triton takes the accumulator's
  // element type); anything else is f32 and a mismatched accumulator is reported below.
  const bool f16Acc = a.has(2) && a.at(2).isIR() && a.at(2).ir->type.elem == Scalar::F16;
  Scalar out = a.has(6) ? a.dtypeArg(6).elem : f16Acc ? Scalar::F16 : Scalar::F32;
  Scalar ret = Scalar::F32;
  if (ea == Scalar::I8 || ea == Scalar::U8) {
    if (ea == Scalar::U8) a.fail("tl.dot supports only int8 among integer operands, got u8");
    ret = Scalar::I32;
  } else if (out == Scalar::BF16) {
    a.fail("tl.dot: out_dtype=bfloat16 is unsupported; use float32 or float16 and cast with .to(tl.bfloat16)");
  } else if (ea == Scalar::F32 || ea == Scalar::BF16) {
    ret = Scalar::F32;
  } else if (ea == Scalar::F64) {
    ret = Scalar::F64;
  } else {
    if (out != Scalar::F16 && out != Scalar::F32)
      a.fail("tl.dot: out_dtype must be tl.float16 or tl.float32, got " + dtypeExpr(Type::scalar(out)));
    ret = out;
  }
  Shape rs = batched ? Shape{sa[0], m, n} : Shape{m, n};
  Type rt = Type::tensor(rs, ret);
  ir::Value* acc;
  if (a.has(2)) {
    const SValue& c = a.at(2);
    if (!c.isIR() || c.ir->type != rt)
      a.fail("tl.dot's accumulator must be a " + rt.str() + ", got " + c.describe());
    acc = c.ir;
  } else {
    acc = zeroOf(cx, rt, a.loc);
  }
  std::vector<ir::Attr> attrs;
  if (ea == Scalar::F32) attrs.push_back({"input_precision", precision});
  return SValue::irValue(emit(cx, Opcode::Dot, {x, y, acc}, rt, a.loc, std::move(attrs)));
}

constexpr BuiltinDef kDot[] = {
    {"dot", kTl, "input other acc? input_precision? allow_tf32? max_num_imprecise_acc? out_dtype?", dot},
    {"dot_scaled", kTl,
     "lhs lhs_scale lhs_format rhs rhs_scale rhs_format acc? fast_math? lhs_k_pack? rhs_k_pack? out_dtype?",
     dotScaled},
};

}  // namespace

std::span<const BuiltinDef> dotBuiltins() { return kDot; }

}  // namespace kiln::sema
