// Element-wise ops, casts, bitcasts and constants: one selection (ptx/isel.h) per register index.
// Register indices whose source registers are the same (broadcast copies, splats) share one result.
#include <algorithm>
#include <bit>
#include <functional>
#include <map>

#include "lower/codegen.h"
#include "lower/global_access.h"
#include "ptx/isel.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using ir::Opcode;
using ptx::Reg;

namespace {

int64_t regKey(Reg r) { return (int64_t(r.cls) << 32) | int64_t(uint32_t(r.id)); }

using Selector = std::function<void(Reg dst, const std::vector<Reg>& src)>;

// Runs `select(dst, sources)` for each register index of the result, once per distinct set of
// source registers and once per block of elements the axis info proves equal (a mask `cols < N` is
// one predicate per vector, whatever registers cols spans), and binds the result. A scalar operand
// (select's condition) serves every index.
void perRegister(Codegen& cg, const ir::Op& op, const Selector& select) {
  const ir::Value* res = op.result(0);
  std::vector<Reg> out(size_t(Codegen::numRegs(res->type)));
  std::vector<int32_t> same;  // for each index, the first one holding an equal element (when any block is)
  if (res->type.isTensor()) {
    const std::vector<int64_t>& constancy = cg.axis.get(res).constancy;
    if (std::any_of(constancy.begin(), constancy.end(), [](int64_t k) { return k > 1; }))
      same = canonicalRegisters(*res->type.layout, constancy);
  }
  std::vector<std::vector<Reg>> operands;  // fetched once: regs() may form pointers (codegen.h)
  for (const ir::Value* v : op.operands) {
    operands.push_back(cg.regs(v));
    if (v->type.isTensor() && operands.back().size() != out.size())
      codegenBug(op, "operand " + v->type.str() + " and result " + res->type.str() + " have different register counts");
  }
  // Indices already selected, by their sources: an open-addressed table of index + 1 (0: empty) over
  // the sources' keys, flattened n to an index (one allocation, not a map node and a key per index).
  const size_t n = operands.size();
  std::vector<int64_t> keys(out.size() * n);
  std::vector<uint32_t> table(std::bit_ceil(2 * out.size() + 1), 0);
  const size_t mask = table.size() - 1;
  std::vector<Reg> src;
  for (size_t r = 0; r < out.size(); ++r) {
    if (!same.empty() && size_t(same[r]) != r) {
      out[r] = out[size_t(same[r])];
      continue;
    }
    src.clear();
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < n; ++k) {
      src.push_back(op.operand(unsigned(k))->type.isTensor() ? operands[k][r] : operands[k].at(0));
      keys[r * n + k] = regKey(src.back());
      h = (h ^ uint64_t(keys[r * n + k])) * 1099511628211ull;
      h ^= h >> 29;
    }
    size_t slot = size_t(h) & mask;
    for (; table[slot] != 0; slot = (slot + 1) & mask) {
      const size_t other = table[slot] - 1;
      if (std::equal(keys.begin() + std::ptrdiff_t(other * n), keys.begin() + std::ptrdiff_t(other * n + n),
                     keys.begin() + std::ptrdiff_t(r * n)))
        break;
    }
    if (table[slot] != 0) {
      out[r] = out[table[slot] - 1];
      continue;
    }
    out[r] = cg.e.reg(ptx::regClassOf(res->type.elem));
    select(out[r], src);
    table[slot] = uint32_t(r + 1);
  }
  cg.bind(res, std::move(out));
}

// f32 x / y (div.full): a divisor register that several quotients share (a row's sum broadcast
// along the row) is prepared once, and each of its quotients costs two multiplies instead of three.
void divideF32(Codegen& cg, const ir::Op& op) {
  std::map<int64_t, int> uses;
  for (Reg d : cg.regs(op.operand(1))) ++uses[regKey(d)];
  std::map<int64_t, ptx::F32Divisor> prepared;
  ptx::ElementOp eop = ptx::elementOpOf(op, ir::Scalar::F32);
  perRegister(cg, op, [&](Reg q, const std::vector<Reg>& s) {
    int64_t key = regKey(s[1]);
    if (uses[key] < 2) return ptx::selectElementwise(cg.e, eop, q, s);
    auto it = prepared.find(key);
    if (it == prepared.end()) it = prepared.emplace(key, ptx::prepareF32Divisor(cg.e, s[1])).first;
    ptx::divideByF32Divisor(cg.e, q, s[0], it->second);
  });
}

// The constant's element, converted to the result type as the interpreter does.
ir::Elem constantValue(const ir::Op& op) {
  const ir::Type& t = op.result(0)->type;
  const ir::AttrValue* v = op.findAttr("value");
  if (!v) codegenBug(op, "no value");
  if (const int64_t* i = std::get_if<int64_t>(v))
    return t.isFloat() ? ir::convert(ir::Scalar::I64, t.elem, ir::intElem(*i)) : ir::normalize(t.elem, ir::intElem(*i));
  if (const double* d = std::get_if<double>(v)) return ir::convert(ir::Scalar::F64, t.elem, ir::floatElem(*d));
  codegenBug(op, "the value is neither an integer nor a float");
}

void constant(Codegen& cg, const ir::Op& op) {
  const ir::Value* res = op.result(0);
  Reg r = cg.e.reg(ptx::regClassOf(res->type.elem));
  ptx::selectConstant(cg.e, res->type.elem, constantValue(op), r);
  // A tile constant holds the same value in every register: one register serves them all.
  cg.bind(res, std::vector<Reg>(size_t(Codegen::numRegs(res->type)), r));
}

}  // namespace

void lowerElementwise(Codegen& cg, const ir::Op& op) {
  switch (op.opcode) {
    case Opcode::Constant: return constant(cg, op);
    case Opcode::Cast: {
      ir::Scalar from = op.operand(0)->type.elem, to = op.result(0)->type.elem;
      ir::RoundMode mode;
      if (!ir::roundModeFromName(op.strAttrOr("rounding", "rtne"), mode)) codegenBug(op, "unknown rounding");
      return perRegister(cg, op, [&](Reg d, const std::vector<Reg>& s) { ptx::selectCast(cg.e, from, to, mode, d, s[0], op.loc); });
    }
    case Opcode::Bitcast: {
      ir::Scalar from = op.operand(0)->type.elem, to = op.result(0)->type.elem;
      return perRegister(cg, op, [&](Reg d, const std::vector<Reg>& s) { ptx::selectBitcast(cg.e, from, to, d, s[0]); });
    }
    case Opcode::Div:
      if (op.operand(0)->type.elem == ir::Scalar::F32 && !ptx::elementOpOf(op, ir::Scalar::F32).ieee)
        return divideF32(cg, op);
      [[fallthrough]];
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Rem: case Opcode::And:
    case Opcode::Or: case Opcode::Xor: case Opcode::Shl: case Opcode::Shr: case Opcode::Min: case Opcode::Max:
    case Opcode::UMulHi: case Opcode::Neg: case Opcode::Not: case Opcode::Abs: case Opcode::Cmp:
    case Opcode::Clz: case Opcode::Popc: case Opcode::Brev: case Opcode::MulHi: case Opcode::BytePerm:
    KILN_MATH_OPCODE_CASES:
    case Opcode::Select: {
      if (op.opcode == Opcode::Select && lowerGuardedSelect(cg, op)) return;
      // The operand type: Select's a/b (its first operand is the condition).
      const ir::Value* typed = op.opcode == Opcode::Select ? op.operand(1) : op.operand(0);
      ptx::ElementOp eop = ptx::elementOpOf(op, typed->type.elem);
      return perRegister(cg, op, [&](Reg d, const std::vector<Reg>& s) { ptx::selectElementwise(cg.e, eop, d, s); });
    }
    default:  // not in the families this file lowers (codegen.cpp dispatches on ops.def's family)
      break;
  }
  codegenBug(op, "not an element-wise op");
}

}  // namespace kiln::lower
