// Runs device-check cases: input generation, one kernel per case, launch, element-wise comparison.
#include "device_check.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace kiln::ptx::test {

using ir::Scalar;

namespace {

uint64_t widthMask(Scalar t) {
  int w = t == Scalar::I1 ? 1 : ir::bitWidth(t);
  return w >= 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1;
}

std::vector<uint64_t> floatSpecials(Scalar t) {
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, -3.0, 0.1, 1.0 / 3, 10.0, -7.25,
                           100.0, 0.999, 1.001, 1e-3, 3.14159265, 6.2831853, 1.5707963, 0.75, 1.25,
                           HUGE_VAL, -HUGE_VAL, std::nan(""), 65504.0, 448.0, 57344.0, 1e6, -1e6};
  std::vector<uint64_t> out;
  for (double d : v) out.push_back(ir::toBits(t, ir::normalize(t, ir::floatElem(d))));
  // smallest subnormal, largest subnormal, smallest normal, largest finite, and their negatives
  int mant = t == Scalar::F64 ? 52 : t == Scalar::F32 ? 23 : t == Scalar::F16 ? 10 : t == Scalar::BF16 ? 7
           : t == Scalar::F8E4M3 ? 3 : 2;
  int bits = ir::bitWidth(t);
  uint64_t sign = uint64_t(1) << (bits - 1);
  int ebits = bits - 1 - mant;
  uint64_t mantMask = (uint64_t(1) << mant) - 1;
  uint64_t maxFinite = t == Scalar::F8E4M3 ? 0x7E : ((uint64_t(1) << ebits) - 2) << mant | mantMask;
  for (uint64_t b : {uint64_t(1), (uint64_t(1) << mant) - 1, uint64_t(1) << mant, maxFinite}) {
    out.push_back(b);
    out.push_back(b | sign);
  }
  return out;
}

std::vector<uint64_t> intSpecials(Scalar t) {
  int w = ir::bitWidth(t);
  uint64_t m = widthMask(t);
  std::vector<uint64_t> out = {0, 1, 2, 3, 7, m, m - 1, uint64_t(w - 1), uint64_t(w), uint64_t(w + 1), 100, m - 99};
  if (w > 1) {
    uint64_t top = uint64_t(1) << (w - 1);
    out.insert(out.end(), {top, top - 1, top + 1, top >> 1});
  }
  for (uint64_t& v : out) v &= m;
  return out;
}

// The element an input bit pattern stands for.
ir::Elem elemOf(Scalar t, uint64_t bits) { return ir::fromBits(t, bits & widthMask(t)); }

bool isNan(Scalar t, ir::Elem e) { return ir::isFloat(t) && std::isnan(e.f); }

std::string show(Scalar t, uint64_t bits) {
  std::ostringstream s;
  ir::Elem e = elemOf(t, bits);
  if (ir::isFloat(t)) s << e.f;
  else if (ir::isSigned(t)) s << e.i;
  else s << e.u;
  s << " (0x" << std::hex << (bits & widthMask(t)) << ")";
  return s.str();
}

}  // namespace

double ulpOf(Scalar t, double x) {
  int mant, emin;
  switch (t) {
    case Scalar::F64: mant = 52, emin = -1022; break;
    case Scalar::F32: mant = 23, emin = -126; break;
    case Scalar::F16: mant = 10, emin = -14; break;
    case Scalar::BF16: mant = 7, emin = -126; break;
    case Scalar::F8E4M3: mant = 3, emin = -6; break;
    case Scalar::F8E5M2: mant = 2, emin = -14; break;
    default: return 1;
  }
  int e = x == 0 || !std::isfinite(x) ? emin : std::max(std::ilogb(x), emin);
  return std::ldexp(1.0, e - mant);
}

std::vector<uint64_t> sampleBits(Scalar t, size_t randomCount, std::mt19937_64& rng) {
  int w = t == Scalar::I1 ? 1 : ir::bitWidth(t);
  std::vector<uint64_t> out;
  if (w <= 8) {
    for (uint64_t b = 0; b <= widthMask(t); ++b) out.push_back(b);
    return out;
  }
  out = ir::isFloat(t) ? floatSpecials(t) : intSpecials(t);
  uint64_t m = widthMask(t);
  for (size_t i = 0; i < randomCount; ++i) {
    uint64_t r = rng();
    if (ir::isFloat(t) && i % 2) {  // moderate magnitudes, where most results are finite
      double d = std::ldexp(double(int64_t(r % 2000001) - 1000000) / 1e6, int(rng() % 24) - 12);
      out.push_back(ir::toBits(t, ir::normalize(t, ir::floatElem(d))));
    } else if (!ir::isFloat(t) && i % 2) {  // small integers
      out.push_back(uint64_t(int64_t(r % 2001) - 1000) & m);
    } else {
      out.push_back(r & m);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<CaseReport> runCases(CudaDriver& cuda, const Target& target, const std::vector<Case>& cases,
                                 size_t maxTuples) {
  std::vector<CaseReport> reports;
  std::mt19937_64 rng(12345);
  const size_t kPerModule = 24;
  for (size_t first = 0; first < cases.size(); first += kPerModule) {
    size_t last = std::min(cases.size(), first + kPerModule);
    Module m(target);
    for (size_t c = first; c < last; ++c) elementKernel(m, cases[c].name, cases[c].ins, cases[c].out, cases[c].body);
    std::string log;
    void* mod = cuda.load(m.str(), log);
    for (size_t c = first; c < last; ++c) {
      const Case& k = cases[c];
      CaseReport rep{k.name, 0, 0, 0, 0, ""};
      // Operand tuples: the full cross product of the samples when small enough, else random picks.
      std::vector<std::vector<uint64_t>> samples;
      size_t cross = 1;
      for (Scalar t : k.ins) {
        samples.push_back(sampleBits(t, k.ins.size() == 1 ? 4000 : k.ins.size() == 2 ? 180 : 40, rng));
        cross *= samples.back().size();
      }
      size_t n = k.ins.empty() ? 1 : std::min(cross, maxTuples);
      std::vector<std::vector<uint64_t>> tuples(n, std::vector<uint64_t>(k.ins.size()));
      for (size_t i = 0; i < n; ++i) {
        size_t idx = i;
        for (size_t a = 0; a < k.ins.size(); ++a) {
          const auto& s = samples[a];
          if (cross <= maxTuples) {
            tuples[i][a] = s[idx % s.size()];
            idx /= s.size();
          } else {
            tuples[i][a] = s[rng() % s.size()];
          }
        }
      }
      // Upload, run, download.
      std::vector<CudaDriver::CUdeviceptr> bufs;
      for (size_t a = 0; a < k.ins.size(); ++a) {
        int eb = memBytes(k.ins[a]);
        std::vector<uint8_t> host(n * size_t(eb));
        for (size_t i = 0; i < n; ++i) std::memcpy(&host[i * size_t(eb)], &tuples[i][a], size_t(eb));
        bufs.push_back(cuda.alloc(host.size()));
        cuda.upload(bufs.back(), host.data(), host.size());
      }
      int ob = memBytes(k.out);
      std::vector<uint8_t> result(n * size_t(ob), 0xCD);
      CudaDriver::CUdeviceptr out = cuda.alloc(result.size());
      cuda.upload(out, result.data(), result.size());
      unsigned count = unsigned(n);
      std::vector<void*> params;
      for (auto& b : bufs) params.push_back(&b);
      params.push_back(&out);
      params.push_back(&count);
      cuda.launch(cuda.function(mod, k.name), unsigned((n + 127) / 128), 128, params);
      cuda.download(result.data(), out, result.size());
      for (auto b : bufs) cuda.free(b);
      cuda.free(out);
      // Compare.
      for (size_t i = 0; i < n; ++i) {
        std::vector<ir::Elem> in;
        for (size_t a = 0; a < k.ins.size(); ++a) in.push_back(elemOf(k.ins[a], tuples[i][a]));
        if (k.skip && k.skip(in)) continue;
        uint64_t gotBits = 0;
        std::memcpy(&gotBits, &result[i * size_t(ob)], size_t(ob));
        ir::Elem got = elemOf(k.out, gotBits);
        ir::Elem want = k.exact(in);
        bool ok;
        double ulps = 0, absErr = 0;
        bool sameBits = ir::toBits(k.out, got) == ir::toBits(k.out, want);
        if (k.tol.exact || sameBits || isNan(k.out, want) || std::isinf(want.f)) {
          ok = isNan(k.out, want) ? isNan(k.out, got) : ir::toBits(k.out, got) == ir::toBits(k.out, want);
        } else {
          std::vector<double> din;
          for (const ir::Elem& e : in) din.push_back(e.f);
          double ref = k.approxRef(din);
          absErr = std::fabs(got.f - ref);
          ulps = absErr / ulpOf(k.out, ref);
          ok = !isNan(k.out, got) && (absErr <= k.tol.abs || ulps <= k.tol.ulps);
          rep.maxAbs = std::max(rep.maxAbs, std::isfinite(absErr) ? absErr : 1e30);
          if (absErr > k.tol.abs) rep.maxUlps = std::max(rep.maxUlps, std::isfinite(ulps) ? ulps : 1e30);
        }
        ++rep.checked;
        if (ok) continue;
        if (++rep.failures <= 6) {
          rep.firstFailures += "  (";
          for (size_t a = 0; a < k.ins.size(); ++a) rep.firstFailures += (a ? ", " : "") + show(k.ins[a], tuples[i][a]);
          rep.firstFailures += ") -> got " + show(k.out, gotBits) + ", want " + show(k.out, ir::toBits(k.out, want));
          if (!k.tol.exact) rep.firstFailures += " [" + std::to_string(ulps) + " ulp]";
          rep.firstFailures += "\n";
        }
      }
      reports.push_back(rep);
    }
    cuda.unload(mod);
  }
  return reports;
}

}  // namespace kiln::ptx::test
