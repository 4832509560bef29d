// Helpers for the PTX tests: the body text of an entry, test kernels that run one selection per
// element (out[i] = f(a[i], b[i], c[i])), and assembling modules with ptxas for sm_80 and sm_90a.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "ptx/builder.h"
#include "ptx/isel.h"
#include "ptx/memory.h"
#include "ptx/ptxas.h"
#include "ptx/warp.h"
#include "support/diagnostic.h"

namespace kiln::ptx::test {

// The instructions of an entry: the text between the declarations and the closing brace.
inline std::string bodyOf(const Entry& e) {
  std::string s = e.str();
  size_t open = s.find("{\n");
  size_t start = s.find("\n\n", open);
  start = start == std::string::npos ? open + 2 : start + 2;
  size_t end = s.rfind("}\n");
  return s.substr(start, end - start);
}

// Elements are stored in memory as bytes (i1), or their natural width.
inline int memBytes(ir::Scalar t) { return t == ir::Scalar::I1 ? 1 : ir::bitWidth(t) / 8; }

using ElementBody = std::function<void(Entry& e, Reg dst, const std::vector<Reg>& src)>;

// A kernel `name(in0, in1, ..., out, n)`: thread i < n loads in_k[i] (type ins[k]), runs `body`
// and stores out[i] (type out). Parameters are pointers except n (u32).
inline Entry& elementKernel(Module& m, const std::string& name, const std::vector<ir::Scalar>& ins, ir::Scalar out,
                            const ElementBody& body) {
  Entry& e = m.addEntry(name);
  std::vector<int> params;
  for (size_t k = 0; k < ins.size(); ++k) params.push_back(e.addParam("in" + std::to_string(k), ParamType::Ptr, 16));
  int outParam = e.addParam("out", ParamType::Ptr, 16);
  int nParam = e.addParam("n", ParamType::U32);
  e.setMaxNtid(128);
  std::vector<Reg> ptrs;
  for (int p : params) ptrs.push_back(e.loadParam(p));
  Reg outPtr = e.loadParam(outParam), n = e.loadParam(nParam);
  Reg tid = readSpecial(e, SpecialReg::TidX), cta = readSpecial(e, SpecialReg::CtaidX);
  Reg ntid = readSpecial(e, SpecialReg::NtidX), i = e.reg(RegClass::B32);
  e.inst("mad.lo.s32", {i, cta, ntid, tid});
  Reg inRange = e.reg(RegClass::Pred);
  e.inst("setp.lt.u32", {inRange, i, n});
  Label done = e.newLabel("done");
  e.bra(done, unless(inRange));
  std::vector<Reg> src;
  for (size_t k = 0; k < ins.size(); ++k) {
    Reg p = e.reg(RegClass::B64), v = e.reg(regClassOf(ins[k]));
    selectPtrAdd(e, ir::Scalar::U32, memBytes(ins[k]), p, ptrs[k], i);
    Reg one[] = {v};
    loadVector(e, Space::Global, ins[k], one, p, 0);
    src.push_back(v);
  }
  Reg d = e.reg(regClassOf(out)), q = e.reg(RegClass::B64);
  body(e, d, src);
  selectPtrAdd(e, ir::Scalar::U32, memBytes(out), q, outPtr, i);
  Reg one[] = {d};
  storeVector(e, Space::Global, out, one, q, 0);
  e.label(done);
  e.ret();
  return e;
}

// The PTX with line numbers around the lines a ptxas log complains about.
inline std::string annotate(const std::string& ptx, const std::string& log) {
  std::vector<std::string> lines;
  std::istringstream in(ptx);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string out;
  for (size_t at = log.find(", line "); at != std::string::npos; at = log.find(", line ", at + 1)) {
    int n = std::atoi(log.c_str() + at + 7);
    for (int k = std::max(1, n - 3); k <= std::min(int(lines.size()), n + 1); ++k)
      out += std::to_string(k) + (k == n ? " >> " : "    ") + lines[size_t(k - 1)] + "\n";
    out += "...\n";
  }
  return out;
}

// Assembles `ptx` for `arch`; an empty string when it assembles, else the log and the lines at fault.
inline std::string assembleErrors(const std::string& ptx, const std::string& arch) {
  AssembleResult r = assemble(ptx, arch);
  if (r.ok) return "";
  return "ptxas -arch=" + arch + " failed (exit " + std::to_string(r.exitCode) + "):\n" + r.log + "\n" + annotate(ptx, r.log);
}

inline bool havePtxas() { return findPtxas().has_value(); }

// Every scalar type (pointers excluded).
inline const std::vector<ir::Scalar>& allScalars() {
  using ir::Scalar;
  static const std::vector<Scalar> k = {Scalar::I1, Scalar::I8, Scalar::I16, Scalar::I32, Scalar::I64,
                                        Scalar::U8, Scalar::U16, Scalar::U32, Scalar::U64, Scalar::F8E4M3,
                                        Scalar::F8E5M2, Scalar::F16, Scalar::BF16, Scalar::F32, Scalar::F64};
  return k;
}

// A name fragment for a type: "i32", "f8e4m3".
inline std::string tname(ir::Scalar t) { return std::string(ir::name(t)); }

// ---- the element-wise ops, the types each takes, their attribute variants

inline const std::vector<ir::Opcode>& elementwiseOps() {
  static const std::vector<ir::Opcode> k = [] {
    std::vector<ir::Opcode> v;
    for (int i = 0; i < ir::numOpcodes(); ++i)
      if (isElementwise(ir::Opcode(i))) v.push_back(ir::Opcode(i));
    return v;
  }();
  return k;
}

inline bool intOnly(ir::Opcode op) { return ir::familyOf(op) == ir::Family::Bitwise; }  // and .. byte_perm
inline bool floatOnly(ir::Opcode op) { return ir::familyOf(op) == ir::Family::Math; }  // fma, exp .. pow

// The types the verifier allows for an element-wise op (Cmp and Select also take pointers).
inline std::vector<ir::Scalar> typesFor(ir::Opcode op) {
  std::vector<ir::Scalar> out;
  for (ir::Scalar t : allScalars())
    if ((!intOnly(op) || ir::isInt(t)) && (!floatOnly(op) || ir::isFloat(t)))
      out.push_back(t);
  // libdevice's bit ops take 32- and 64-bit integers (byte_perm 32-bit ones), rounded f32 and f64.
  using ir::Opcode;
  auto keep = [&](auto pred) { std::erase_if(out, [&](ir::Scalar t) { return !pred(t); }); };
  if (op == Opcode::Clz || op == Opcode::Popc || op == Opcode::Brev || op == Opcode::MulHi)
    keep([](ir::Scalar t) { return ir::bitWidth(t) >= 32; });
  if (op == Opcode::BytePerm) keep([](ir::Scalar t) { return ir::bitWidth(t) == 32; });
  if (op == Opcode::Rounded) keep([](ir::Scalar t) { return t == ir::Scalar::F32 || t == ir::Scalar::F64; });
  if (op == Opcode::RoundTf32) keep([](ir::Scalar t) { return t == ir::Scalar::F32; });  // the verifier's rule
  if (op == ir::Opcode::Cmp || op == ir::Opcode::Select) out.push_back(ir::Scalar::Ptr);
  return out;
}

struct Variant {
  std::string suffix;
  ElementOp op;
};

inline std::vector<Variant> variantsFor(ir::Opcode opc, ir::Scalar t) {
  ElementOp base{opc, t, CmpPred::Eq, false, false, {}};
  if (opc == ir::Opcode::Cmp) {
    std::vector<Variant> v;
    for (CmpPred p : {CmpPred::Eq, CmpPred::Ne, CmpPred::Lt, CmpPred::Le, CmpPred::Gt, CmpPred::Ge}) {
      ElementOp o = base;
      o.pred = p;
      v.push_back({"_" + std::to_string(int(p)), o});
    }
    return v;
  }
  if (opc == ir::Opcode::Rounded) {  // every fn in every direction
    std::vector<Variant> v;
    for (int f = 0; f <= int(ir::RoundedFn::Rcp); ++f)
      for (int m = 0; m <= int(ir::RoundMode::Up); ++m) {
        ElementOp o = base;
        o.roundedFn = ir::RoundedFn(f), o.mode = ir::RoundMode(m);
        v.push_back({"_" + std::string(ir::roundedFnName(o.roundedFn)) + "_" + std::string(ir::roundModeName(o.mode)), o});
      }
    return v;
  }
  ElementOp alt = base;
  if (opc == ir::Opcode::Min || opc == ir::Opcode::Max) alt.propagateNan = true;
  else if (opc == ir::Opcode::Div || opc == ir::Opcode::Sqrt) alt.ieee = true;
  else return {{"", base}};
  return {{"", base}, {"_alt", alt}};
}

// What kiln reports as unsupported instead of selecting.
inline bool unsupported(const ElementOp& op, const Target& target) {
  bool fp8 = op.type == ir::Scalar::F8E4M3 || op.type == ir::Scalar::F8E5M2;
  bool bitsOnly = op.op == ir::Opcode::Neg || op.op == ir::Opcode::Abs || op.op == ir::Opcode::Select || op.op == ir::Opcode::Cmp;
  return fp8 && target.sm < 89 && !bitsOnly;
}

inline std::vector<ir::Scalar> operandTypes(const ElementOp& op) {
  if (op.op == ir::Opcode::Select) return {ir::Scalar::I1, op.type, op.type};
  if (op.op == ir::Opcode::Rounded) return std::vector<ir::Scalar>(size_t(ir::roundedArity(op.roundedFn)), op.type);
  return std::vector<ir::Scalar>(size_t(ir::info(op.op).minOperands), op.type);
}

}  // namespace kiln::ptx::test
