// Exact integer results for the overflow oracle: each op of scalar_eval on unbounded integers
// (held in 128 bits, clamped far past every address), and how a report shows the op.
#include "interp/exact_int.h"

#include <algorithm>
#include <utility>

namespace kiln::interp {

using ir::Opcode;
using ir::Scalar;

namespace {

constexpr Wide kHuge = Wide(1) << 120;

Wide clamp(Wide v) { return std::clamp(v, -kHuge, kHuge); }

Wide product(Wide a, Wide b) {
  Wide p;
  if (__builtin_mul_overflow(a, b, &p)) return (a < 0) != (b < 0) ? -kHuge : kHuge;
  return clamp(p);
}

bool intOrPtr(Scalar t) { return ir::isInt(t) || t == Scalar::Ptr; }

// The binary ops a report writes infix; others are written as calls.
const char* infixSymbol(Opcode op) {
  static constexpr std::pair<Opcode, const char*> kInfix[] = {
      {Opcode::Add, " + "}, {Opcode::Sub, " - "},   {Opcode::Mul, " * "},  {Opcode::Div, " / "},
      {Opcode::Rem, " % "}, {Opcode::Shl, " << "},  {Opcode::Shr, " >> "}, {Opcode::And, " & "},
      {Opcode::Or, " | "},  {Opcode::Xor, " ^ "},   {Opcode::PtrAdd, " + "}};
  for (const auto& [o, s] : kInfix)
    if (o == op) return s;
  return nullptr;
}

}  // namespace

ir::Elem wrapTo(Scalar t, Wide v) {
  ir::Elem e;
  e.u = uint64_t(v);  // the low 64 bits: two's complement
  return t == Scalar::I1 ? ir::intElem(v != 0) : ir::normalize(t, e);
}

bool fitsIn(Scalar t, Wide v) {
  if (t == Scalar::I32) return v >= INT32_MIN && v <= INT32_MAX;
  if (t == Scalar::U32) return v >= 0 && v <= UINT32_MAX;
  return true;
}

std::string wideStr(Wide v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 m = neg ? -(unsigned __int128)(v) : (unsigned __int128)(v);
  std::string s;
  for (; m != 0; m /= 10) s += char('0' + int(m % 10));
  if (neg) s += '-';
  std::reverse(s.begin(), s.end());
  return s;
}

bool exactResult(const Inst& in, Scalar t, Scalar rt, uint64_t pointeeBytes, const Wide* x, Wide& out) {
  if (!intOrPtr(t) || !intOrPtr(rt)) return false;
  switch (in.op->opcode) {
    case Opcode::Add: out = x[0] + x[1]; return true;
    case Opcode::Sub: out = x[0] - x[1]; return true;
    case Opcode::Mul: out = product(x[0], x[1]); return true;
    case Opcode::Div:
      if (x[1] == 0) return false;  // defined as the GPU's value; not an overflow
      out = x[0] / x[1];            // truncates toward zero, as C does
      return true;
    case Opcode::Rem:
      if (x[1] == 0) return false;
      out = x[0] % x[1];
      return true;
    case Opcode::Neg: out = -x[0]; return true;
    case Opcode::Abs: out = ir::isSigned(t) && x[0] < 0 ? -x[0] : x[0]; return true;
    case Opcode::Shl:
      if (x[1] < 0) return false;  // read as a huge unsigned amount: 0, by definition
      if (x[0] == 0) out = 0;
      else if (x[1] >= 120) out = x[0] < 0 ? -kHuge : kHuge;
      else out = product(x[0], Wide(1) << int(x[1]));
      return true;
    case Opcode::Shr:
      if (x[1] < 0) return false;
      out = x[1] >= 127 ? (x[0] < 0 ? -1 : 0) : x[0] >> int(x[1]);
      return true;
    case Opcode::And: out = x[0] & x[1]; return true;
    case Opcode::Or: out = x[0] | x[1]; return true;
    case Opcode::Xor: out = x[0] ^ x[1]; return true;
    case Opcode::Not:
      if (!ir::isSigned(t)) return false;  // flips `width` bits: defined by the width
      out = ~x[0];
      return true;
    case Opcode::Min: out = std::min(x[0], x[1]); return true;
    case Opcode::Max: out = std::max(x[0], x[1]); return true;
    case Opcode::Cmp: {
      static constexpr bool kHolds[6][3] = {
          {false, true, false}, {true, false, true}, {true, false, false},  // eq ne lt  (by <, ==, >)
          {true, true, false},  {false, false, true}, {false, true, true}};  // le gt ge
      if (in.ew.pred > 5) return false;
      out = kHolds[in.ew.pred][x[0] < x[1] ? 0 : x[0] == x[1] ? 1 : 2];
      return true;
    }
    case Opcode::Select: out = x[0] != 0 ? x[1] : x[2]; return true;
    case Opcode::Cast: out = rt == Scalar::I1 ? Wide(x[0] != 0) : x[0]; return true;
    case Opcode::Bitcast: out = x[0]; return true;
    case Opcode::PtrAdd: out = clamp(x[0] + product(x[1], Wide(pointeeBytes))); return true;
    case Opcode::UMulHi: case Opcode::Constant: case Opcode::ProgramId: case Opcode::NumPrograms:
    case Opcode::Arange: case Opcode::Splat: case Opcode::Broadcast: case Opcode::ExpandDims: case Opcode::Reshape:
    case Opcode::Permute: case Opcode::Load: case Opcode::Store: case Opcode::Clz: case Opcode::Popc:
    case Opcode::Brev: case Opcode::MulHi: case Opcode::BytePerm:
    KILN_MATH_OPCODE_CASES:
    case Opcode::Reduce: case Opcode::ReduceCombine: case Opcode::Scan: case Opcode::Sort: case Opcode::AtomicRmw: case Opcode::AtomicCas:
    case Opcode::DebugBarrier: case Opcode::Dot: case Opcode::Gather: case Opcode::Histogram:
    case Opcode::MultipleOf: case Opcode::MaxContiguous: case Opcode::For:
    case Opcode::If: case Opcode::While: case Opcode::Yield: case Opcode::Condition: case Opcode::Return:
    case Opcode::Assert: case Opcode::Print: case Opcode::InlineAsm: case Opcode::ConvertLayout: case Opcode::SharedAlloc: case Opcode::SharedSlot: case Opcode::SharedPermute:
    case Opcode::LocalStore: case Opcode::LocalLoad: case Opcode::ExtractSlice: case Opcode::AsyncCopy: case Opcode::AsyncCommit:
    case Opcode::AsyncWait: case Opcode::Barrier: case Opcode::FenceAsyncShared: case Opcode::MbarrierInit: case Opcode::MbarrierArrive:
    case Opcode::AsyncCopyArrive: case Opcode::WarpgroupTurn:
    case Opcode::MbarrierExpectTx: case Opcode::MbarrierWait: case Opcode::Mma: case Opcode::MmaWait:
    case Opcode::WarpPartition: case Opcode::TensorMap: case Opcode::TmaLoad: case Opcode::TmaStore: case Opcode::TmaStoreWait:
      return false;  // not integer arithmetic (umulhi: its high half cannot wrap): taken as computed
  }
  return false;
}

std::string exactOpText(const Inst& in, Scalar t, const Wide* x, int numOperands) {
  const Opcode op = in.op->opcode;
  if (const char* sym = infixSymbol(op); sym && numOperands >= 2) return wideStr(x[0]) + sym + wideStr(x[1]);
  if (op == Opcode::Neg) return "-" + wideStr(x[0]);
  if (op == Opcode::Abs) return "abs(" + wideStr(x[0]) + ")";
  if (op == Opcode::Cast) return "cast of " + std::string(ir::name(t)) + " " + wideStr(x[0]);
  std::string s = std::string(in.op->name()) + "(";
  for (int k = 0; k < numOperands; ++k) s += (k ? ", " : "") + wideStr(x[k]);
  return s + ")";
}

}  // namespace kiln::interp
