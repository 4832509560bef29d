// GPU checks (skipped without a GPU) of the memory and warp selections: vector loads and stores
// of every dtype and width, masks with and without `other`, global and shared memory, and shuffles
// of every dtype in every mode, against what docs/semantics.md and the PTX ISA say they do.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "cuda_test_driver.h"
#include "ptx_test_util.h"

namespace kiln::ptx::test {
namespace {

using ir::Scalar;

std::vector<Scalar> memTypes() {
  std::vector<Scalar> t = allScalars();
  t.push_back(Scalar::Ptr);
  return t;
}

// The value `other` supplies for element k (a constant the kernel materialises).
ir::Elem otherValue(Scalar t, int k) {
  return ir::normalize(t, ir::isFloat(t) ? ir::floatElem(0.5 * (k + 1)) : ir::intElem(k + 1));
}

struct MemCase {
  Scalar t;
  int n;
  int maskForm;  // 0 none, 1 mask, 2 mask + other
  bool shared;
  bool maskedStore;
  std::string name() const {
    return "mem_" + tname(t) + "_x" + std::to_string(n) + "_m" + std::to_string(maskForm) + (shared ? "_smem" : "") +
           (maskedStore ? "_mst" : "");
  }
};

// Thread i moves elements [i*n, i*n+n) from `in` to `out` with one vector access each way; lanes with
// i % 3 == 0 are masked off (the load's or the store's mask, by the case).
void memKernel(Module& m, const MemCase& c) {
  Entry& e = m.addEntry(c.name());
  Reg in = e.loadParam(e.addParam("in", ParamType::Ptr, 16));
  Reg out = e.loadParam(e.addParam("out", ParamType::Ptr, 16));
  Reg tid = readSpecial(e, SpecialReg::TidX), cta = readSpecial(e, SpecialReg::CtaidX);
  Reg i = e.reg(RegClass::B32), r = e.reg(RegClass::B32), on = e.reg(RegClass::Pred);
  e.inst("mad.lo.s32", {i, cta, 128, tid});
  e.inst("rem.u32", {r, i, 3});
  e.inst("setp.ne.u32", {on, r, 0});
  int bytes = c.n * memBytes(c.t);
  Reg src = e.reg(RegClass::B64), dst = e.reg(RegClass::B64);
  e.inst("mad.wide.u32", {src, i, bytes, in});
  e.inst("mad.wide.u32", {dst, i, bytes, out});
  std::vector<Reg> vals, other;
  for (int k = 0; k < c.n; ++k) vals.push_back(e.reg(regClassOf(c.t)));
  if (c.maskForm == 2)
    for (int k = 0; k < c.n; ++k) {
      other.push_back(e.reg(regClassOf(c.t)));
      selectConstant(e, c.t, otherValue(c.t, c.n == 1 ? 0 : k), other.back());
    }
  Guard loadMask = c.maskForm ? when(on) : Guard{};
  if (c.shared) {  // stage through shared memory: plain global load, shared store, masked shared load
    Reg base = e.reg(RegClass::B32), slot = e.reg(RegClass::B32);
    e.inst("mov.u32", {base, sym(e.addShared("stage", 128 * 16, 16))});
    e.inst("mad.lo.s32", {slot, tid, bytes, base});
    loadVector(e, Space::Global, c.t, vals, src, 0);
    storeVector(e, Space::Shared, c.t, vals, slot, 0);
    barSync(e);
    std::vector<Reg> again;
    for (int k = 0; k < c.n; ++k) again.push_back(e.reg(regClassOf(c.t)));
    loadVector(e, Space::Shared, c.t, again, slot, 0, {}, loadMask, other);
    vals = again;
  } else {
    loadVector(e, Space::Global, c.t, vals, src, 0, {CacheOp::CG, Evict::None, false}, c.maskedStore ? Guard{} : loadMask,
               other);
  }
  storeVector(e, Space::Global, c.t, vals, dst, 0, {CacheOp::CS, Evict::None, false}, c.maskedStore ? when(on) : Guard{});
  e.ret();
}

TEST(DeviceMemory, LoadsAndStoresOfEveryWidth) {
  CudaDriver* cuda = CudaDriver::get();
  if (!cuda) GTEST_SKIP() << "no GPU";
  std::vector<MemCase> cases;
  for (Scalar t : memTypes())
    for (int n = 1; n * memBytes(t) <= 16; n *= 2)
      for (int mf = 0; mf < 3; ++mf)
        for (bool sh : {false, true}) cases.push_back({t, n, mf, sh, false});
  for (Scalar t : memTypes())
    for (int n = 1; n * memBytes(t) <= 16; n *= 2) cases.push_back({t, n, 0, false, true});
  const unsigned threads = 256;
  std::mt19937_64 rng(7);
  for (const Target& target : {kSm80, kSm90a}) {
    if (target.archSpecific && cuda->sm() < 90) continue;
    Module m(target);
    for (const MemCase& c : cases) memKernel(m, c);
    std::string log;
    void* mod = cuda->load(m.str(), log);
    for (const MemCase& c : cases) {
      size_t eb = size_t(memBytes(c.t)), total = threads * size_t(c.n) * eb;
      std::vector<uint8_t> input(total), output(total, 0xCD);
      for (uint8_t& b : input) b = uint8_t(rng());
      auto in = cuda->alloc(total), out = cuda->alloc(total);
      cuda->upload(in, input.data(), total);
      cuda->upload(out, output.data(), total);
      cuda->launch(cuda->function(mod, c.name()), threads / 128, 128, {&in, &out});
      cuda->download(output.data(), out, total);
      cuda->free(in);
      cuda->free(out);
      int bad = 0;
      std::string examples;
      for (size_t i = 0; i < threads; ++i) {
        bool on = i % 3 != 0;
        for (int k = 0; k < c.n; ++k) {
          size_t at = (i * size_t(c.n) + size_t(k)) * eb;
          uint64_t inBits = 0, outBits = 0, want;
          std::memcpy(&inBits, &input[at], eb);
          std::memcpy(&outBits, &output[at], eb);
          if (c.maskedStore && !on) {
            want = 0;
            std::memset(&want, 0xCD, eb);
          } else if (c.maskForm && !on) {
            want = c.maskForm == 2 ? ir::toBits(c.t, otherValue(c.t, c.n == 1 ? 0 : k)) : 0;
          } else {
            want = c.t == Scalar::I1 ? uint64_t(inBits != 0) : inBits;
          }
          if (outBits != want && ++bad <= 4)
            examples += "  thread " + std::to_string(i) + " element " + std::to_string(k) + ": got 0x" +
                        std::to_string(outBits) + ", want " + std::to_string(want) + "\n";
        }
      }
      EXPECT_EQ(bad, 0) << c.name() << " on " << target.name() << "\n" << examples;
    }
    cuda->unload(mod);
  }
}

// The source lane of shfl.sync (PTX ISA pseudocode) for segment width w.
int shflSource(ShflMode mode, int lane, int b, int w) {
  int segMask = 32 - w, clamp = mode == ShflMode::Up ? 0 : 0x1f;
  int maxLane = (lane & segMask) | (clamp & ~segMask), minLane = lane & segMask;
  int j = lane;
  bool ok = false;
  switch (mode) {
    case ShflMode::Up: j = lane - b; ok = j >= maxLane; break;
    case ShflMode::Down: j = lane + b; ok = j <= maxLane; break;
    case ShflMode::Bfly: j = lane ^ b; ok = j <= maxLane; break;
    case ShflMode::Idx: j = minLane | (b & ~segMask & 31); ok = j <= maxLane; break;
  }
  return ok ? j : lane;
}

TEST(DeviceWarp, ShufflesOfEveryType) {
  CudaDriver* cuda = CudaDriver::get();
  if (!cuda) GTEST_SKIP() << "no GPU";
  const unsigned threads = 128;
  std::mt19937_64 rng(9);
  for (const Target& target : {kSm80, kSm90a}) {
    if (target.archSpecific && cuda->sm() < 90) continue;
    Module m(target);
    struct S {
      Scalar t;
      ShflMode mode;
      int width;
      std::string name;
    };
    std::vector<S> cases;
    for (Scalar t : memTypes())
      for (ShflMode mode : {ShflMode::Bfly, ShflMode::Idx, ShflMode::Up, ShflMode::Down})
        for (int w : {32, 8}) {
          S s{t, mode, w, "shfl_" + tname(t) + "_" + std::to_string(int(mode)) + "_" + std::to_string(w)};
          elementKernel(m, s.name, {t}, t, [&](Entry& e, Reg d, const std::vector<Reg>& src) {
            Reg lane = readSpecial(e, SpecialReg::LaneId), b = e.reg(RegClass::B32);
            e.inst("mad.lo.s32", {b, lane, 7, 3});  // idx: lane*7+3 (the instruction uses its low bits)
            Operand which = mode == ShflMode::Idx ? Operand(b) : mode == ShflMode::Bfly ? Operand(5) : Operand(3);
            shuffle(e, mode, t, d, src[0], which, w);
          });
          cases.push_back(s);
        }
    std::string log;
    void* mod = cuda->load(m.str(), log);
    for (const S& s : cases) {
      size_t eb = size_t(memBytes(s.t));
      std::vector<uint8_t> input(threads * eb), output(threads * eb, 0xCD);
      for (size_t i = 0; i < threads; ++i) {
        uint64_t v = rng();
        if (s.t == Scalar::I1) v &= 1;
        if (s.t == Scalar::F32 || s.t == Scalar::F64 || s.t == Scalar::F16 || s.t == Scalar::BF16)
          v = ir::toBits(s.t, ir::normalize(s.t, ir::floatElem(double(i) + 0.25)));  // no NaNs to canonicalise
        std::memcpy(&input[i * eb], &v, eb);
      }
      auto in = cuda->alloc(input.size()), out = cuda->alloc(output.size());
      unsigned n = threads;
      cuda->upload(in, input.data(), input.size());
      cuda->upload(out, output.data(), output.size());
      cuda->launch(cuda->function(mod, s.name), 1, threads, {&in, &out, &n});
      cuda->download(output.data(), out, output.size());
      cuda->free(in);
      cuda->free(out);
      int bad = 0;
      for (int i = 0; i < int(threads); ++i) {
        int lane = i % 32, b = s.mode == ShflMode::Idx ? lane * 7 + 3 : s.mode == ShflMode::Bfly ? 5 : 3;
        int srcThread = i - lane + shflSource(s.mode, lane, b, s.width);
        if (std::memcmp(&output[size_t(i) * eb], &input[size_t(srcThread) * eb], eb) != 0) ++bad;
      }
      EXPECT_EQ(bad, 0) << s.name << " on " << target.name();
    }
    cuda->unload(mod);
  }
}

}  // namespace
}  // namespace kiln::ptx::test
