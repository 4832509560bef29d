// Helpers for the layout tests: seeded random layouts (with broadcast bases), brute-force enumeration of
// every input of a layout, and an independent evaluation by XOR of bases.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "layout/linear_layout.h"

namespace kiln::layout::test {

class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen_); }  // inclusive
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(gen_) < p; }
  template <class T>
  void shuffle(std::vector<T>& v) { std::shuffle(v.begin(), v.end(), gen_); }

 private:
  std::mt19937 gen_;
};

// A random layout: each in dim gets 0..maxInBits bits, each out dim a size 2^(0..maxOutBits); a basis is
// zero with probability zeroProb, else uniform over the out space.
inline LinearLayout randomLayout(Rng& rng, const std::vector<std::string>& inNames,
                                 const std::vector<std::string>& outNames, int maxInBits, int maxOutBits,
                                 double zeroProb = 0.2) {
  std::vector<OutDim> outs;
  for (const std::string& n : outNames) outs.push_back({n, int32_t(1) << rng.uniform(0, maxOutBits)});
  std::vector<InDim> ins;
  for (const std::string& n : inNames) {
    InDim d{n, {}};
    int bits = rng.uniform(0, maxInBits);
    for (int b = 0; b < bits; ++b) {
      Basis basis;
      bool zero = rng.chance(zeroProb);
      for (const OutDim& o : outs) basis.push_back(zero ? 0 : rng.uniform(0, o.size - 1));
      d.bases.push_back(basis);
    }
    ins.push_back(d);
  }
  return LinearLayout(ins, outs);
}

// A random layout satisfying `pred` (retries with fresh draws).
inline LinearLayout randomLayoutWhere(Rng& rng, const std::function<bool(const LinearLayout&)>& pred,
                                      const std::vector<std::string>& inNames,
                                      const std::vector<std::string>& outNames, int maxInBits, int maxOutBits,
                                      double zeroProb = 0.2) {
  for (int attempt = 0; attempt < 10000; ++attempt) {
    LinearLayout l = randomLayout(rng, inNames, outNames, maxInBits, maxOutBits, zeroProb);
    if (pred(l)) return l;
  }
  ADD_FAILURE() << "no random layout satisfies the predicate";
  return LinearLayout();
}

// Calls fn on every input (one value per in dim) of l.
inline void forEachInput(const LinearLayout& l, const std::function<void(const std::vector<int32_t>&)>& fn) {
  std::vector<int32_t> in(l.ins().size(), 0);
  for (int64_t flat = 0; flat < l.totalInSize(); ++flat) {
    int64_t rest = flat;
    for (size_t i = in.size(); i-- > 0;) {
      in[i] = int32_t(rest % l.ins()[i].size());
      rest /= l.ins()[i].size();
    }
    fn(in);
  }
}

// XOR of the bases of the set input bits, written independently of LinearLayout::apply.
inline std::vector<int32_t> xorOfBases(const LinearLayout& l, const std::vector<int32_t>& in) {
  std::vector<int32_t> out(l.outs().size(), 0);
  for (size_t i = 0; i < in.size(); ++i)
    for (size_t b = 0; b < l.ins()[i].bases.size(); ++b)
      if (in[i] & (1 << b))
        for (size_t j = 0; j < out.size(); ++j) out[j] ^= l.ins()[i].bases[b][j];
  return out;
}

inline const std::vector<std::string> kRLW = {"register", "lane", "warp"};

}  // namespace kiln::layout::test
