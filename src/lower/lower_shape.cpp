// Shape ops and program indices. By the GPU IR contract (docs/codegen.md) broadcast, expand_dims,
// reshape and permute keep register r of the operand as register r of the result, so they emit
// nothing; splat binds every register to the scalar; arange computes coordinates.
#include <map>

#include "lower/codegen.h"
#include "ptx/warp.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using ir::Opcode;
using ptx::Reg;
using ptx::RegClass;

namespace {

// arange: register r holds start + its coordinate along dim0. Registers with the same constant part
// share one result register.
void arange(Codegen& cg, const ir::Op& op) {
  const ir::Value* res = op.result(0);
  if (!res->type.isTensor() || res->type.rank() != 1) codegenBug(op, "the result must be a rank-1 tile");
  const int64_t start = op.intAttr("start");
  const layout::LinearLayout& l = *res->type.layout;
  std::vector<Reg> out(size_t(Codegen::numRegs(res->type)));
  std::map<int32_t, Reg> byConstant;
  const std::vector<std::vector<Codegen::CoordPart>> parts = cg.coordPartsOf(l, 0, int32_t(out.size()));
  for (size_t r = 0; r < out.size(); ++r) {
    const Codegen::CoordPart& p = parts[r][0];
    if (auto it = byConstant.find(p.constant); it != byConstant.end()) {
      out[r] = it->second;
      continue;
    }
    Reg d;
    // Coordinates that are a thread part plus a constant are noted as such (Codegen::noteSum): an
    // access through base + arange addresses every register from one pointer and immediate offsets.
    if (!p.thread.valid()) {
      d = cg.e.reg(RegClass::B32);
      cg.e.inst("mov.b32", {d, int64_t(int32_t(start + p.constant))});
      cg.noteSum(d, Reg{}, start + p.constant);
    } else if (p.disjoint && start + p.constant == 0) {
      d = p.thread;  // shared, never written
      cg.noteSum(d, p.thread, 0);
    } else if (p.disjoint) {
      d = cg.e.reg(RegClass::B32);
      cg.e.inst("add.s32", {d, p.thread, int64_t(int32_t(start + p.constant))});
      cg.noteSum(d, p.thread, start + p.constant);
    } else {
      Reg x = cg.e.reg(RegClass::B32);
      cg.e.inst("xor.b32", {x, p.thread, p.constant});
      d = x;
      if (start != 0) {
        d = cg.e.reg(RegClass::B32);
        cg.e.inst("add.s32", {d, x, int64_t(int32_t(start))});
      }
    }
    byConstant[p.constant] = d;
    out[r] = d;
  }
  cg.bind(res, std::move(out));
}

void programIndex(Codegen& cg, const ir::Op& op, ptx::SpecialReg x) {
  int64_t axis = op.intAttr("axis");
  if (axis < 0 || axis > 2) codegenBug(op, "axis must be 0, 1 or 2");
  cg.bind(op.result(0), {ptx::readSpecial(cg.e, ptx::SpecialReg(int(x) + int(axis)))});
}

// The result is the operand's registers, in the same order (the layouts agree register by register).
void sameRegisters(Codegen& cg, const ir::Op& op) {
  if (const Codegen::PtrTile* t = cg.ptrTile(op.operand(0))) {  // offsets move like registers
    if (!t->offsets.empty() && int(t->offsets.size()) != Codegen::numRegs(op.result(0)->type))
      codegenBug(op, op.operand(0)->type.str() + " -> " + op.result(0)->type.str() + " changes the register count");
    return cg.bindPtrTile(op.result(0), *t);
  }
  const std::vector<Reg>& in = cg.regs(op.operand(0));
  if (int(in.size()) != Codegen::numRegs(op.result(0)->type))
    codegenBug(op, op.operand(0)->type.str() + " -> " + op.result(0)->type.str() + " changes the register count");
  cg.bind(op.result(0), in);
}

}  // namespace

void lowerShape(Codegen& cg, const ir::Op& op) {
  switch (op.opcode) {
    case Opcode::ProgramId: return programIndex(cg, op, ptx::SpecialReg::CtaidX);
    case Opcode::NumPrograms: return programIndex(cg, op, ptx::SpecialReg::NctaidX);
    case Opcode::Arange: return arange(cg, op);
    case Opcode::Splat: {
      const ir::Value* res = op.result(0);
      if (op.operand(0)->type.isTensor()) codegenBug(op, "the operand must be a scalar");
      if (res->type.isPtr()) {  // a pointer tile of one base and no offsets: no registers to fill
        int bytes = res->type.pointee == ir::Scalar::I1 ? 1 : ir::bitWidth(res->type.pointee) / 8;
        return cg.bindPtrTile(res, Codegen::PtrTile{cg.reg(op.operand(0)), {}, ir::Scalar::I32, bytes});
      }
      return cg.bind(res, std::vector<Reg>(size_t(Codegen::numRegs(res->type)), cg.reg(op.operand(0))));
    }
    case Opcode::Broadcast: case Opcode::ExpandDims: case Opcode::Reshape: case Opcode::Permute:
    case Opcode::MultipleOf: case Opcode::MaxContiguous:
      return sameRegisters(cg, op);
    default:  // not in the families this file lowers (codegen.cpp dispatches on ops.def's family)
      break;
  }
  codegenBug(op, "not a shape op");
}

}  // namespace kiln::lower
