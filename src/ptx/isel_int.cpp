// Integer and i1 element-wise selection. 8/16-bit integers live extended in .b32 registers and
// are re-normalised after ops that can leave their range; shifts clamp as docs/semantics.md says.
#include "ptx/isel_impl.h"

namespace kiln::ptx::detail {

using ir::Opcode;
using ir::Scalar;

namespace {

// How an integer op maps onto one PTX instruction: MNEMONIC + suffix, then re-normalisation of
// 8/16-bit results when the op can leave the type's range.
enum class Sfx : uint8_t { Typed, Signed, Bits };  // .s32/.u32, always .s32, .b32
struct IntRule {
  const char* mnemonic = nullptr;  // null: not a one-instruction op
  Sfx suffix = Sfx::Typed;
  bool renormalize = false;
};

constexpr std::pair<Opcode, IntRule> kIntRules[] = {
    {Opcode::Add, {"add", Sfx::Typed, true}},
    {Opcode::Sub, {"sub", Sfx::Typed, true}},
    {Opcode::Mul, {"mul.lo", Sfx::Typed, true}},
    {Opcode::Div, {"div", Sfx::Typed, true}},  // i8: -128 / -1 = 128 wraps to -128
    {Opcode::And, {"and", Sfx::Bits, false}},
    {Opcode::Or, {"or", Sfx::Bits, false}},
    {Opcode::Xor, {"xor", Sfx::Bits, false}},
    {Opcode::Min, {"min", Sfx::Typed, false}},
    {Opcode::Max, {"max", Sfx::Typed, false}},
    {Opcode::Neg, {"neg", Sfx::Signed, true}},
    {Opcode::Not, {"not", Sfx::Bits, true}},  // u8: ~x leaves the type's range; i8 stays extended
};

IntRule intRule(Opcode op) {
  for (const auto& [o, r] : kIntRules)
    if (o == op) return r;
  return {};
}

std::string suffixFor(Sfx s, Scalar t) {
  bool wide = ir::bitWidth(t) == 64;
  switch (s) {
    case Sfx::Typed: return std::string(intSuffix(t));
    case Sfx::Signed: return wide ? ".s64" : ".s32";
    case Sfx::Bits: return wide ? ".b64" : ".b32";
  }
  return "";
}

// shl/shr: the amount is read as an unsigned number of the type's width; amounts >= width give 0
// (or the sign fill for signed shr). PTX clamps the amount at the register width (32 or 64), which
// covers 32/64-bit types once a 64-bit amount is clamped to 64 before narrowing it to .u32.
void shift(Entry& e, bool left, Scalar t, Reg d, Reg a, Reg b) {
  int w = ir::bitWidth(t);
  std::string op = left ? "shl.b32" : std::string("shr") + std::string(intSuffix(t));
  if (w == 64) {
    Reg c = e.reg(RegClass::B64), c32 = e.reg(RegClass::B32);
    e.inst("min.u64", {c, b, 64});
    e.inst("cvt.u32.u64", {c32, c});
    e.inst(left ? "shl.b64" : "shr" + std::string(intSuffix(t)), {d, a, c32});
    return;
  }
  Reg amount = b;
  if (w < 32 && ir::isSigned(t)) {  // a negative amount is huge: read its low w bits unsigned
    amount = e.reg(RegClass::B32);
    e.inst("and.b32", {amount, b, w == 8 ? 255 : 65535});
  }
  e.inst(op, {d, a, amount});
  if (left) normalizeInt(e, t, d);  // shr of an extended value stays extended
}

void umulhi(Entry& e, Scalar t, Reg d, Reg a, Reg b) {
  int w = ir::bitWidth(t);
  if (w >= 32) {
    e.inst(w == 64 ? "mul.hi.u64" : "mul.hi.u32", {d, a, b});
    return;
  }
  // The product of two w-bit unsigned values fits in 32 bits: take bits [w, 2w).
  Reg x = a, y = b, p = e.reg(RegClass::B32);
  if (ir::isSigned(t)) {
    x = e.reg(RegClass::B32), y = e.reg(RegClass::B32);
    int mask = w == 8 ? 255 : 65535;
    e.inst("and.b32", {x, a, mask});
    e.inst("and.b32", {y, b, mask});
  }
  e.inst("mul.lo.u32", {p, x, y});
  e.inst("shr.u32", {d, p, w});
  normalizeInt(e, t, d);
}

}  // namespace

void selectIntOp(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  const Scalar t = op.type;
  if (t == Scalar::Ptr && op.op != Opcode::Cmp && op.op != Opcode::Select) notDefined(op);
  const bool wide = ir::bitWidth(t) == 64;
  if (IntRule r = intRule(op.op); r.mnemonic) {
    std::vector<Operand> ops{d};
    for (Reg x : s) ops.push_back(x);
    e.inst(r.mnemonic + suffixFor(r.suffix, t), ops);
    if (r.renormalize && !(op.op == Opcode::Not && ir::isSigned(t))) normalizeInt(e, t, d);
    return;
  }
  if (op.op == Opcode::Shl) return shift(e, true, t, d, s[0], s[1]);
  if (op.op == Opcode::Shr) return shift(e, false, t, d, s[0], s[1]);
  if (op.op == Opcode::UMulHi) return umulhi(e, t, d, s[0], s[1]);
  if (op.op == Opcode::MulHi) return e.inst("mul.hi" + std::string(intSuffix(t)), {d, s[0], s[1]});
  if (op.op == Opcode::Brev) return e.inst(wide ? "brev.b64" : "brev.b32", {d, s[0]});
  if (op.op == Opcode::Clz || op.op == Opcode::Popc) {  // the count is a .u32 also for .b64 operands
    std::string m = op.op == Opcode::Clz ? "clz" : "popc";
    if (!wide) return e.inst(m + ".b32", {d, s[0]});
    Reg c = e.reg(RegClass::B32);
    e.inst(m + ".b64", {c, s[0]});
    return e.inst("cvt.u64.u32", {d, c});
  }
  if (op.op == Opcode::BytePerm) {  // prmt's default mode; bit 3 of a selector (sign replication) is not read
    Reg sel = e.reg(RegClass::B32);
    e.inst("and.b32", {sel, s[2], hexImm(0x7777)});
    return e.inst("prmt.b32", {d, s[0], s[1], sel});
  }
  if (op.op == Opcode::Rem) {  // x % 0 is x (docs/semantics.md); the GPU's rem gives all ones there
    Reg r = e.reg(wide ? RegClass::B64 : RegClass::B32), zero = e.reg(RegClass::Pred);
    e.inst("rem" + std::string(intSuffix(t)), {r, s[0], s[1]});
    e.inst(wide ? "setp.eq.s64" : "setp.eq.s32", {zero, s[1], 0});
    return e.inst(wide ? "selp.b64" : "selp.b32", {d, s[0], r, zero});
  }
  if (op.op == Opcode::Abs) {
    if (!ir::isSigned(t)) return e.inst(wide ? "mov.b64" : "mov.b32", {d, s[0]});
    e.inst(wide ? "abs.s64" : "abs.s32", {d, s[0]});
    return normalizeInt(e, t, d);  // abs(-128) = 128 wraps back to -128 in i8
  }
  if (op.op == Opcode::Cmp) {
    Scalar ct = t == Scalar::Ptr ? Scalar::U64 : t;
    return e.inst("setp." + std::string(cmpName(op.pred)) + std::string(intSuffix(ct)), {d, s[0], s[1]});
  }
  if (op.op == Opcode::Select) return e.inst(wide ? "selp.b64" : "selp.b32", {d, s[1], s[2], s[0]});
  notDefined(op);
}

// i1 is arithmetic modulo 2 and unsigned: add/sub = xor, mul/min = and, max = or; a / b is
// a | !b (b = 0 gives all ones = 1) and a % b = a & !b (b = 0 gives a); shifts by 1 >= width give 0.
void selectPredOp(Entry& e, const ElementOp& op, Reg d, std::span<const Reg> s) {
  // d = a OP b, or d = a OP !b ("andNot" forms).
  enum class Form : uint8_t { Binary, WithNotB, Copy, Invert, Zero };
  struct PredRule {
    Opcode op;
    const char* mnemonic;
    Form form;
  };
  static constexpr PredRule kRules[] = {
      {Opcode::Add, "xor.pred", Form::Binary},      {Opcode::Sub, "xor.pred", Form::Binary},
      {Opcode::Xor, "xor.pred", Form::Binary},      {Opcode::Mul, "and.pred", Form::Binary},
      {Opcode::And, "and.pred", Form::Binary},      {Opcode::Min, "and.pred", Form::Binary},
      {Opcode::Or, "or.pred", Form::Binary},        {Opcode::Max, "or.pred", Form::Binary},
      {Opcode::Div, "or.pred", Form::WithNotB},     {Opcode::Rem, "and.pred", Form::WithNotB},
      {Opcode::Shl, "and.pred", Form::WithNotB},    {Opcode::Shr, "and.pred", Form::WithNotB},
      {Opcode::Neg, "mov.pred", Form::Copy},        {Opcode::Abs, "mov.pred", Form::Copy},
      {Opcode::Not, "not.pred", Form::Invert},      {Opcode::UMulHi, "mov.pred", Form::Zero},
  };
  auto withNot = [&](const char* m, Reg x, Reg notMe) {  // d = x M !notMe
    Reg n = e.reg(RegClass::Pred);
    e.inst("not.pred", {n, notMe});
    e.inst(m, {d, x, n});
  };
  for (const PredRule& r : kRules) {
    if (r.op != op.op) continue;
    switch (r.form) {
      case Form::Binary: return e.inst(r.mnemonic, {d, s[0], s[1]});
      case Form::WithNotB: return withNot(r.mnemonic, s[0], s[1]);
      case Form::Copy: case Form::Invert: return e.inst(r.mnemonic, {d, s[0]});
      case Form::Zero: return e.inst(r.mnemonic, {d, 0});
    }
  }
  if (op.op == Opcode::Cmp) {  // unsigned 0/1 compares
    switch (op.pred) {
      case CmpPred::Eq: {
        Reg x = e.reg(RegClass::Pred);
        e.inst("xor.pred", {x, s[0], s[1]});
        return e.inst("not.pred", {d, x});
      }
      case CmpPred::Ne: return e.inst("xor.pred", {d, s[0], s[1]});
      case CmpPred::Lt: return withNot("and.pred", s[1], s[0]);  // !a & b
      case CmpPred::Le: return withNot("or.pred", s[1], s[0]);   // !a | b
      case CmpPred::Gt: return withNot("and.pred", s[0], s[1]);  // a & !b
      case CmpPred::Ge: return withNot("or.pred", s[0], s[1]);   // a | !b
    }
  }
  if (op.op == Opcode::Select) {  // (c & a) | (!c & b), d written last so it may alias an operand
    Reg x = e.reg(RegClass::Pred), n = e.reg(RegClass::Pred);
    e.inst("and.pred", {x, s[0], s[1]});
    e.inst("not.pred", {n, s[0]});
    e.inst("and.pred", {n, n, s[2]});
    return e.inst("or.pred", {d, x, n});
  }
  notDefined(op);
}

}  // namespace kiln::ptx::detail
