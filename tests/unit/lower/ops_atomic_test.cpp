// atomic_rmw and atomic_cas lowering: random layouts with copies of elements in other lanes, warps and
// registers (each element's atomic must happen once, and every copy must get its old value), masks,
// contention on one address, packed f16x2 adds, scalar atomics by one thread, `red` for unread results,
// run in the CTA simulator against the interpreter's rules and assembled for sm_80 and sm_90a.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>

#include "layout/named_layouts.h"
#include "ops_test_util.h"

namespace kiln::lower::test {
namespace {

using ir::Elem;
using ir::Scalar;
using layout::LinearLayout;

// k(p, idx, val, out): out = atomic(p + idx, val) over a `shape` tile in layout l ("cas": cmp = val - 1
// read from %cmp), masked to idx >= 0 when `masked`; `keep` = false leaves the old values unread.
std::string atomicKernel(const std::vector<int64_t>& shape, const std::string& t, const LinearLayout& l,
                         const std::string& kind, bool masked, bool keep = true) {
  const std::string ti = tileType(shape, "i32", l), tp = tileType(shape, "ptr<" + t + ">", l), tv = tileType(shape, t, l);
  std::ostringstream s;
  s << "func @k(%p: ptr<" << t << ">, %idx: ptr<i32>, %val: ptr<" << t << ">, %cmp: ptr<" << t << ">, %out: ptr<" << t
    << ">) {\n";
  s << pointersIn("i", "idx", shape, "i32", l) << "  %o = load %i_p : " << ti << "\n";
  s << pointersIn("v", "val", shape, t, l) << "  %v = load %v_p : " << tv << "\n";
  s << "  %pp = splat %p : " << tp << "\n  %pa = ptr_add %pp, %o : " << tp << "\n";
  const std::string attrs = "scope = \"gpu\", sem = \"acq_rel\"}";
  if (kind == "cas") {
    s << pointersIn("c", "cmp", shape, t, l) << "  %c = load %c_p : " << tv << "\n";
    s << "  %old = atomic_cas %pa, %c, %v {" << attrs << " : " << tv << "\n";
  } else {
    std::string mask;
    if (masked) {
      s << "  %z = constant {value = 0} : " << ti << "\n  %m = cmp %o, %z {pred = \"ge\"} : "
        << tileType(shape, "i1", l) << "\n";
      mask = ", %m";
    }
    s << "  %old = atomic_rmw %pa, %v" << mask << " {kind = \"" << kind << "\", " << attrs << " : " << tv << "\n";
  }
  if (keep) s << pointersIn("r", "out", shape, t, l) << "  store %r_p, %old\n";
  s << "  return\n}\n";
  return s.str();
}

// The interpreter's meaning for distinct addresses: p[idx[i]] = kind(p[idx[i]], val[i]), out[i] = the old value.
Elem combine(const std::string& kind, Scalar t, Elem old, Elem v, Elem c) {
  if (kind == "xchg") return v;
  if (kind == "cas") return ir::toBits(t, old) == ir::toBits(t, c) ? v : old;
  ir::ElementwiseFn fn{kind == "add" ? ir::Opcode::Add : kind == "max" ? ir::Opcode::Max : kind == "min" ? ir::Opcode::Min
                       : kind == "and" ? ir::Opcode::And : kind == "or" ? ir::Opcode::Or : ir::Opcode::Xor,
                       t, 0, false};
  Elem ops[2] = {old, v}, r;
  bool dz = false;
  ir::evalElementwise(fn, ops, r, dz);
  return r;
}

struct Run {
  SimResult sim;
  Bytes p, out;
};

// Each element at its own address (a random permutation of 2n slots, -1 = masked off every 5th when
// `masked`), random values; checks memory and old values against `combine`.
void checkDistinct(const std::vector<int64_t>& shape, const LinearLayout& l, Scalar t, const std::string& kind, bool masked,
                   int numWarps, uint32_t seed) {
  const int64_t n = numelOf(shape);
  std::mt19937 rng(seed);
  std::vector<int32_t> slots(size_t(2 * n));
  std::iota(slots.begin(), slots.end(), 0);
  std::shuffle(slots.begin(), slots.end(), rng);
  Bytes idx(size_t(4 * n));
  for (int64_t i = 0; i < n; ++i) {
    int32_t o = masked && i % 5 == 2 ? -1 - int32_t(i) : slots[size_t(i)];
    std::memcpy(idx.data() + 4 * i, &o, 4);
  }
  Bytes p = randomElems(t, 2 * n, seed + 1, 100, true), val = randomElems(t, n, seed + 2, 100, true);
  Bytes cmp = val;
  for (int64_t i = 0; i < n && kind == "cas"; ++i)  // half the compares match
    if (i % 2) writeElem(cmp, t, i, readElem(p, t, slots[size_t(i)]));
  const std::string text = atomicKernel(shape, scalarName(t), l, kind, masked);
  SimResult r = simulate(text, {"p", "idx", "val", "cmp", "out"}, {p, idx, val, cmp, Bytes(val.size(), 0xAB)}, numWarps);
  ASSERT_EQ(r.error, "") << r.ptx;
  Bytes want = p;
  for (int64_t i = 0; i < n; ++i) {
    int32_t o;
    std::memcpy(&o, idx.data() + 4 * i, 4);
    Elem old = o < 0 ? ir::intElem(0) : readElem(p, t, o);
    EXPECT_EQ(ir::toBits(t, readElem(r.buffers[4], t, i)), ir::toBits(t, old)) << "old value " << i << "\n" << r.ptx;
    if (o >= 0) writeElem(want, t, o, combine(kind, t, old, readElem(val, t, i), readElem(cmp, t, i)));
  }
  EXPECT_EQ(r.buffers[0], want) << kind << " " << l.str() << "\n" << r.ptx;
  // Random layouts of 512 elements over one warp spill; what matters here is that ptxas takes the code.
  for (const ptx::Target& target : {ptx::kSm80, ptx::kSm90a}) {
    if (!havePtxas()) break;
    ptx::AssembleResult a = ptx::assemble(emit(text, {}, target, numWarps).ptx, target.name());
    EXPECT_TRUE(a.ok) << a.log;
  }
}

TEST(OpsAtomic, EveryElementOnceInRandomLayouts) {
  std::mt19937 rng(7);
  const std::vector<std::pair<Scalar, std::string>> cases = {
      {Scalar::I32, "add"}, {Scalar::F32, "add"},  {Scalar::U64, "max"}, {Scalar::I64, "min"},
      {Scalar::U32, "and"}, {Scalar::I64, "xor"},  {Scalar::F64, "xchg"}, {Scalar::F16, "add"},
      {Scalar::I32, "cas"}, {Scalar::BF16, "cas"}, {Scalar::F64, "add"}, {Scalar::I32, "or"}};
  uint32_t seed = 1;
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{8}, {64}, {512}, {4, 8}, {16, 32}})
    for (int numWarps : {1, 4})
      for (const auto& [t, kind] : cases) {
        if (t == Scalar::BF16 && kind == "add") continue;  // a CAS loop below sm_90: not lock-step
        LinearLayout l = randomLayout(shape, numWarps, rng);
        SCOPED_TRACE(kind + " " + scalarName(t) + " " + l.str());
        checkDistinct(shape, l, t, kind, kind != "cas" && seed % 2, numWarps, seed);
        ++seed;
      }
}

TEST(OpsAtomic, ContendedAddsEachCountOnce) {
  // Every element adds 1 to one of two counters: the counters end at their element counts, and the old
  // values each copy of an element receives are the ones the owner's atomic returned.
  std::mt19937 rng(3);
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{16}, {256}, {8, 16}}) {
    LinearLayout l = randomLayout(shape, 4, rng);
    const int64_t n = numelOf(shape);
    Bytes idx(size_t(4 * n)), val(size_t(4 * n));
    for (int64_t i = 0; i < n; ++i) {
      int32_t o = int32_t(i % 3 == 0), one = 1;
      std::memcpy(idx.data() + 4 * i, &o, 4);
      std::memcpy(val.data() + 4 * i, &one, 4);
    }
    SimResult r = simulate(atomicKernel(shape, "i32", l, "add", false), {"p", "idx", "val", "cmp", "out"},
                           {Bytes(8, 0), idx, val, val, Bytes(val.size(), 0)}, 4);
    ASSERT_EQ(r.error, "") << r.ptx;
    const int64_t ones = (n + 2) / 3;
    EXPECT_EQ(readElem(r.buffers[0], Scalar::I32, 0).i, n - ones);
    EXPECT_EQ(readElem(r.buffers[0], Scalar::I32, 1).i, ones);
    std::vector<int64_t> seen[2];
    for (int64_t i = 0; i < n; ++i) seen[i % 3 == 0].push_back(readElem(r.buffers[4], Scalar::I32, i).i);
    for (auto& s : seen) {
      std::sort(s.begin(), s.end());
      for (size_t k = 0; k < s.size(); ++k) EXPECT_EQ(s[k], int64_t(k)) << l.str();  // tickets 0, 1, 2, ...
    }
  }
}

// k(p, out): old = atomic_add(p + arange, 1.0) on a contiguous, 16-byte aligned f16 tile.
std::string contiguousHalfAdd(int64_t n, const LinearLayout& l, const std::string& t) {
  const std::string tp = tileType({n}, "ptr<" + t + ">", l), tv = tileType({n}, t, l);
  std::ostringstream s;
  s << "func @k(%p: ptr<" << t << ">, %out: ptr<" << t << ">) {\n";
  s << "  %a = multiple_of %p {values = [16]} : ptr<" << t << ">\n";
  s << pointersIn("x", "a", {n}, t, l);
  s << "  %one = constant {value = 1.0} : " << tv << "\n";
  s << "  %old = atomic_rmw %x_p, %one {kind = \"add\", scope = \"cta\", sem = \"relaxed\"} : " << tv << "\n";
  s << pointersIn("r", "out", {n}, t, l) << "  store %r_p, %old\n  return\n}\n";
  return s.str();
}

TEST(OpsAtomic, ContiguousHalfAddsGoInPairs) {
  const LinearLayout l = blocked1d(256, 2, 4);
  const std::string text = contiguousHalfAdd(256, l, "f16");
  Bytes p = randomElems(Scalar::F16, 256, 5, 100, true);
  SimResult r = simulate(text, {"p", "out"}, {p, Bytes(p.size(), 0)}, 4);
  ASSERT_EQ(r.error, "") << r.ptx;
  EXPECT_EQ(count(r.ptx, "atom.global.cta.relaxed.add.noftz.f16x2"), 1) << r.ptx;
  EXPECT_EQ(count(r.ptx, ".noftz.f16 "), 0) << r.ptx;
  for (int64_t i = 0; i < 256; ++i) {
    EXPECT_EQ(readElem(r.buffers[0], Scalar::F16, i).f, readElem(p, Scalar::F16, i).f + 1) << i;
    EXPECT_EQ(readElem(r.buffers[1], Scalar::F16, i).f, readElem(p, Scalar::F16, i).f) << i;
  }
  EXPECT_EQ(assembleBoth(text, 4), "");
  // bf16: packed atom on sm_90a; below, a compare-and-swap loop on the pair (one fma.rn.bf16x2 per try).
  const std::string bf = contiguousHalfAdd(256, l, "bf16");
  EXPECT_EQ(count(emit(bf, {}, ptx::kSm90a, 4).ptx, "atom.global.cta.relaxed.add.noftz.bf16x2"), 1);
  const std::string loop = emit(bf, {}, ptx::kSm80, 4).ptx;
  EXPECT_EQ(count(loop, "atom.global.relaxed.cta.cas.b32"), 1) << loop;
  EXPECT_EQ(count(loop, "fma.rn.bf16x2"), 1) << loop;
  EXPECT_EQ(count(loop, ".add.noftz.bf16"), 0) << loop;
  EXPECT_EQ(assembleBoth(bf, 4), "");
}

// k(p, v, out): old = atomic_KIND(p, v) on scalars; out[0..127] = old in every thread's copy.
std::string scalarKernel(const std::string& kind, bool keep) {
  const LinearLayout l = blocked1d(128, 1, 4);
  std::ostringstream s;
  s << "func @k(%p: ptr<i32>, %v: i32, %out: ptr<i32>) {\n";
  s << "  %old = atomic_rmw %p, %v {kind = \"" << kind << "\", scope = \"sys\", sem = \"release\"} : i32\n";
  if (keep) s << "  %t = splat %old : " << tileType({128}, "i32", l) << "\n" << pointersIn("r", "out", {128}, "i32", l)
              << "  store %r_p, %t\n";
  s << "  return\n}\n";
  return s.str();
}

TEST(OpsAtomic, ScalarAtomicsHappenOnceAndReachEveryThread) {
  Emitted e = emit(scalarKernel("add", true), {}, ptx::kSm80, 4);
  CtaSim sim(e.ptx, 128, e.info.sharedBytes);
  Bytes p(4, 0), out(512, 0);
  p[0] = 40;
  const uint64_t pb = sim.addBuffer(p), ob = sim.addBuffer(out);
  sim.setParam("k_p", pb);
  sim.setParam("k_v", 2);
  sim.setParam("k_out", ob);
  ASSERT_EQ(sim.run(), "") << e.ptx;
  EXPECT_EQ(readElem(sim.buffer(pb), Scalar::I32, 0).i, 42) << e.ptx;
  for (int64_t i = 0; i < 128; ++i) EXPECT_EQ(readElem(sim.buffer(ob), Scalar::I32, i).i, 40) << i;
  EXPECT_EQ(count(e.ptx, "atom.global.sys.release.add.u32"), 1) << e.ptx;
  EXPECT_EQ(assembleBoth(scalarKernel("xchg", true), 4), "");
}

TEST(OpsAtomic, UnreadResultsUseRedWherePtxHasIt) {
  const std::string add = emit(scalarKernel("add", false), {}, ptx::kSm80, 4).ptx;
  EXPECT_EQ(count(add, "red.global.sys.release.add.u32"), 1) << add;
  EXPECT_EQ(count(add, "bar.sync"), 0) << add;  // nothing to hand round
  const std::string xchg = emit(scalarKernel("xchg", false), {}, ptx::kSm80, 4).ptx;
  EXPECT_EQ(count(xchg, "atom.global.sys.release.exch.b32 _,"), 1) << xchg;  // red has no exch
  const LinearLayout l = blocked1d(64, 1, 4);
  const std::string tile = emit(atomicKernel({64}, "f32", l, "add", true, false), {}, ptx::kSm80, 4).ptx;
  EXPECT_EQ(count(tile, "atom.global.gpu.acq_rel.add.f32 _,"), 1) << tile;  // red orders as relaxed or release only
  EXPECT_EQ(assembleBoth(scalarKernel("add", false), 4), "");
  EXPECT_EQ(assembleBoth(atomicKernel({64}, "f32", l, "add", true, false), 4), "");
}

}  // namespace
}  // namespace kiln::lower::test
