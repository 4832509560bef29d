// Choice of the shared-memory tile a conversion stages through (see scratch_layout.h): every candidate
// (plain or swizzled, in the row-major order and in the fastest orders of both sides) is scored by
// counting bank conflicts exactly, which the linearity of the layouts makes cheap.
#include "layout/scratch_layout.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "layout/conversions.h"
#include "layout/ldmatrix.h"
#include "layout/named_layouts.h"
#include "layout/register_parts.h"

namespace kiln::layout {


namespace {

// Wavefronts of one phase: lanes p0 .. p0 + lanesPerPhase - 1 access (ro ^ laneOffset[l]) * elemBytes.
int64_t phaseWavefronts(const std::array<int64_t, 32>& laneOffset, int64_t ro, int p0, int lanesPerPhase,
                        int elemBytes, int64_t accessBytes, std::vector<int64_t>& words) {
  words.clear();
  for (int l = p0; l < p0 + lanesPerPhase; ++l) {
    int64_t a = (ro ^ laneOffset[size_t(l)]) * elemBytes;
    for (int64_t w = a / 4; w <= (a + accessBytes - 1) / 4; ++w) words.push_back(w);
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  std::array<int, 32> perBank{};
  int worst = 0;
  for (int64_t w : words) worst = std::max(worst, ++perBank[size_t(w & 31)]);
  return worst;
}

// sharedWavefronts over the offsets of the register bits and the lane bits.
int64_t wavefronts(std::span<const int64_t> regBits, std::span<const int64_t> laneBits, int32_t vec, int elemBytes,
                   int lanes) {
  const int32_t numRegs = int32_t(1) << regBits.size();
  std::array<int64_t, 32> laneOffset{};
  for (int32_t l = 0; l < 32; ++l)
    for (size_t b = 0; b < laneBits.size() && b < 5; ++b)
      if (l >> b & 1) laneOffset[size_t(l)] ^= laneBits[b];
  const int64_t accessBytes = int64_t(vec) * elemBytes;
  const int lanesPerPhase = accessBytes <= 4 ? 32 : int(128 / accessBytes);
  // Lane p0 + i of a phase (p0 a multiple of lanesPerPhase) accesses t ^ laneOffset[i], t = ro ^
  // laneOffset[p0]. When vec, elemBytes and so accessBytes are powers of two and t and every
  // laneOffset[i] are multiples of vec, every access is aligned: its 32-bit words are (word of t) XOR
  // (the words of lane i at t = 0), and XOR by a constant permutes words and banks alike, so such a phase
  // takes exactly the wavefronts of t = 0. That is most phases of a layout conversion; others are counted.
  const bool pow2 = std::has_single_bit(uint32_t(vec)) && std::has_single_bit(uint32_t(elemBytes));
  const int64_t misaligned = int64_t(vec) - 1;  // the bits of an offset that must be 0 (when pow2)
  bool lanesAligned = pow2;
  for (int i = 0; i < lanesPerPhase && lanesAligned; ++i) lanesAligned = (laneOffset[size_t(i)] & misaligned) == 0;
  int64_t alignedPhase = -1;  // the wavefronts of an aligned phase, once counted
  // registerOffset[c] = registerPart(offsets, c, 0), each from one with its lowest set bit cleared.
  std::vector<int64_t> registerOffset(size_t(numRegs), 0);
  for (int32_t c = 1; c < numRegs; ++c)
    registerOffset[size_t(c)] = registerOffset[size_t(c & (c - 1))] ^ regBits[size_t(std::countr_zero(uint32_t(c)))];
  int64_t total = 0;
  std::vector<int64_t> words;
  for (int32_t c = 0; c < numRegs; c += vec) {
    const int64_t ro = registerOffset[size_t(c)];
    for (int p0 = 0; p0 < lanes; p0 += lanesPerPhase) {
      int64_t t = ro ^ laneOffset[size_t(p0)];
      if (lanesAligned && (t & misaligned) == 0) {
        if (alignedPhase < 0)
          alignedPhase = phaseWavefronts(laneOffset, 0, 0, lanesPerPhase, elemBytes, accessBytes, words);
        total += alignedPhase;
      } else {
        total += phaseWavefronts(laneOffset, ro, p0, lanesPerPhase, elemBytes, accessBytes, words);
      }
    }
  }
  return total;
}

}  // namespace

int64_t sharedWavefronts(const LinearLayout& offsets, int32_t vec, int elemBytes, int lanes) {
  auto bits = [&](std::string_view dim) {
    std::vector<int64_t> out;
    if (offsets.hasInDim(dim))
      for (const layout::Basis& b : offsets.ins()[size_t(offsets.inDimIndex(dim))].bases) out.push_back(b[0]);
    return out;
  };
  return wavefronts(bits(layout::kRegister), bits(layout::kLane), vec, elemBytes, lanes);
}

namespace {

// The out dim along which register bit 0 (else lane bit 0) steps by one element; -1 when none does.
int fastestDim(const LinearLayout& l) {
  for (std::string_view dim : {layout::kRegister, layout::kLane}) {
    if (!l.hasInDim(dim) || l.getInDimSizeLog2(dim) == 0) continue;
    const layout::Basis& b = l.basis(dim, 0);
    int found = -1, nonzero = 0;
    for (size_t j = 0; j < b.size(); ++j)
      if (b[j] != 0) {
        ++nonzero;
        if (b[j] == 1) found = int(j);
      }
    if (nonzero == 1 && found >= 0) return found;
  }
  return -1;
}

// `first` fastest, then the other dims from the last to the first.
std::vector<int32_t> orderWithFastest(int rank, int first) {
  std::vector<int32_t> order{int32_t(first)};
  for (int d = rank - 1; d >= 0; --d)
    if (d != first) order.push_back(d);
  return order;
}

struct Scored {
  ScratchPlan plan;
  int64_t instructions = 0;
};

// `l` with every out value divided by `d` (all multiples of it).
LinearLayout divideOuts(const LinearLayout& l, int32_t d) {
  std::vector<layout::InDim> ins = l.ins();
  for (layout::InDim& in : ins)
    for (layout::Basis& b : in.bases)
      for (int32_t& c : b) c /= d;
  std::vector<layout::OutDim> outs = l.outs();
  for (layout::OutDim& o : outs) o.size = std::max(1, o.size / d);
  return LinearLayout(std::move(ins), std::move(outs));
}

int32_t numRegisters(const LinearLayout& l) { return l.hasInDim(layout::kRegister) ? l.getInDimSize(layout::kRegister) : 1; }

// sharedOffsets(regs, shared) as numbers (layout::sharedOffsetBits): the offset each in bit of `regs`
// reaches, per in dim, and which dims are the registers and the lanes.
struct AccessBits {
  std::vector<std::vector<int64_t>> dims;
  int reg = -1, lane = -1;

  AccessBits(const LinearLayout& regs, const LinearLayout& shared) : dims(layout::sharedOffsetBits(regs, shared)) {
    for (size_t i = 0; i < regs.ins().size(); ++i) {
      if (regs.ins()[i].name == layout::kRegister) reg = int(i);
      if (regs.ins()[i].name == layout::kLane) lane = int(i);
    }
  }
  std::span<const int64_t> of(int i) const { return i < 0 ? std::span<const int64_t>() : dims[size_t(i)]; }

  // The widest ld/st.shared vector (getNumConsecutiveInOut of the offsets layout): the register bits
  // stepping 1, 2, 4, ... while every other bit leaves the vector's low offset bits alone.
  int32_t vectorWidth() const {
    std::span<const int64_t> r = of(reg);
    int k = 0;
    while (k < int(r.size()) && r[size_t(k)] == int64_t(1) << k) ++k;
    for (; k > 0; --k) {
      const int64_t low = (int64_t(1) << k) - 1;
      bool aligned = true;
      for (size_t i = 0; i < dims.size() && aligned; ++i)
        for (size_t b = int(i) == reg ? size_t(k) : 0; b < dims[i].size() && aligned; ++b) aligned = !(dims[i][b] & low);
      if (aligned) break;
    }
    return int32_t(1) << k;
  }

  int64_t wavefronts(int32_t vec, int elemBytes) const {
    return layout::wavefronts(of(reg), of(lane), vec, elemBytes, 32);
  }

  // The offsets as the layout sharedOffsets builds: in dims of `regs`, one out dim, shared's in dim.
  LinearLayout layout(const LinearLayout& regs, const LinearLayout& shared) const {
    std::vector<layout::InDim> ins;
    for (size_t i = 0; i < dims.size(); ++i) {
      layout::InDim d{regs.ins()[i].name, {}};
      for (int64_t o : dims[i]) d.bases.push_back({int32_t(o)});
      ins.push_back(std::move(d));
    }
    const layout::InDim& offset = shared.ins().at(0);
    return LinearLayout(std::move(ins), {{offset.name, offset.size()}});
  }
};

// The stores of a candidate: the widest st.shared vector and its wavefronts.
struct StoreScore {
  int32_t vec = 1;
  int64_t wavefronts = 0;
};

StoreScore scoreStores(const LinearLayout& shared, const LinearLayout& src, int elemBytes) {
  AccessBits stores(src, shared);
  StoreScore st;
  st.vec = std::min(std::max(1, 16 / elemBytes), stores.vectorWidth());
  st.wavefronts = stores.wavefronts(st.vec, elemBytes);
  return st;
}

// The whole candidate, given its stores. `ldmatrix` is null for element sizes ldmatrix cannot load.
// Nothing when the stores and the fewest wavefronts the loads could take are more than `bound` (the best
// candidate so far): such a candidate cannot win. The plan's layouts stay empty (the caller builds the
// winner's).
std::optional<Scored> score(const LinearLayout& shared, const LinearLayout& src, const LinearLayout& dst,
                            int elemBytes, const layout::LdmatrixPlanner* ldmatrix, const StoreScore& st,
                            int64_t bound) {
  Scored s;
  const int32_t maxVec = std::max(1, 16 / elemBytes);
  s.plan.storeVec = st.vec;
  const int64_t store = st.wavefronts;
  if (store > bound) return std::nullopt;
  AccessBits loads(dst, shared);
  s.plan.loadVec = std::min(maxVec, loads.vectorWidth());
  int64_t load = loads.wavefronts(s.plan.loadVec, elemBytes);
  int64_t loadInstructions = numRegisters(dst) / s.plan.loadVec;
  // ldmatrix takes at least one wavefront per 8 lanes of each instruction, numRegisters(dst) * elemBytes / 4
  // in all.
  const int64_t fewestLoad = ldmatrix ? std::min<int64_t>(load, int64_t(numRegisters(dst)) * elemBytes / 4) : load;
  if (store + fewestLoad > bound) return std::nullopt;
  if (ldmatrix) {
    if (std::optional<layout::LdmatrixPlan> lm = ldmatrix->plan(loads.layout(dst, shared))) {
      // Row addresses are multiples of 16 bytes: count them in 16-byte units, 8 lanes per matrix.
      int64_t w = sharedWavefronts(divideOuts(lm->rowOffsets, 16 / elemBytes), 1, 16, 8 * lm->numMatrices);
      int64_t instructions = numRegisters(dst) / lm->elemsPerInstr;
      if (w < load || (w == load && instructions < loadInstructions)) {
        load = w;
        loadInstructions = instructions;
        s.plan.ldmatrix = lm;
      }
    }
  }
  s.plan.wavefronts = store + load;
  s.instructions = numRegisters(src) / s.plan.storeVec + loadInstructions;
  return s;
}

}  // namespace

int32_t ScratchRounds::expand(int32_t r, int32_t c, const std::vector<int>& bits) {
  // c's bit k goes to position bits[k]; r's bits fill the other positions, low to high.
  int32_t out = 0;
  for (size_t k = 0; k < bits.size(); ++k)
    if (c >> k & 1) out |= int32_t(1) << bits[k];
  int i = 0;
  for (int pos = 0; pos < 31 && (r >> i) != 0; ++pos) {
    if (std::find(bits.begin(), bits.end(), pos) != bits.end()) continue;
    if (r >> i & 1) out |= int32_t(1) << pos;
    ++i;
  }
  return out;
}

namespace {

// The register bit of `l` whose flattened image is exactly out bit o, when no other input bit of `l`
// touches o; -1 otherwise.
int soleRegisterBit(const LinearLayout& l, int o) {
  int found = -1;
  for (const layout::InDim& d : l.ins())
    for (size_t b = 0; b < d.bases.size(); ++b) {
      uint64_t f = l.flattenOut(d.bases[b]);
      if (!(f >> o & 1)) continue;
      if (d.name != layout::kRegister || f != (uint64_t(1) << o) || found >= 0) return -1;
      found = int(b);
    }
  return found;
}

// `l` without the register bits `regBits` and the flattened out bits `outBits` (all split bits).
LinearLayout withoutBits(const LinearLayout& l, const std::vector<int>& regBits, const std::vector<int>& outBits) {
  std::vector<layout::OutDim> outs = l.outs();
  std::vector<int> dimOf, bitOf;  // flattened out bit -> (dim, bit within dim)
  for (size_t j = 0; j < outs.size(); ++j)
    for (int b = 0; (int32_t(1) << b) < outs[j].size; ++b) dimOf.push_back(int(j)), bitOf.push_back(b);
  auto isSplit = [&](int o) { return std::find(outBits.begin(), outBits.end(), o) != outBits.end(); };
  for (int o : outBits) outs[size_t(dimOf[size_t(o)])].size /= 2;
  auto reduce = [&](const layout::Basis& b) {
    uint64_t f = l.flattenOut(b);
    layout::Basis r(outs.size(), 0);
    std::vector<int> next(outs.size(), 0);
    for (int o = 0; o < int(dimOf.size()); ++o) {
      if (isSplit(o)) continue;
      size_t j = size_t(dimOf[size_t(o)]);
      if (f >> o & 1) r[j] |= int32_t(1) << next[j];
      ++next[j];
    }
    return r;
  };
  std::vector<layout::InDim> ins;
  for (const layout::InDim& d : l.ins()) {
    layout::InDim nd{d.name, {}};
    for (size_t b = 0; b < d.bases.size(); ++b) {
      if (d.name == layout::kRegister && std::find(regBits.begin(), regBits.end(), int(b)) != regBits.end()) continue;
      nd.bases.push_back(reduce(d.bases[b]));
    }
    ins.push_back(std::move(nd));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

}  // namespace

ScratchRounds splitIntoRounds(const LinearLayout& srcUnique, const LinearLayout& dstUnique, int64_t maxElements) {
  ScratchRounds r{srcUnique, dstUnique, {}, {}, {}};
  int64_t elements = srcUnique.totalOutSize();
  std::vector<int>& outBits = r.outBits;
  // Candidates from the highest bit of each dim down (the repeats of a tile, not its vectors or
  // fragments), every dim's bit k before any dim's bit k - 1.
  std::vector<std::pair<int, int>> order;  // (bit within its dim, flattened bit)
  int o0 = 0;
  for (const layout::OutDim& d : srcUnique.outs()) {
    int n = std::countr_zero(uint32_t(d.size));
    for (int b = 0; b < n; ++b) order.emplace_back(b, o0 + b);
    o0 += n;
  }
  std::stable_sort(order.begin(), order.end(), [](auto x, auto y) { return x.first > y.first; });
  for (auto [bit, o] : order) {
    if (elements <= maxElements) break;
    int s = soleRegisterBit(srcUnique, o), d = soleRegisterBit(dstUnique, o);
    if (s < 0 || d < 0) continue;
    outBits.push_back(o);
    r.srcBits.push_back(s);
    r.dstBits.push_back(d);
    elements /= 2;
  }
  if (outBits.empty()) return r;
  r.src = withoutBits(srcUnique, r.srcBits, outBits);
  r.dst = withoutBits(dstUnique, r.dstBits, outBits);
  return r;
}

ScratchPlan planScratch(const LinearLayout& srcUnique, const LinearLayout& dstUnique, int elemBytes) {
  std::vector<int64_t> shape;
  for (const layout::OutDim& o : srcUnique.outs()) shape.push_back(o.size);
  const int rank = int(shape.size());
  std::vector<std::vector<int32_t>> orders{layout::rowMajorOrder(rank)};
  for (const LinearLayout* l : {&srcUnique, &dstUnique}) {
    int f = fastestDim(*l);
    if (f < 0) continue;
    std::vector<int32_t> o = orderWithFastest(rank, f);
    if (std::find(orders.begin(), orders.end(), o) == orders.end()) orders.push_back(o);
  }
  std::vector<LinearLayout> candidates;
  for (const std::vector<int32_t>& order : orders) {
    candidates.push_back(layout::sharedPlain(shape, order));
    if (rank < 2) continue;
    const int64_t inner = shape[size_t(order[0])];
    for (int32_t vec = 1; vec <= 16 && vec * elemBytes <= 16 && vec <= inner; vec *= 2)
      for (int32_t perPhase : {1, 2, 4, 8})
        for (int32_t maxPhase : {2, 4, 8, 16, 32})
          if (int64_t(vec) * maxPhase <= inner)
            candidates.push_back(layout::sharedSwizzled(shape, vec, perPhase, maxPhase, order));
  }
  // Some swizzles coincide (a phase longer than the rows): the first of equal candidates wins anyway.
  std::unordered_multimap<size_t, const LinearLayout*> seen;  // by hash
  const layout::LdmatrixPlanner* ldmatrix =
      elemBytes == 2 || elemBytes == 4 ? &layout::LdmatrixPlanner::of(elemBytes * 8) : nullptr;
  // The stores of every distinct candidate first, then the loads in the order of fewest store wavefronts:
  // once a candidate's stores alone take more than the best total, so do every later one's. The winner is
  // the fewest wavefronts, then the fewest instructions, then the earliest candidate.
  struct Stored {
    const LinearLayout* shared;
    size_t index;
    StoreScore st;
  };
  std::vector<Stored> stored;
  for (const LinearLayout& c : candidates) {
    const size_t h = c.hash();
    auto [same, end] = seen.equal_range(h);
    if (std::any_of(same, end, [&](const auto& e) { return *e.second == c; })) continue;
    seen.emplace(h, &c);
    stored.push_back(Stored{&c, stored.size(), scoreStores(c, srcUnique, elemBytes)});
  }
  std::stable_sort(stored.begin(), stored.end(),
                   [](const Stored& a, const Stored& b) { return a.st.wavefronts < b.st.wavefronts; });
  Scored best;
  const LinearLayout* bestShared = nullptr;
  size_t bestIndex = 0;
  bool have = false;
  for (const Stored& c : stored) {
    if (have && c.st.wavefronts > best.plan.wavefronts) break;
    std::optional<Scored> s = score(*c.shared, srcUnique, dstUnique, elemBytes, ldmatrix, c.st,
                                    have ? best.plan.wavefronts : INT64_MAX);
    if (!s) continue;
    const bool wins = !have || s->plan.wavefronts < best.plan.wavefronts ||
                      (s->plan.wavefronts == best.plan.wavefronts &&
                       (s->instructions < best.instructions ||
                        (s->instructions == best.instructions && c.index < bestIndex)));
    if (wins) {
      best = std::move(*s);
      bestShared = c.shared;
      bestIndex = c.index;
      have = true;
    }
  }
  // The winner's layouts, built once.
  best.plan.shared = *bestShared;
  best.plan.storeOffsets = layout::sharedOffsets(srcUnique, best.plan.shared);
  best.plan.loadOffsets = layout::sharedOffsets(dstUnique, best.plan.shared);
  return best.plan;
}

ScratchPlan planWithShared(const LinearLayout& shared, const LinearLayout& srcUnique, const LinearLayout& dstUnique,
                           int elemBytes) {
  const layout::LdmatrixPlanner* ldmatrix =
      elemBytes == 2 || elemBytes == 4 ? &layout::LdmatrixPlanner::of(elemBytes * 8) : nullptr;
  std::optional<Scored> s =
      score(shared, srcUnique, dstUnique, elemBytes, ldmatrix, scoreStores(shared, srcUnique, elemBytes), INT64_MAX);
  ScratchPlan plan = std::move(s->plan);
  plan.shared = shared;
  plan.storeOffsets = layout::sharedOffsets(srcUnique, shared);
  plan.loadOffsets = layout::sharedOffsets(dstUnique, shared);
  return plan;
}

}  // namespace kiln::layout
