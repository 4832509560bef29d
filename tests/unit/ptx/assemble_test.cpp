// Assembly tests: every selection function, in every dtype it accepts, inside a small kernel that
// ptxas must accept for sm_80 and sm_90a. Combinations the GPU cannot do must raise CompileError.
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

using ir::Opcode;
using ir::Scalar;

const Target kTargets[] = {kSm80, kSm90a};

// Builds one kernel per (type, variant) of `opc` into `m`; returns how many kernels were built.
int buildElementwise(Module& m, Opcode opc) {
  int built = 0;
  for (Scalar t : typesFor(opc)) {
    for (const Variant& v : variantsFor(opc, t)) {
      bool expectError = unsupported(v.op, m.target());
      Entry scratch("scratch", m.target());
      std::vector<Reg> src;
      for (Scalar s : operandTypes(v.op)) src.push_back(scratch.reg(regClassOf(s)));
      Reg dst = scratch.reg(v.op.op == Opcode::Cmp ? RegClass::Pred : regClassOf(t));
      bool threw = false;
      try {
        selectElementwise(scratch, v.op, dst, src);
      } catch (const CompileError& err) {
        threw = true;
        EXPECT_TRUE(expectError) << ir::info(opc).spelling << " " << tname(t) << ": " << err.what();
      }
      EXPECT_EQ(threw, expectError) << ir::info(opc).spelling << " on " << tname(t) << " for " << m.target().name();
      if (threw) continue;
      std::string name = std::string(ir::info(opc).spelling) + "_" + tname(t) + v.suffix;
      elementKernel(m, name, operandTypes(v.op), v.op.op == Opcode::Cmp ? Scalar::I1 : t,
                    [&](Entry& e, Reg d, const std::vector<Reg>& s) { selectElementwise(e, v.op, d, s); });
      ++built;
    }
  }
  return built;
}

class Assemble : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!havePtxas()) GTEST_SKIP() << "ptxas not found";
  }
  void expectAssembles(const Module& m) {
    std::string ptx = m.str();
    EXPECT_EQ(assembleErrors(ptx, m.target().name()), "");
  }
};

TEST_F(Assemble, EveryElementwiseOpInEveryType) {
  for (const Target& target : kTargets) {
    for (Opcode opc : elementwiseOps()) {
      SCOPED_TRACE(std::string(ir::info(opc).spelling) + " on " + target.name());
      Module m(target);
      EXPECT_GT(buildElementwise(m, opc), 0);
      expectAssembles(m);
    }
  }
}

TEST_F(Assemble, EveryCast) {
  for (const Target& target : kTargets) {
    Module m(target);
    for (Scalar from : allScalars()) {
      for (Scalar to : allScalars()) {
        for (bool rtz : {false, true}) {
          if (rtz && !ir::isFloat(to)) continue;  // rounding only matters when producing a float
          bool narrowFp8 = (to == Scalar::F8E4M3 || to == Scalar::F8E5M2) && from != to && from != Scalar::I1;
          bool expectError = narrowFp8 && (target.sm < 89 || rtz);
          Entry scratch("scratch", target);
          Reg s = scratch.reg(regClassOf(from)), d = scratch.reg(regClassOf(to));
          bool threw = false;
          try {
            selectCast(scratch, from, to, rtz, d, s, {});
          } catch (const CompileError&) {
            threw = true;
          }
          EXPECT_EQ(threw, expectError) << tname(from) << " -> " << tname(to) << (rtz ? " rtz" : "") << " on "
                                        << target.name();
          if (threw) continue;
          elementKernel(m, "cast_" + tname(from) + "_" + tname(to) + (rtz ? "_rtz" : ""), {from}, to,
                        [&](Entry& e, Reg dd, const std::vector<Reg>& ss) { selectCast(e, from, to, rtz, dd, ss[0], {}); });
        }
        // toward -inf and +inf (to f32 and f64; exact widenings ignore the direction)
        if (to != Scalar::F32 && to != Scalar::F64) continue;
        for (ir::RoundMode mode : {ir::RoundMode::Down, ir::RoundMode::Up})
          elementKernel(m, "cast_" + tname(from) + "_" + tname(to) + "_" + std::string(ir::roundModeName(mode)), {from}, to,
                        [&](Entry& e, Reg dd, const std::vector<Reg>& ss) { selectCast(e, from, to, mode, dd, ss[0], {}); });
      }
    }
    expectAssembles(m);
  }
}

// fp8e4b15's software conversions (to and from f16 and f32; sema refuses the rest), its loads,
// stores, abs and select.
TEST_F(Assemble, Fp8e4b15) {
  for (const Target& target : kTargets) {
    Module m(target);
    for (Scalar other : {Scalar::F16, Scalar::F32}) {
      for (bool up : {true, false}) {
        Scalar from = up ? Scalar::F8E4B15 : other, to = up ? other : Scalar::F8E4B15;
        elementKernel(m, "cast_" + tname(from) + "_" + tname(to), {from}, to,
                      [&](Entry& e, Reg dd, const std::vector<Reg>& ss) { selectCast(e, from, to, false, dd, ss[0], {}); });
      }
    }
    for (Opcode opc : {Opcode::Abs, Opcode::Select}) {
      ElementOp op{opc, Scalar::F8E4B15};
      elementKernel(m, std::string(ir::info(opc).spelling) + "_f8e4b15", operandTypes(op), Scalar::F8E4B15,
                    [&](Entry& e, Reg d, const std::vector<Reg>& s) { selectElementwise(e, op, d, s); });
    }
    expectAssembles(m);
  }
}

TEST_F(Assemble, EveryBitcastConstantAndPtrAdd) {
  std::vector<Scalar> types = allScalars();
  types.push_back(Scalar::Ptr);
  for (const Target& target : kTargets) {
    Module m(target);
    for (Scalar from : types)
      for (Scalar to : types)
        if (ir::bitWidth(from) == ir::bitWidth(to))
          elementKernel(m, "bitcast_" + tname(from) + "_" + tname(to), {from}, to,
                        [&](Entry& e, Reg d, const std::vector<Reg>& s) { selectBitcast(e, from, to, d, s[0]); });
    for (Scalar t : allScalars()) {
      std::vector<ir::Elem> values = ir::isFloat(t)
                                         ? std::vector<ir::Elem>{ir::floatElem(0.0), ir::floatElem(-1.5),
                                                                 ir::floatElem(std::nan("")), ir::floatElem(HUGE_VAL)}
                                         : std::vector<ir::Elem>{ir::intElem(0), ir::intElem(1), ir::intElem(-1)};
      int k = 0;
      for (ir::Elem v : values) {
        ir::Elem nv = ir::normalize(t, v);
        elementKernel(m, "const_" + tname(t) + "_" + std::to_string(k++), {}, t,
                      [&](Entry& e, Reg d, const std::vector<Reg>&) { selectConstant(e, t, nv, d); });
      }
      if (ir::isInt(t))
        elementKernel(m, "ptr_add_" + tname(t), {Scalar::Ptr, t}, Scalar::Ptr,
                      [&](Entry& e, Reg d, const std::vector<Reg>& s) { selectPtrAdd(e, t, 4, d, s[0], s[1]); });
    }
    expectAssembles(m);
  }
}

// One kernel per (type, vector length, mask form, hints, space) for loads and stores.
TEST_F(Assemble, LoadsAndStores) {
  std::vector<Scalar> types = allScalars();
  types.push_back(Scalar::Ptr);
  std::vector<std::pair<std::string, MemHints>> loadHints = {
      {"plain", {}}, {"cg", {CacheOp::CG, Evict::None, false}}, {"evl", {CacheOp::None, Evict::Last, false}},
      {"cs_evf", {CacheOp::CS, Evict::First, false}}, {"vol", {CacheOp::None, Evict::None, true}},
      {"cv", {CacheOp::CV, Evict::None, false}}};
  std::vector<std::pair<std::string, MemHints>> storeHints = {
      {"plain", {}}, {"wt", {CacheOp::WT, Evict::None, false}}, {"evf", {CacheOp::None, Evict::First, false}},
      {"cg_evl", {CacheOp::CG, Evict::Last, false}}};
  for (const Target& target : kTargets) {
    Module m(target);
    for (Scalar t : types) {
      for (int n = 1; n * memBytes(t) <= 16; n *= 2) {
        for (Space space : {Space::Global, Space::Shared}) {
          for (int maskForm = 0; maskForm < 3; ++maskForm) {
            // cache hints are independent of the type and width: vary them on one access per type
            bool allHints = space == Space::Global && maskForm == 1 && (n * 2) * memBytes(t) > 16;
            const auto& hintSet = allHints ? loadHints : std::vector<std::pair<std::string, MemHints>>{{"plain", {}}};
            for (const auto& [hname, hints] : hintSet) {
              std::string name = "ld_" + tname(t) + "_x" + std::to_string(n) + (space == Space::Shared ? "_smem" : "") +
                                 "_m" + std::to_string(maskForm) + "_" + hname;
              Entry& e = m.addEntry(name);
              Reg base = e.loadParam(e.addParam("p", ParamType::Ptr, 16));
              Reg mpred = e.loadParam(e.addBoolParam("mask"));
              Reg address = base;
              if (space == Space::Shared) {
                address = e.reg(RegClass::B32);
                e.inst("mov.u32", {address, sym(e.addShared("buf", 64))});
              }
              std::vector<Reg> vals, other;
              for (int i = 0; i < n; ++i) vals.push_back(e.reg(regClassOf(t)));
              if (maskForm == 2)
                for (int i = 0; i < n; ++i) {
                  other.push_back(e.reg(regClassOf(t)));
                  selectConstant(e, t, ir::isFloat(t) ? ir::floatElem(1.0) : ir::intElem(1), other.back());
                }
              Guard g = maskForm ? when(mpred) : Guard{};
              loadVector(e, space, t, vals, address, 16, hints, g, other);
              storeVector(e, space, t, vals, address, 0, {}, g);
              e.ret();
            }
            if (space == Space::Shared) continue;
            const auto& storeSet = maskForm == 1 && (n * 2) * memBytes(t) > 16
                                       ? storeHints
                                       : std::vector<std::pair<std::string, MemHints>>{{"plain", {}}};
            for (const auto& [hname, hints] : storeSet) {
              Entry& e = m.addEntry("st_" + tname(t) + "_x" + std::to_string(n) + "_m" + std::to_string(maskForm) + "_" + hname);
              Reg base = e.loadParam(e.addParam("p", ParamType::Ptr, 16));
              Reg mpred = e.loadParam(e.addBoolParam("mask"));
              std::vector<Reg> vals;
              for (int i = 0; i < n; ++i) {
                vals.push_back(e.reg(regClassOf(t)));
                selectConstant(e, t, ir::isFloat(t) ? ir::floatElem(2.0) : ir::intElem(i), vals.back());
              }
              storeVector(e, space, t, vals, base, 32, hints, maskForm ? unless(mpred) : Guard{});
              e.ret();
            }
          }
        }
      }
    }
    expectAssembles(m);
  }
}

TEST_F(Assemble, WarpAndAsyncInstructions) {
  std::vector<Scalar> types = allScalars();
  types.push_back(Scalar::Ptr);
  for (const Target& target : kTargets) {
    Module m(target);
    for (Scalar t : types) {
      for (ShflMode mode : {ShflMode::Bfly, ShflMode::Idx, ShflMode::Up, ShflMode::Down}) {
        for (int width : {32, 8}) {
          elementKernel(m, "shfl_" + tname(t) + "_" + std::to_string(int(mode)) + "_w" + std::to_string(width), {t}, t,
                        [&](Entry& e, Reg d, const std::vector<Reg>& s) {
                          Reg lane = readSpecial(e, SpecialReg::LaneId);
                          shuffle(e, mode, t, d, s[0], mode == ShflMode::Idx ? Operand(lane) : Operand(1), width);
                        });
        }
      }
    }
    for (int k = 0; k <= int(MmaKind::E5M2_F32); ++k) {
      MmaKind kind = MmaKind(k);
      const MmaShape& s = mmaShape(kind);
      Entry scratch("scratch", target);
      auto regs = [](Entry& e, int n, RegClass c) {
        std::vector<Reg> v;
        for (int i = 0; i < n; ++i) {
          v.push_back(e.reg(c));
          e.inst(c == RegClass::F32 ? "mov.f32" : "mov.b32", {v.back(), c == RegClass::F32 ? f32Bits(0) : Operand(0)});
        }
        return v;
      };
      if (target.sm < s.minSm) {
        auto c = regs(scratch, s.cRegs, s.accClass);
        EXPECT_THROW(mma(scratch, kind, c, regs(scratch, s.aRegs, RegClass::B32), regs(scratch, s.bRegs, RegClass::B32), c),
                     CompileError);
        continue;
      }
      Entry& e = m.addEntry("mma_" + std::to_string(k));
      Reg out = e.loadParam(e.addParam("out", ParamType::Ptr, 16));
      auto c = regs(e, s.cRegs, s.accClass), a = regs(e, s.aRegs, RegClass::B32), b = regs(e, s.bRegs, RegClass::B32);
      mma(e, kind, c, a, b, c);
      mma(e, kind, c, a, b, c);
      storeVector(e, Space::Global, s.accClass == RegClass::F32 ? Scalar::F32 : Scalar::I32, c, out, 0);
      e.ret();
    }
    {
      Entry& e = m.addEntry("async");
      e.setMaxNtid(128);
      Reg g = e.loadParam(e.addParam("g", ParamType::Ptr, 16));
      Reg out = e.loadParam(e.addParam("out", ParamType::Ptr, 16));
      Reg smem = e.dynamicSharedBase();
      Reg lane = readSpecial(e, SpecialReg::LaneId), warp = readSpecial(e, SpecialReg::WarpId);
      Reg row = e.reg(RegClass::B32), n = e.reg(RegClass::B32);
      e.inst("mad.lo.s32", {row, lane, 16, smem});
      cpAsync(e, row, g, 16);
      cpAsync(e, row, g, 16, Operand(8));
      e.inst("selp.b32", {n, 16, 0, e.loadParam(e.addBoolParam("m"))});
      cpAsync(e, row, g, 8, Operand(n));
      cpAsync(e, row, g, 16, std::nullopt, true);
      cpAsyncCommit(e);
      cpAsyncWait(e, 0);
      barSync(e);
      barSync(e, 1, 64);
      std::vector<Reg> frag;
      for (int i = 0; i < 4; ++i) frag.push_back(e.reg(RegClass::B32));
      ldmatrix(e, frag, row, false);
      ldmatrix(e, std::span<const Reg>(frag).first(2), row, true);
      ldmatrix(e, std::span<const Reg>(frag).first(1), row, false);
      Reg f = e.reg(RegClass::F32), tf = e.reg(RegClass::B32);
      e.inst("mov.b32", {f, frag[0]});
      truncateToTf32(e, tf, f);
      frag[0] = tf;
      frag[1] = warp;
      for (SpecialReg r : {SpecialReg::TidY, SpecialReg::TidZ, SpecialReg::NtidY, SpecialReg::NtidZ,
                           SpecialReg::CtaidY, SpecialReg::CtaidZ, SpecialReg::NctaidX, SpecialReg::NctaidY,
                           SpecialReg::NctaidZ}) {
        Reg v = readSpecial(e, r);
        e.inst("add.s32", {frag[2], frag[2], v});
      }
      storeVector(e, Space::Global, Scalar::I32, frag, out, 0);
      e.ret();
    }
    expectAssembles(m);
  }
}

TEST_F(Assemble, ParametersAndDirectives) {
  for (const Target& target : kTargets) {
    Module m(target);
    Entry& e = m.addEntry("params");
    e.setReqNtid(256);
    e.setMinNCtaPerSm(2);
    e.setMaxNReg(128);
    std::vector<int> ps;
    for (ParamType p : {ParamType::U8, ParamType::S8, ParamType::U16, ParamType::S16, ParamType::B16, ParamType::B8,
                        ParamType::U32, ParamType::S32, ParamType::U64, ParamType::S64, ParamType::F32,
                        ParamType::F64})
      ps.push_back(e.addParam("p" + std::to_string(ps.size()), p));
    int flag = e.addBoolParam("flag");
    int out = e.addParam("out", ParamType::Ptr);
    Reg o = e.loadParam(out);
    Reg f = e.loadParam(flag);
    int offset = 0;
    for (int p : ps) {
      Reg r = e.loadParam(p);
      Scalar t = r.cls == RegClass::B16 ? Scalar::F16 : r.cls == RegClass::B32 ? Scalar::I32
               : r.cls == RegClass::B64 ? Scalar::I64 : r.cls == RegClass::F32 ? Scalar::F32 : Scalar::F64;
      Reg one[] = {r};
      storeVector(e, Space::Global, t, one, o, offset, {}, when(f));
      offset += 8;
    }
    e.addShared("tile", 1024, 128);
    e.ret();
    Entry& e2 = m.addEntry("second");
    e2.dynamicSharedBase();
    e2.ret();
    expectAssembles(m);
  }
}

}  // namespace
}  // namespace kiln::ptx::test
