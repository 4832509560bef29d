// The instruction semantics of the CTA simulator (ops_sim.h): integer, predicate and float arithmetic,
// conversions and memory (its race checks are ops_sim_races.h); the warp-collective instructions
// (ldmatrix, shfl.sync, mma.sync) are ops_sim_warp_ops.h.
#pragma once
#include <algorithm>

namespace kiln::lower::test {

inline double CtaSim::floatMinMax(bool isMax, bool nanProp, double a, double b) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nanProp || (std::isnan(a) && std::isnan(b))) return std::nan("");
    return std::isnan(a) ? b : a;
  }
  if (a == b) return (std::signbit(a) != isMax) ? a : b;  // -0 < +0
  return isMax ? std::max(a, b) : std::min(a, b);
}

inline void CtaSim::exec(const Inst& in) {
  const std::string& op = in.parts[0];
  const std::string ty = in.parts.back();
  auto has = [&](const char* m) { return std::find(in.parts.begin(), in.parts.end(), m) != in.parts.end(); };
  if (op == "ld" || op == "st") return execMemory(in);
  if (op == "shfl") return execShfl(in);
  if (op == "mma") return execMma(in);
  if (op == "ldmatrix") return execLdmatrix(in);
  if (op == "stmatrix") return execStmatrix(in);
  if (op == "cp") return in.parts.size() > 3 && in.parts[2] == "bulk" ? execBulk(in) : execCpAsync(in);
  if (op == "mbarrier") return execMbarrier(in);
  if (op == "prefetch") {  // prefetch.param.tensormap [sym]: a hint; the symbol must name a tensor map
    const std::string& a = in.ops.at(0);
    if (in.line.find("prefetch.param.tensormap") == std::string::npos || !tensorMaps_.count(a.substr(1, a.size() - 2)))
      fail("prefetch of no tensor map");
    return;
  }
  if (op == "wgmma") return execWgmma(in);
  if (op == "fence" && in.line.find("fence.proxy.async") != std::string::npos) return;  // one proxy here
  if (op == "atom" || op == "red") return execAtomic(in);
  const int w = ty == "pred" ? 1 : (ty.size() > 1 && std::isdigit(static_cast<unsigned char>(ty[1])) ? bitsOf(ty) : 32);
  for (int t = 0; t < n_; ++t) {
    if (!active(t, in)) continue;
    const std::string& d = in.ops.at(0);
    auto src = [&](size_t k) { return get(t, in.ops.at(k)); };
    if (op == "mov") {
      if (d[0] == '{') {
        std::vector<std::string> p = vecOps(d);
        uint64_t v = src(1);
        int pw = bitsOf(ty) / int(p.size());
        for (size_t i = 0; i < p.size(); ++i) set(t, p[i], (v >> (pw * int(i))) & mask(pw));
      } else if (in.ops.at(1)[0] == '{') {
        std::vector<std::string> p = vecOps(in.ops[1]);
        int pw = bitsOf(ty) / int(p.size());
        uint64_t v = 0;
        for (size_t i = 0; i < p.size(); ++i) v |= (get(t, p[i]) & mask(pw)) << (pw * int(i));
        set(t, d, v);
      } else {
        set(t, d, src(1) & mask(w));
      }
      continue;
    }
    if (op == "cvta") {  // cvta.param.u64: a parameter's address is its generic address here
      if (!has("param")) fail("cvta form not modelled");
      set(t, d, src(1));
      continue;
    }
    if (op == "selp") {
      set(t, d, (src(3) & 1) ? src(1) : src(2));
      continue;
    }
    if (op == "setp") {
      const std::string& c = in.parts[1];
      uint64_t a = src(1), b = src(2);
      bool r;
      if (isFloatTy(ty)) {
        double x = toD(ty, a), y = toD(ty, b);
        bool un = std::isnan(x) || std::isnan(y);
        std::string base = c;
        bool unordered = c.size() == 3 && c.back() == 'u';
        if (unordered) base = c.substr(0, 2);
        if (c == "nan") r = un;
        else if (c == "num") r = !un;
        else if (un) r = unordered;
        else if (base == "eq") r = x == y;
        else if (base == "ne") r = x != y;
        else if (base == "lt") r = x < y;
        else if (base == "le") r = x <= y;
        else if (base == "gt") r = x > y;
        else if (base == "ge") r = x >= y;
        else fail("unknown float comparison " + c);
      } else if (ty == "pred") {
        if (c == "eq") r = (a & 1) == (b & 1);
        else if (c == "ne") r = (a & 1) != (b & 1);
        else fail("unknown predicate comparison " + c);
      } else {
        bool sgn = ty[0] == 's';
        int64_t x = sgn ? sext(a, w) : int64_t(a & mask(w)), y = sgn ? sext(b, w) : int64_t(b & mask(w));
        uint64_t ux = a & mask(w), uy = b & mask(w);
        if (c == "eq") r = ux == uy;
        else if (c == "ne") r = ux != uy;
        else if (c == "lt") r = sgn ? x < y : ux < uy;
        else if (c == "le") r = sgn ? x <= y : ux <= uy;
        else if (c == "gt") r = sgn ? x > y : ux > uy;
        else if (c == "ge") r = sgn ? x >= y : ux >= uy;
        else if (c == "lo") r = ux < uy;
        else if (c == "ls") r = ux <= uy;
        else if (c == "hi") r = ux > uy;
        else if (c == "hs") r = ux >= uy;
        else fail("unknown integer comparison " + c);
      }
      if (in.parts.size() == 4) {
        const std::string& comb = in.parts[2];
        std::string cp = in.ops.at(3);
        bool neg = cp[0] == '!';
        bool cv = ((get(t, neg ? cp.substr(1) : cp) & 1) != 0) != neg;
        if (comb == "and") r = r && cv;
        else if (comb == "or") r = r || cv;
        else if (comb == "xor") r = r != cv;
        else fail("unknown setp combination");
      }
      if (d.find('|') != std::string::npos) fail("setp with two results");
      set(t, d, r);
      continue;
    }
    // The rounding modifier of a float result: .rn (or none), .rz, .rm, .rp.
    auto directed = [&](bool rz) {
      return rz ? ir::RoundMode::TowardZero : has("rm") ? ir::RoundMode::Down : has("rp") ? ir::RoundMode::Up
                                                                                      : ir::RoundMode::NearestEven;
    };
    if (op == "cvt") {
      const std::string dty = in.parts[in.parts.size() - 2], sty = ty;
      const bool rz = has("rz") || has("rzi"), rni = has("rni"), rmi = has("rmi"), rpi = has("rpi");
      uint64_t v = src(1);
      if (!isFloatTy(dty) && !isFloatTy(sty)) {
        int regBits = d.rfind("%rd", 0) == 0 ? 64 : d.rfind("%h", 0) == 0 ? 16 : d.rfind("%p", 0) == 0 ? 1 : 32;
        set(t, d, uint64_t(ival(dty, uint64_t(ival(sty, v)))) & mask(regBits));
        continue;
      }
      if (dty.size() > 2 && dty.substr(dty.size() - 2) == "x2") {  // two packed conversions, low half first
        std::string de = dty.substr(0, dty.size() - 2), se = sty.substr(0, sty.size() - 2);
        bool packedSrc = sty.size() > 2 && sty.substr(sty.size() - 2) == "x2";
        int dw = bitsOf(de == "e4m3" || de == "e5m2" ? "b8" : de);
        uint64_t r = 0;
        for (int h = 0; h < 2; ++h) {
          double x;
          if (packedSrc) x = toD(se, v >> (h * (se == "e4m3" || se == "e5m2" ? 8 : bitsOf(se))));
          else x = toD(sty, get(t, in.ops.at(size_t(2 - h))));  // cvt.rn.X2.f32 d, hi, lo
          r |= (ir::toBits(floatScalar(de), ir::floatElem(ir::roundTo(floatScalar(de), x, rz))) & mask(dw)) << (h * dw);
        }
        set(t, d, r);
        continue;
      }
      if (dty == "tf32") {
        set(t, d, fromD("f32", ir::roundToTF32(toD(sty, v))));
        continue;
      }
      if (isFloatTy(dty) && isFloatTy(sty) && dty == sty && (rni || rmi || rpi || has("rzi"))) {  // round to integral
        double x = toD(sty, v);
        x = rni ? std::nearbyint(x) : rmi ? std::floor(x) : rpi ? std::ceil(x) : std::trunc(x);
        set(t, d, fromD(dty, x));
        continue;
      }
      if (isFloatTy(dty) && isFloatTy(sty)) {
        set(t, d, ir::toBits(floatScalar(dty), ir::floatElem(ir::roundTo(floatScalar(dty), toD(sty, v), directed(rz)))));
        continue;
      }
      if (isFloatTy(dty)) {  // int -> float, rounded once from the exact integer
        ir::Scalar is = bitsOf(sty) == 64 ? (sty[0] == 's' ? ir::Scalar::I64 : ir::Scalar::U64)
                                          : (sty[0] == 's' ? ir::Scalar::I32 : ir::Scalar::U32);
        ir::Elem x = ir::convert(is, floatScalar(dty), ir::intElem(ival(sty, v)), directed(rz));
        set(t, d, ir::toBits(floatScalar(dty), x));
        continue;
      }
      // float -> int: round to an integer, NaN -> 0, saturate
      double x = toD(sty, v);
      if (std::isnan(x)) x = 0;
      else if (rni) x = std::nearbyint(x);
      else if (rmi) x = std::floor(x);
      else if (rpi) x = std::ceil(x);
      else x = std::trunc(x);
      int db = bitsOf(dty);
      double lo = dty[0] == 's' ? -std::ldexp(1.0, db - 1) : 0, hi = dty[0] == 's' ? std::ldexp(1.0, db - 1) - 1 : std::ldexp(1.0, db) - 1;
      x = std::min(std::max(x, lo), hi);
      int64_t iv = dty[0] == 's' ? int64_t(x) : int64_t(uint64_t(x));
      set(t, d, uint64_t(iv) & mask(db == 64 ? 64 : 32));
      continue;
    }
    if (op == "prmt") {
      uint64_t a = src(1) & 0xFFFFFFFF, b = src(2) & 0xFFFFFFFF, c = src(3);
      uint64_t both = (b << 32) | a, r = 0;
      for (int i = 0; i < 4; ++i) {
        uint64_t sel = (c >> (4 * i)) & 0xF;
        uint64_t byte = (both >> (8 * (sel & 7))) & 0xFF;
        if (sel & 8) byte = (byte & 0x80) ? 0xFF : 0;
        r |= byte << (8 * i);
      }
      set(t, d, r);
      continue;
    }
    if (op == "bfe") {
      uint64_t a = src(1) & mask(w), pos = src(2) & 0xFF, len = src(3) & 0xFF;
      uint64_t r = len == 0 ? 0 : (a >> std::min<uint64_t>(pos, 63)) & mask(int(len));
      if (ty[0] == 's' && len > 0) r = uint64_t(sext(r, int(len)));
      set(t, d, r & mask(w));
      continue;
    }
    if (isFloatTy(ty) && op != "and" && op != "or" && op != "xor") {
      const bool f32 = ty == "f32";
      auto F = [&](size_t k) { return toD(ty, src(k)); };
      auto out = [&](double r) {
        if (f32) set(t, d, std::bit_cast<uint32_t>(float(r)));
        else set(t, d, fromD(ty, r));
      };
      static const std::pair<const char*, ir::RoundedFn> kRounded[] = {
          {"add", ir::RoundedFn::Add}, {"sub", ir::RoundedFn::Sub}, {"mul", ir::RoundedFn::Mul}, {"div", ir::RoundedFn::Div},
          {"fma", ir::RoundedFn::Fma}, {"sqrt", ir::RoundedFn::Sqrt}, {"rcp", ir::RoundedFn::Rcp}};
      const ir::RoundMode mode = directed(has("rz"));
      const auto rounded = std::find_if(std::begin(kRounded), std::end(kRounded), [&](const auto& r) { return op == r.first; });
      if (mode != ir::RoundMode::NearestEven && rounded != std::end(kRounded)) {  // .rz, .rm, .rp
        double v[3] = {F(1), 0, 0};
        for (int k = 1; k < ir::roundedArity(rounded->second); ++k) v[k] = F(size_t(k + 1));
        out(ir::roundedArith(floatScalar(ty), rounded->second, mode, v));
      }
      else if (op == "add") out(f32 ? double(float(F(1)) + float(F(2))) : F(1) + F(2));
      else if (op == "sub") out(f32 ? double(float(F(1)) - float(F(2))) : F(1) - F(2));
      else if (op == "mul") out(f32 ? double(float(F(1)) * float(F(2))) : F(1) * F(2));
      else if (op == "div") out(f32 ? double(float(F(1)) / float(F(2))) : F(1) / F(2));
      else if (op == "fma") out(ir::fmaTo(floatScalar(ty), F(1), F(2), F(3)));
      // The approximations, modelled as exact: tests that use them compare with tolerances.
      else if (op == "ex2" && has("approx")) {
        const double r = std::exp2(F(1));
        out(has("ftz") && r < 0x1p-126 ? 0.0 : r);  // .ftz: a subnormal result is 0
      }
      else if (op == "lg2" && has("approx")) out(std::log2(F(1)));
      else if (op == "sqrt") out(std::sqrt(F(1)));
      else if (op == "rsqrt" && has("approx")) out(1 / std::sqrt(F(1)));
      else if (op == "rcp") out(1 / F(1));
      else if (op == "neg") set(t, d, src(1) ^ (uint64_t(1) << (w - 1)));
      else if (op == "abs") set(t, d, src(1) & mask(w - 1));
      else if (op == "max" || op == "min") out(floatMinMax(op == "max", has("NaN"), F(1), F(2)));
      else if (op == "copysign") set(t, d, (src(2) & mask(w - 1)) | (src(1) & ~mask(w - 1) & mask(w)));
      else fail("float instruction not modelled");
      continue;
    }
    // integers and predicates
    const bool sgn = ty[0] == 's';
    auto I = [&](size_t k) { return ival(ty, src(k)); };
    uint64_t r;
    if (op == "and") r = src(1) & src(2);
    else if (op == "or") r = src(1) | src(2);
    else if (op == "xor") r = src(1) ^ src(2);
    else if (op == "not") r = ~src(1);
    else if (op == "add") r = uint64_t(I(1) + I(2));
    else if (op == "sub") r = uint64_t(I(1) - I(2));
    else if (op == "neg") r = uint64_t(-I(1));
    else if (op == "abs") r = uint64_t(I(1) < 0 ? -I(1) : I(1));
    else if (op == "mul" && in.parts[1] == "lo") r = uint64_t(I(1) * I(2));
    else if (op == "mul" && in.parts[1] == "hi") {
      __int128 p = sgn ? (__int128)I(1) * I(2) : (__int128)((unsigned __int128)(src(1) & mask(w)) * (src(2) & mask(w)));
      r = uint64_t(p >> w);
    }
    else if (op == "popc") {
      set(t, d, uint64_t(std::popcount(src(1) & mask(w))));
      continue;
    } else if (op == "clz") {
      set(t, d, uint64_t(std::countl_zero(src(1) & mask(w)) - (64 - w)));
      continue;
    } else if (op == "brev") {
      uint64_t x = src(1) & mask(w);
      r = 0;
      for (int i = 0; i < w; ++i) r |= ((x >> i) & 1) << (w - 1 - i);
    }
    else if (op == "mul" && in.parts[1] == "wide") {
      set(t, d, uint64_t(I(1) * I(2)));
      continue;
    } else if (op == "mad" && in.parts[1] == "lo") r = uint64_t(I(1) * I(2) + I(3));
    else if (op == "mad" && in.parts[1] == "wide") {
      set(t, d, uint64_t(I(1) * I(2)) + src(3));
      continue;
    } else if (op == "shl") r = src(2) >= uint64_t(w) ? 0 : src(1) << src(2);
    else if (op == "shr") r = sgn ? uint64_t(sext(src(1), w) >> std::min<uint64_t>(src(2), uint64_t(w - 1)))
                                   : (src(2) >= uint64_t(w) ? 0 : (src(1) & mask(w)) >> src(2));
    else if (op == "min") r = sgn ? uint64_t(std::min(I(1), I(2))) : std::min(src(1) & mask(w), src(2) & mask(w));
    else if (op == "max") r = sgn ? uint64_t(std::max(I(1), I(2))) : std::max(src(1) & mask(w), src(2) & mask(w));
    else if (op == "div" && I(2) != 0) r = sgn ? uint64_t(I(1) / I(2)) : (src(1) & mask(w)) / (src(2) & mask(w));
    else if (op == "rem" && I(2) != 0) r = sgn ? uint64_t(I(1) % I(2)) : (src(1) & mask(w)) % (src(2) & mask(w));
    else fail("instruction not modelled");
    set(t, d, r & mask(w));
  }
}

inline void CtaSim::execMemory(const Inst& in) {
  const bool load = in.parts[0] == "ld";
  std::string space;
  int vec = 1;
  for (const std::string& p : in.parts) {
    if (p == "global" || p == "shared" || p == "param") space = p;
    if (p == "v2") vec = 2;
    if (p == "v4") vec = 4;
  }
  const std::string ty = in.parts.back();
  const int eb = std::max(1, bitsOf(ty) / 8);
  for (int t = 0; t < n_; ++t) {
    if (!active(t, in)) continue;
    if (space == "param") {
      std::string sym = in.ops.at(1).substr(1, in.ops[1].size() - 2);
      if (!params_.count(sym)) fail("parameter " + sym + " without a value");
      set(t, in.ops[0], uint64_t(ival(ty[0] == 's' ? ty : "u" + std::to_string(eb * 8), params_[sym])));
      continue;
    }
    const std::string& a = load ? in.ops.at(1) : in.ops.at(0);
    std::vector<std::string> vals = vecOps(load ? in.ops.at(0) : in.ops.at(1));
    if (int(vals.size()) != vec) fail("vector width mismatch");
    uint64_t addr = address(t, a);
    if (addr % uint64_t(eb * vec)) fail("misaligned access at " + std::to_string(addr));
    for (int k = 0; k < vec; ++k) {
      uint64_t at = addr + uint64_t(k * eb);
      uint8_t* mem = nullptr;
      if (space == "global") {
        auto it = buffers_.upper_bound(at);
        if (it == buffers_.begin()) fail("global address outside every buffer");
        --it;
        if (at + uint64_t(eb) > it->first + it->second.size()) fail("global access past a buffer's end");
        mem = it->second.data() + (at - it->first);
      } else {
        if (at + uint64_t(eb) > shared_.size()) fail("shared access past the scratch size (" + std::to_string(at) + ")");
        mem = shared_.data() + at;
      }
      if (load) {
        uint64_t v = 0;
        for (int b = 0; b < eb; ++b) {
          if (space == "shared") sharedRead(t, size_t(at) + size_t(b));
          v |= uint64_t(mem[b]) << (8 * b);
        }
        if (ty[0] == 's') v = uint64_t(sext(v, eb * 8)) & mask(32);
        set(t, vals[size_t(k)], v);
      } else {
        uint64_t v = get(t, vals[size_t(k)]);
        for (int b = 0; b < eb; ++b) {
          uint8_t byte = uint8_t(v >> (8 * b));
          if (space == "shared") {
            sharedWrite(t, size_t(at) + size_t(b), byte);
          } else {
            auto [it, fresh] = globalWrites_.emplace(at + uint64_t(b), std::make_pair(byte, t));
            if (!fresh && it->second.first != byte) fail("conflicting global writes to one address");
          }
          mem[b] = byte;
        }
      }
    }
  }
}

}  // namespace kiln::lower::test
