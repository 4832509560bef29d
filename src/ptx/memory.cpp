// Loads and stores of any dtype as one vector access (8/16-bit elements packed in .b32 words past
// four elements: PTX has no ld.v8.b16), masks with `other` fill, cache hints, cp.async, ldmatrix.
#include "ptx/memory.h"

#include "ptx/isel.h"
#include "ptx/isel_impl.h"

namespace kiln::ptx {

using ir::Scalar;
using detail::internal;

namespace {

std::string_view cacheName(CacheOp c) {
  switch (c) {
    case CacheOp::None: return "";
    case CacheOp::CA: return ".ca";
    case CacheOp::CG: return ".cg";
    case CacheOp::CS: return ".cs";
    case CacheOp::LU: return ".lu";
    case CacheOp::CV: return ".cv";
    case CacheOp::WB: return ".wb";
    case CacheOp::WT: return ".wt";
  }
  return "";
}

int elemBytes(Scalar t) { return t == Scalar::I1 ? 1 : ir::bitWidth(t) / 8; }

// The instruction stem "ld.global.cg" / "st.shared" / "ld.volatile.global", with the L2 policy
// register when a cache operator and an eviction priority are both asked for (PTX does not
// combine .cop with .L1::evict_*; the priority then goes to L2 as a cache-hint policy).
std::string memStem(Entry& e, bool store, Space space, const MemHints& h, std::optional<Reg>& policy) {
  std::string s = store ? "st" : "ld";
  if (h.isVolatile) s += ".volatile";
  s += space == Space::Global ? ".global" : ".shared";
  if (h.isVolatile || space == Space::Shared) return s;
  s += cacheName(h.cache);
  if (h.evict == Evict::None) return s;
  const char* level = h.evict == Evict::First ? "evict_first" : "evict_last";
  if (h.cache == CacheOp::None) return s + ".L1::" + level;
  Reg p = e.reg(RegClass::B64);
  e.inst(std::string("createpolicy.fractional.L2::") + level + ".b64", {p, Operand::raw("1.0")});
  policy = p;
  return s + ".L2::cache_hint";
}

void checkAccess(Space space, Scalar t, size_t n, Reg addr) {
  int bytes = int(n) * elemBytes(t);
  if (n == 0 || bytes > 16 || (bytes & (bytes - 1)) != 0)
    internal({}, "vector access of " + std::to_string(n) + " x " + std::string(ir::name(t)) + " is not 1..16 bytes, a power of two");
  detail::expectClass({}, addr, space == Space::Global ? RegClass::B64 : RegClass::B32, "address");
}

void movZero(Entry& e, Reg r, Guard g = {}) {
  switch (r.cls) {
    case RegClass::Pred: return e.inst("mov.pred", {r, 0}, g);
    case RegClass::B16: return e.inst("mov.b16", {r, 0}, g);
    case RegClass::B32: return e.inst("mov.b32", {r, 0}, g);
    case RegClass::B64: return e.inst("mov.b64", {r, 0}, g);
    case RegClass::F32: return e.inst("mov.f32", {r, f32Bits(0)}, g);
    case RegClass::F64: return e.inst("mov.f64", {r, f64Bits(0)}, g);
  }
}


// The element type spelling of a direct (unpacked) access of t.
std::string directType(Scalar t) {
  switch (t) {
    case Scalar::F32: return ".f32";
    case Scalar::F64: return ".f64";
    case Scalar::I64: case Scalar::U64: case Scalar::Ptr: return ".b64";
    case Scalar::I32: case Scalar::U32: return ".b32";
    case Scalar::F16: case Scalar::BF16: return ".b16";
    case Scalar::I16: return ".s16";  // into .b32: extended by the load
    case Scalar::U16: return ".u16";
    case Scalar::I8: return ".s8";
    case Scalar::U8: case Scalar::I1: case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16: return ".u8";
  }
  return "";
}

std::string vecSuffix(size_t n) { return n == 1 ? "" : ".v" + std::to_string(n); }

// Sub-word elements past four per access travel as .b32 words.
bool packed(Scalar t, size_t n) { return elemBytes(t) < 4 && n > 4; }

// Unpacks the words of a packed load into the elements dst (type t).
void unpackWords(Entry& e, Scalar t, std::span<const Reg> words, std::span<const Reg> dst) {
  const int eb = elemBytes(t);
  for (size_t i = 0; i < dst.size(); ++i) {
    Reg w = words[i * size_t(eb) / 4], d = dst[i];
    int bit = int(i * size_t(eb) % 4) * 8;
    switch (t) {
      case Scalar::F16: case Scalar::BF16:
        if (bit == 0) unpack16x2(e, w, d, dst[i + 1]);
        continue;
      case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16: {
        Reg b = e.reg(RegClass::B32);
        e.inst("bfe.u32", {b, w, bit, 8});
        e.inst("cvt.u16.u32", {d, b});
        continue;
      }
      case Scalar::I16: case Scalar::I8: e.inst("bfe.s32", {d, w, bit, eb * 8}); continue;
      case Scalar::U16: case Scalar::U8: e.inst("bfe.u32", {d, w, bit, eb * 8}); continue;
      case Scalar::I1: {
        Reg b = e.reg(RegClass::B32);
        e.inst("and.b32", {b, w, hexImm(uint64_t(0xFF) << bit)});
        e.inst("setp.ne.u32", {d, b, 0});
        continue;
      }
      case Scalar::I32: case Scalar::I64: case Scalar::U32: case Scalar::U64: case Scalar::F32:
      case Scalar::F64: case Scalar::Ptr:
        break;
    }
    internal({}, "no packed form for " + std::string(ir::name(t)));
  }
}

// Packs four byte values (in .b32 registers, low byte used) into one word.
Reg packBytes(Entry& e, Reg b0, Reg b1, Reg b2, Reg b3) {
  Reg lo = e.reg(RegClass::B32), hi = e.reg(RegClass::B32), w = e.reg(RegClass::B32);
  e.inst("prmt.b32", {lo, b0, b1, hexImm(0x0040)});
  e.inst("prmt.b32", {hi, b2, b3, hexImm(0x0040)});
  e.inst("prmt.b32", {w, lo, hi, hexImm(0x5410)});
  return w;
}

// The words of a packed store of src (type t).
std::vector<Reg> packWords(Entry& e, Scalar t, std::span<const Reg> src) {
  std::vector<Reg> words;
  size_t per = 4 / size_t(elemBytes(t));
  for (size_t i = 0; i < src.size(); i += per) {
    std::span<const Reg> g = src.subspan(i, per);
    switch (t) {
      case Scalar::F16: case Scalar::BF16: words.push_back(pack16x2(e, g[0], g[1])); break;
      case Scalar::I16: case Scalar::U16: {
        Reg w = e.reg(RegClass::B32);
        e.inst("prmt.b32", {w, g[0], g[1], hexImm(0x5410)});
        words.push_back(w);
        break;
      }
      case Scalar::I8: case Scalar::U8: words.push_back(packBytes(e, g[0], g[1], g[2], g[3])); break;
      case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16: {
        Reg a = pack16x2(e, g[0], g[1]), b = pack16x2(e, g[2], g[3]), w = e.reg(RegClass::B32);
        e.inst("prmt.b32", {w, a, b, hexImm(0x6420)});
        words.push_back(w);
        break;
      }
      case Scalar::I1: {
        Reg b[4];
        for (int k = 0; k < 4; ++k) {
          b[k] = e.reg(RegClass::B32);
          e.inst("selp.b32", {b[k], 1, 0, g[size_t(k)]});
        }
        words.push_back(packBytes(e, b[0], b[1], b[2], b[3]));
        break;
      }
      case Scalar::I32: case Scalar::I64: case Scalar::U32: case Scalar::U64: case Scalar::F32:
      case Scalar::F64: case Scalar::Ptr:
        internal({}, "no packed form for " + std::string(ir::name(t)));
    }
  }
  return words;
}

}  // namespace

MemHints memHintsOf(const ir::Op& op) {
  MemHints h;
  std::string c = op.strAttrOr("cache", "");
  static constexpr std::pair<const char*, CacheOp> kCache[] = {
      {"", CacheOp::None}, {"ca", CacheOp::CA}, {"cg", CacheOp::CG}, {"cs", CacheOp::CS},
      {"lu", CacheOp::LU}, {"cv", CacheOp::CV}, {"wb", CacheOp::WB}, {"wt", CacheOp::WT}};
  bool found = false;
  for (const auto& [name, v] : kCache)
    if (c == name) h.cache = v, found = true;
  if (!found) internal(op.loc, "unknown cache modifier '" + c + "'");
  std::string ev = op.strAttrOr("evict", "");
  if (ev == "evict_first") h.evict = Evict::First;
  else if (ev == "evict_last") h.evict = Evict::Last;
  else if (!ev.empty() && ev != "evict_normal") internal(op.loc, "unknown eviction policy '" + ev + "'");
  h.isVolatile = op.intAttrOr("volatile", 0) != 0;
  return h;
}

void loadVector(Entry& e, Space space, Scalar t, std::span<const Reg> dst, Reg address, int64_t offset,
                const MemHints& hints, Guard mask, std::span<const Reg> other) {
  checkAccess(space, t, dst.size(), address);
  for (Reg r : dst) detail::expectClass({}, r, regClassOf(t), "load result");
  if (!other.empty() && (other.size() != dst.size() || !mask.active())) internal({}, "load 'other' needs a mask and one value per element");
  for (Reg r : other) detail::expectClass({}, r, regClassOf(t), "load 'other'");
  std::optional<Reg> policy;
  std::string stem = memStem(e, false, space, hints, policy);
  auto emitLoad = [&](const std::string& type, std::span<const Reg> regs) {
    std::vector<Operand> ops{regs.size() == 1 ? Operand(regs[0]) : vec(regs), addr(address, offset)};
    if (policy) ops.push_back(*policy);
    e.inst(stem + vecSuffix(regs.size()) + type, ops, mask);
  };
  if (packed(t, dst.size())) {
    // `other` packed into the words the predicated load writes: where the mask is off they keep it, and
    // the elements need no select after unpacking.
    std::vector<Reg> words;
    if (!other.empty()) {
      words = packWords(e, t, other);
    } else {
      for (size_t i = 0; i < dst.size() * size_t(elemBytes(t)) / 4; ++i) words.push_back(e.reg(RegClass::B32));
      if (mask.active())
        for (Reg w : words) movZero(e, w);
    }
    emitLoad(".b32", words);
    unpackWords(e, t, words, dst);
    return;
  }
  if (t == Scalar::I1) {  // bytes into .b32 temporaries, then != 0
    std::vector<Reg> bytes;
    for (size_t i = 0; i < dst.size(); ++i) {
      bytes.push_back(e.reg(RegClass::B32));
      if (!other.empty()) e.inst("selp.b32", {bytes[i], 1, 0, other[i]});
      else if (mask.active()) movZero(e, bytes[i]);
    }
    emitLoad(".u8", bytes);
    for (size_t i = 0; i < dst.size(); ++i) e.inst("setp.ne.u32", {dst[i], bytes[i], 0});
    return;
  }
  if (mask.active())
    for (size_t i = 0; i < dst.size(); ++i) other.empty() ? movZero(e, dst[i]) : e.mov(dst[i], other[i]);
  emitLoad(directType(t), dst);
}

void storeVector(Entry& e, Space space, Scalar t, std::span<const Reg> src, Reg address, int64_t offset,
                 const MemHints& hints, Guard mask) {
  checkAccess(space, t, src.size(), address);
  for (Reg r : src) detail::expectClass({}, r, regClassOf(t), "stored value");
  std::vector<Reg> regs;
  std::string type = directType(t);
  if (packed(t, src.size())) {
    regs = packWords(e, t, src);
    type = ".b32";
  } else if (t == Scalar::I1) {
    for (Reg p : src) {
      regs.push_back(e.reg(RegClass::B32));
      e.inst("selp.b32", {regs.back(), 1, 0, p});
    }
  } else {
    regs.assign(src.begin(), src.end());
  }
  std::optional<Reg> policy;
  std::string stem = memStem(e, true, space, hints, policy);
  std::vector<Operand> ops{addr(address, offset), regs.size() == 1 ? Operand(regs[0]) : vec(regs)};
  if (policy) ops.push_back(*policy);
  e.inst(stem + vecSuffix(regs.size()) + type, ops, mask);
}

Reg pack16x2(Entry& e, Reg lo, Reg hi) {
  Reg w = e.reg(RegClass::B32);
  e.inst("mov.b32", {w, vec({lo, hi})});
  return w;
}

void unpack16x2(Entry& e, Reg word, Reg lo, Reg hi) { e.inst("mov.b32", {vec({lo, hi}), word}); }

void cpAsync(Entry& e, Reg dst, Reg src, int bytes, std::optional<Operand> srcBytes, bool cacheL1, int64_t dstOffset,
             Guard guard) {
  if (bytes != 4 && bytes != 8 && bytes != 16) internal({}, "cp.async copies 4, 8 or 16 bytes");
  detail::expectClass({}, dst, RegClass::B32, "cp.async shared address");
  detail::expectClass({}, src, RegClass::B64, "cp.async global address");
  std::string m = bytes == 16 && !cacheL1 ? "cp.async.cg.shared.global" : "cp.async.ca.shared.global";
  std::vector<Operand> ops{addr(dst, dstOffset), addr(src), bytes};
  if (srcBytes) ops.push_back(*srcBytes);
  e.inst(m, ops, guard);
}

void cpAsyncCommit(Entry& e) { e.inst("cp.async.commit_group"); }
void cpAsyncWait(Entry& e, int pendingGroups) { e.inst("cp.async.wait_group", {pendingGroups}); }

void ldmatrix(Entry& e, std::span<const Reg> dst, Reg a, bool trans) {
  if (dst.size() != 1 && dst.size() != 2 && dst.size() != 4) internal({}, "ldmatrix loads 1, 2 or 4 matrices");
  for (Reg r : dst) detail::expectClass({}, r, RegClass::B32, "ldmatrix result");
  detail::expectClass({}, a, RegClass::B32, "ldmatrix shared address");
  std::string m = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(dst.size()) + (trans ? ".trans" : "") + ".shared.b16";
  e.inst(m, {vec(dst), addr(a)});
}

void stmatrix(Entry& e, Reg a, std::span<const Reg> src, bool trans) {
  if (src.size() != 1 && src.size() != 2 && src.size() != 4) internal({}, "stmatrix stores 1, 2 or 4 matrices");
  if (e.target().sm < 90) internal({}, "stmatrix needs sm_90 or later");
  for (Reg r : src) detail::expectClass({}, r, RegClass::B32, "stmatrix source");
  detail::expectClass({}, a, RegClass::B32, "stmatrix shared address");
  std::string m = "stmatrix.sync.aligned.m8n8.x" + std::to_string(src.size()) + (trans ? ".trans" : "") + ".shared.b16";
  e.inst(m, {addr(a), vec(src)});
}

}  // namespace kiln::ptx
