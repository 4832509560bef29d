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
#include "layout/gf2.h"
#include "layout/ldmatrix.h"
#include "layout/named_layouts.h"

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

// The flattened coordinates (in the shared tile's out-dim order, dim0's bits lowest) that each input bit
// of a register layout reaches, per in dim: computed once per layout, whatever tile it is weighed against.
struct RegisterBits {
  std::vector<std::vector<uint64_t>> dims;

  RegisterBits(const LinearLayout& regs, const LinearLayout& shared) {
    std::vector<int> pos;  // position in shared's outputs of each of regs' out dims
    for (const layout::OutDim& o : regs.outs()) pos.push_back(shared.outDimIndex(o.name));
    if (pos.size() != shared.outs().size()) layoutBug("scratch: out dims differ: " + regs.str() + " vs " + shared.str());
    layout::Basis coords(pos.size(), 0);
    for (const layout::InDim& d : regs.ins()) {
      std::vector<uint64_t>& flat = dims.emplace_back();
      for (const layout::Basis& b : d.bases) {
        for (size_t j = 0; j < b.size(); ++j) {
          if (b[j] >= shared.outs()[size_t(pos[j])].size)
            layoutBug("scratch: the image of " + regs.str() + " is not inside " + shared.str());
          coords[size_t(pos[j])] = b[j];
        }
        flat.push_back(shared.flattenOut(coords));
      }
    }
  }
};

// A shared tile as the offset of every flattened coordinate: its offset bits' coordinates in an echelon
// basis tagged by offset bit (a tile is a bijection, so each coordinate has exactly one offset).
class TileOffsets {
 public:
  explicit TileOffsets(std::span<const uint64_t> offsetBits) {
    for (size_t k = 0; k < offsetBits.size(); ++k) basis_.add(offsetBits[k], uint64_t(1) << k);
  }
  explicit TileOffsets(const LinearLayout& shared) {
    if (shared.ins().size() != 1) layoutBug("scratch: " + shared.str() + " has more than an offset");
    const std::vector<layout::Basis>& bases = shared.ins()[0].bases;
    for (size_t k = 0; k < bases.size(); ++k) basis_.add(shared.flattenOut(bases[k]), uint64_t(1) << k);
  }
  // The offset each input bit reaches: layout::sharedOffsetBits of the layout `bits` came from.
  std::vector<std::vector<int64_t>> of(const RegisterBits& bits) const {
    std::vector<std::vector<int64_t>> out;
    for (const std::vector<uint64_t>& dim : bits.dims) {
      std::vector<int64_t>& offsets = out.emplace_back();
      for (uint64_t coords : dim) {
        layout::EchelonBasis::Reduced r = basis_.reduce(coords);
        if (r.residual != 0) layoutBug("scratch: a coordinate outside the shared tile");
        offsets.push_back(int64_t(r.tag));
      }
    }
    return out;
  }

 private:
  layout::EchelonBasis basis_;
};

// The offsets a register layout reaches in a shared tile (layout::sharedOffsets as numbers): per in dim
// the offset of each bit, and which dims are the registers and the lanes.
struct AccessBits {
  std::vector<std::vector<int64_t>> dims;
  int reg = -1, lane = -1;

  AccessBits(const LinearLayout& regs, const RegisterBits& bits, const TileOffsets& tile) : dims(tile.of(bits)) {
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

  // The offsets as the layout sharedOffsets builds: in dims of `regs`, one out dim (the tile's offset).
  LinearLayout layout(const LinearLayout& regs, const layout::OutDim& offset) const {
    std::vector<layout::InDim> ins;
    for (size_t i = 0; i < dims.size(); ++i) {
      layout::InDim d{regs.ins()[i].name, {}};
      for (int64_t o : dims[i]) d.bases.push_back({int32_t(o)});
      ins.push_back(std::move(d));
    }
    return LinearLayout(std::move(ins), {offset});
  }
};

// What scoring a candidate tile needs of the conversion: both sides' layouts and coordinate bits.
struct Conversion {
  const LinearLayout& src;
  const LinearLayout& dst;
  RegisterBits srcBits, dstBits;
  int elemBytes;
  const layout::LdmatrixPlanner* ldmatrix;  // null for element sizes ldmatrix cannot load
  const layout::LdmatrixPlanner* stmatrix;  // null where stmatrix may not store (not sm_90, not 16-bit)
};

// The stores of a candidate: the widest st.shared vector, or stmatrix where it takes fewer wavefronts
// (or as many in fewer instructions), and their wavefronts.
struct StoreScore {
  int32_t vec = 1;
  int64_t wavefronts = 0, instructions = 0;
  std::optional<layout::LdmatrixPlan> stmatrix;
};

// Row addresses are multiples of 16 bytes: counted in 16-byte units, 8 lanes per matrix.
int64_t matrixWavefronts(const layout::LdmatrixPlan& m, int elemBytes) {
  return sharedWavefronts(divideOuts(m.rowOffsets, 16 / elemBytes), 1, 16, 8 * m.numMatrices);
}

StoreScore scoreStores(const Conversion& c, const TileOffsets& tile, const layout::OutDim& offset) {
  AccessBits stores(c.src, c.srcBits, tile);
  StoreScore st;
  st.vec = std::min(std::max(1, 16 / c.elemBytes), stores.vectorWidth());
  st.wavefronts = stores.wavefronts(st.vec, c.elemBytes);
  st.instructions = numRegisters(c.src) / st.vec;
  if (c.stmatrix && c.stmatrix->mayPlan(stores.of(stores.reg), stores.of(stores.lane)))
    if (std::optional<layout::LdmatrixPlan> sm = c.stmatrix->plan(stores.layout(c.src, offset))) {
      const int64_t w = matrixWavefronts(*sm, c.elemBytes), instructions = numRegisters(c.src) / sm->elemsPerInstr;
      if (w < st.wavefronts || (w == st.wavefronts && instructions < st.instructions)) {
        st.wavefronts = w;
        st.instructions = instructions;
        st.stmatrix = sm;
      }
    }
  return st;
}

// The whole candidate, given its stores; `offset` is the tile's in dim as an out dim of the offsets.
// Nothing when the stores and the fewest wavefronts the loads could take are more than `bound` (the best
// candidate so far): such a candidate cannot win. The plan's layouts stay empty (the caller builds the
// winner's).
std::optional<Scored> score(const Conversion& c, const TileOffsets& tile, const layout::OutDim& offset,
                            const StoreScore& st, int64_t bound) {
  Scored s;
  const int elemBytes = c.elemBytes;
  const int32_t maxVec = std::max(1, 16 / elemBytes);
  s.plan.storeVec = st.vec;
  s.plan.stmatrix = st.stmatrix;
  const int64_t store = st.wavefronts;
  if (store > bound) return std::nullopt;
  AccessBits loads(c.dst, c.dstBits, tile);
  s.plan.loadVec = std::min(maxVec, loads.vectorWidth());
  int64_t load = loads.wavefronts(s.plan.loadVec, elemBytes);
  int64_t loadInstructions = numRegisters(c.dst) / s.plan.loadVec;
  // ldmatrix takes at least one wavefront per 8 lanes of each instruction, numRegisters(dst) * elemBytes / 4
  // in all.
  const int64_t fewestLoad = c.ldmatrix ? std::min<int64_t>(load, int64_t(numRegisters(c.dst)) * elemBytes / 4) : load;
  if (store + fewestLoad > bound) return std::nullopt;
  if (c.ldmatrix && c.ldmatrix->mayPlan(loads.of(loads.reg), loads.of(loads.lane))) {
    if (std::optional<layout::LdmatrixPlan> lm = c.ldmatrix->plan(loads.layout(c.dst, offset))) {
      int64_t w = matrixWavefronts(*lm, elemBytes);
      int64_t instructions = numRegisters(c.dst) / lm->elemsPerInstr;
      if (w < load || (w == load && instructions < loadInstructions)) {
        load = w;
        loadInstructions = instructions;
        s.plan.ldmatrix = lm;
      }
    }
  }
  s.plan.wavefronts = store + load;
  s.instructions = st.instructions + loadInstructions;
  return s;
}

const layout::LdmatrixPlanner* ldmatrixFor(int elemBytes) {
  return elemBytes == 2 || elemBytes == 4 ? &layout::LdmatrixPlanner::of(elemBytes * 8) : nullptr;
}

const layout::LdmatrixPlanner* stmatrixFor(int elemBytes, bool allowed) {
  return allowed && elemBytes == 2 ? &layout::LdmatrixPlanner::of(16) : nullptr;
}

}  // namespace

ScratchPlan planScratch(const LinearLayout& srcUnique, const LinearLayout& dstUnique, int elemBytes, bool stmatrix) {
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
  // Candidates by their numbers (sharedSwizzledBits): only the winner is built as a layout.
  struct Candidate {
    const std::vector<int32_t>* order;
    int32_t vec, perPhase, maxPhase;
    std::vector<uint64_t> bits;
  };
  std::vector<Candidate> candidates;
  auto add = [&](const std::vector<int32_t>& order, int32_t vec, int32_t perPhase, int32_t maxPhase) {
    candidates.push_back({&order, vec, perPhase, maxPhase, layout::sharedSwizzledBits(shape, vec, perPhase, maxPhase, order)});
  };
  for (const std::vector<int32_t>& order : orders) {
    add(order, 1, 1, 1);  // sharedPlain
    if (rank < 2) continue;
    const int64_t inner = shape[size_t(order[0])];
    for (int32_t vec = 1; vec <= 16 && vec * elemBytes <= 16 && vec <= inner; vec *= 2)
      for (int32_t perPhase : {1, 2, 4, 8})
        for (int32_t maxPhase : {2, 4, 8, 16, 32})
          if (int64_t(vec) * maxPhase <= inner) add(order, vec, perPhase, maxPhase);
  }
  const LinearLayout reference = layout::sharedPlain(shape, orders[0]);  // every candidate's out dims
  const layout::OutDim offset{std::string(layout::kOffset), int32_t(reference.ins()[0].size())};
  const Conversion conv{srcUnique, dstUnique, RegisterBits(srcUnique, reference), RegisterBits(dstUnique, reference),
                        elemBytes, ldmatrixFor(elemBytes), stmatrixFor(elemBytes, stmatrix)};
  // The stores of every distinct candidate first (some swizzles coincide, a phase longer than the rows:
  // the first of equal candidates wins anyway), then the loads in the order of fewest store wavefronts:
  // once a candidate's stores alone take more than the best total, so do every later one's. The winner is
  // the fewest wavefronts, then the fewest instructions, then the earliest candidate.
  struct Stored {
    const Candidate* candidate;
    size_t index;
    TileOffsets tile;
    StoreScore st;
  };
  std::vector<Stored> stored;
  std::unordered_multimap<uint64_t, const Candidate*> seen;  // by a hash of the bits
  for (const Candidate& c : candidates) {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t b : c.bits) h = (h ^ b) * 1099511628211ull;
    auto [same, end] = seen.equal_range(h);
    if (std::any_of(same, end, [&](const auto& e) { return e.second->bits == c.bits; })) continue;
    seen.emplace(h, &c);
    TileOffsets tile(c.bits);
    StoreScore st = scoreStores(conv, tile, offset);
    stored.push_back(Stored{&c, stored.size(), std::move(tile), st});
  }
  std::stable_sort(stored.begin(), stored.end(),
                   [](const Stored& a, const Stored& b) { return a.st.wavefronts < b.st.wavefronts; });
  Scored best;
  const Candidate* winner = nullptr;
  size_t bestIndex = 0;
  bool have = false;
  for (const Stored& c : stored) {
    if (have && c.st.wavefronts > best.plan.wavefronts) break;
    std::optional<Scored> s = score(conv, c.tile, offset, c.st, have ? best.plan.wavefronts : INT64_MAX);
    if (!s) continue;
    const bool wins = !have || s->plan.wavefronts < best.plan.wavefronts ||
                      (s->plan.wavefronts == best.plan.wavefronts &&
                       (s->instructions < best.instructions ||
                        (s->instructions == best.instructions && c.index < bestIndex)));
    if (wins) {
      best = std::move(*s);
      winner = c.candidate;
      bestIndex = c.index;
      have = true;
    }
  }
  // The winner's layouts, built once.
  best.plan.shared = layout::sharedSwizzled(shape, winner->vec, winner->perPhase, winner->maxPhase, *winner->order);
  best.plan.storeOffsets = layout::sharedOffsets(srcUnique, best.plan.shared);
  best.plan.loadOffsets = layout::sharedOffsets(dstUnique, best.plan.shared);
  return best.plan;
}

ScratchPlan planWithShared(const LinearLayout& shared, const LinearLayout& srcUnique, const LinearLayout& dstUnique,
                           int elemBytes, bool stmatrix) {
  const TileOffsets tile(shared);
  const Conversion conv{srcUnique, dstUnique, RegisterBits(srcUnique, shared), RegisterBits(dstUnique, shared),
                        elemBytes, ldmatrixFor(elemBytes), stmatrixFor(elemBytes, stmatrix)};
  const layout::OutDim offset{shared.ins()[0].name, shared.ins()[0].size()};
  std::optional<Scored> s = score(conv, tile, offset, scoreStores(conv, tile, offset), INT64_MAX);
  ScratchPlan plan = std::move(s->plan);
  plan.shared = shared;
  plan.storeOffsets = layout::sharedOffsets(srcUnique, shared);
  plan.loadOffsets = layout::sharedOffsets(dstUnique, shared);
  return plan;
}

}  // namespace kiln::layout
