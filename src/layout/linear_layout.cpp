// LinearLayout construction, dimension queries, evaluation and the structural operations (product,
// transpose, reshape, sublayout, rename). The GF(2) algebra lives in linear_layout_algebra.cpp.
#include "layout/linear_layout.h"

#include <algorithm>
#include <bit>

#include "layout/gf2.h"

namespace kiln::layout {

std::string dimName(int i) { return "dim" + std::to_string(i); }

std::vector<std::string> standardOutDims(int rank) {
  std::vector<std::string> names;
  for (int i = 0; i < rank; ++i) names.push_back(dimName(i));
  return names;
}

int32_t DimMasks::get(std::string_view dim) const {
  for (const auto& [name, mask] : masks)
    if (name == dim) return mask;
  return 0;
}

static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
static int log2Of(int64_t v) { return std::countr_zero(uint64_t(v)); }

// Every constructor runs this, so the common (valid) path allocates nothing: messages are built only on
// failure, and names are checked for repeats by a scan (layouts have a handful of dims).
std::string LinearLayout::validate(const std::vector<InDim>& ins, const std::vector<OutDim>& outs) {
  int outBits = 0, inBits = 0;
  for (size_t j = 0; j < outs.size(); ++j) {
    const OutDim& o = outs[j];
    if (o.name.empty()) return "an output dimension has an empty name";
    for (size_t k = 0; k < j; ++k)
      if (outs[k].name == o.name) return "output dimension '" + o.name + "' appears twice";
    if (!isPow2(o.size) || o.size > (1 << 30))
      return "output dimension '" + o.name + "' has size " + std::to_string(o.size) +
             ", not a power of two in [1, 2^30]";
    outBits += log2Of(o.size);
  }
  for (size_t k = 0; k < ins.size(); ++k) {
    const InDim& d = ins[k];
    if (d.name.empty()) return "an input dimension has an empty name";
    for (size_t m = 0; m < k; ++m)
      if (ins[m].name == d.name) return "input dimension '" + d.name + "' appears twice";
    if (d.bases.size() > 30) return "input dimension '" + d.name + "' has more than 30 bits";
    inBits += int(d.bases.size());
    for (size_t i = 0; i < d.bases.size(); ++i) {
      const Basis& b = d.bases[i];
      auto where = [&] { return "basis " + std::to_string(i) + " of '" + d.name + "'"; };
      if (b.size() != outs.size())
        return where() + " has " + std::to_string(b.size()) + " coordinates, expected " +
               std::to_string(outs.size());
      for (size_t j = 0; j < b.size(); ++j)
        if (b[j] < 0 || b[j] >= outs[j].size)
          return where() + " has coordinate " + std::to_string(b[j]) + " outside '" + outs[j].name +
                 "' of size " + std::to_string(outs[j].size);
    }
  }
  if (inBits > 62 || outBits > 62) return "more than 62 input or output bits";
  return "";
}

LinearLayout::LinearLayout(std::vector<InDim> ins, std::vector<OutDim> outs)
    : ins_(std::move(ins)), outs_(std::move(outs)) {
  if (std::string why = validate(ins_, outs_); !why.empty()) layoutBug(why);
}

static std::vector<OutDim> inferOuts(const std::vector<InDim>& ins, const std::vector<std::string>& names) {
  std::vector<OutDim> outs;
  for (size_t j = 0; j < names.size(); ++j) {
    int64_t maxCoord = 0;
    for (const InDim& d : ins)
      for (const Basis& b : d.bases)
        if (j < b.size()) maxCoord = std::max<int64_t>(maxCoord, b[j]);
    outs.push_back({names[j], int32_t(std::min<uint64_t>(std::bit_ceil(uint64_t(maxCoord) + 1), 1u << 31))});
  }
  return outs;
}

LinearLayout LinearLayout::withInferredOuts(std::vector<InDim> ins, const std::vector<std::string>& outNames) {
  std::vector<OutDim> outs = inferOuts(ins, outNames);
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::identity1D(int32_t size, std::string_view inDim, std::string_view outDim) {
  return strided1D(size, 1, inDim, outDim);
}

LinearLayout LinearLayout::zeros1D(int32_t size, std::string_view inDim, std::string_view outDim,
                                   int32_t outSize) {
  if (!isPow2(size)) layoutBug("zeros1D size " + std::to_string(size) + " is not a power of two");
  InDim in{std::string(inDim), std::vector<Basis>(log2Of(size), Basis{0})};
  return LinearLayout({in}, {OutDim{std::string(outDim), outSize}});
}

LinearLayout LinearLayout::strided1D(int32_t size, int32_t stride, std::string_view inDim,
                                     std::string_view outDim) {
  if (!isPow2(size) || !isPow2(stride))
    layoutBug("strided1D size " + std::to_string(size) + " and stride " + std::to_string(stride) +
              " must be powers of two");
  InDim in{std::string(inDim), {}};
  for (int64_t v = 1; v < size; v *= 2) in.bases.push_back({int32_t(v * stride)});
  return LinearLayout({in}, {OutDim{std::string(outDim), int32_t(int64_t(size) * stride)}});
}

// --- dimensions

// Dim names are short and mostly differ in their first or last letter ("register", "lane", "warp",
// "dim0", "dim1"): those are compared before the whole name, as lookups run in every codegen loop.
static bool sameName(const std::string& a, std::string_view b) {
  return a.size() == b.size() && (b.empty() || (a.front() == b.front() && a.back() == b.back() &&
                                                std::string_view(a) == b));
}

int LinearLayout::findIn(std::string_view name) const {
  for (size_t i = 0; i < ins_.size(); ++i)
    if (sameName(ins_[i].name, name)) return int(i);
  return -1;
}

int LinearLayout::findOut(std::string_view name) const {
  for (size_t i = 0; i < outs_.size(); ++i)
    if (sameName(outs_[i].name, name)) return int(i);
  return -1;
}

int LinearLayout::inDimIndex(std::string_view name) const {
  int i = findIn(name);
  if (i < 0) layoutBug("no input dimension '" + std::string(name) + "' in " + str());
  return i;
}

int LinearLayout::outDimIndex(std::string_view name) const {
  int i = findOut(name);
  if (i < 0) layoutBug("no output dimension '" + std::string(name) + "' in " + str());
  return i;
}

std::vector<std::string> LinearLayout::inDimNames() const {
  std::vector<std::string> names;
  for (const InDim& d : ins_) names.push_back(d.name);
  return names;
}

std::vector<std::string> LinearLayout::outDimNames() const {
  std::vector<std::string> names;
  for (const OutDim& d : outs_) names.push_back(d.name);
  return names;
}

int32_t LinearLayout::getInDimSize(std::string_view name) const { return ins_[inDimIndex(name)].size(); }
int LinearLayout::getInDimSizeLog2(std::string_view name) const {
  return int(ins_[inDimIndex(name)].bases.size());
}
int32_t LinearLayout::getOutDimSize(std::string_view name) const { return outs_[outDimIndex(name)].size; }
int LinearLayout::getOutDimSizeLog2(std::string_view name) const {
  return log2Of(outs_[outDimIndex(name)].size);
}

int LinearLayout::totalInBits() const {
  int n = 0;
  for (const InDim& d : ins_) n += int(d.bases.size());
  return n;
}

int LinearLayout::totalOutBits() const {
  int n = 0;
  for (const OutDim& d : outs_) n += log2Of(d.size);
  return n;
}

const Basis& LinearLayout::basis(std::string_view inDim, int bit) const {
  const InDim& d = ins_[inDimIndex(inDim)];
  if (bit < 0 || bit >= int(d.bases.size()))
    layoutBug("bit " + std::to_string(bit) + " out of range for '" + d.name + "'");
  return d.bases[bit];
}

int32_t LinearLayout::basis(std::string_view inDim, int bit, std::string_view outDim) const {
  return basis(inDim, bit)[outDimIndex(outDim)];
}

// --- evaluation

std::vector<int32_t> LinearLayout::apply(std::span<const int32_t> inputs) const {
  if (inputs.size() != ins_.size())
    layoutBug("apply: " + std::to_string(inputs.size()) + " inputs for " + std::to_string(ins_.size()) +
              " input dimensions");
  std::vector<int32_t> out(outs_.size(), 0);
  for (size_t i = 0; i < ins_.size(); ++i) {
    if (inputs[i] < 0 || inputs[i] >= ins_[i].size())
      layoutBug("apply: input " + std::to_string(inputs[i]) + " out of range for '" + ins_[i].name + "'");
    for (size_t bit = 0; bit < ins_[i].bases.size(); ++bit)
      if ((inputs[i] >> bit) & 1)
        for (size_t j = 0; j < outs_.size(); ++j) out[j] ^= ins_[i].bases[bit][j];
  }
  return out;
}

DimValues LinearLayout::apply(const DimValues& inputs) const {
  std::vector<int32_t> values(ins_.size(), 0);
  std::vector<bool> given(ins_.size(), false);
  for (const auto& [name, v] : inputs) {
    int i = inDimIndex(name);
    if (given[i]) layoutBug("apply: input '" + name + "' given twice");
    given[i] = true;
    values[i] = v;
  }
  if (std::count(given.begin(), given.end(), false) != 0) layoutBug("apply: an input dimension is missing");
  std::vector<int32_t> out = apply(values);
  DimValues named;
  for (size_t j = 0; j < outs_.size(); ++j) named.emplace_back(outs_[j].name, out[j]);
  return named;
}

// --- the matrix view

uint64_t LinearLayout::flattenOut(std::span<const int32_t> coords) const {
  uint64_t bits = 0;
  int shift = 0;
  for (size_t j = 0; j < outs_.size(); ++j) {
    bits |= uint64_t(uint32_t(coords[j])) << shift;
    shift += log2Of(outs_[j].size);
  }
  return bits;
}

Basis LinearLayout::unflattenOut(uint64_t bits) const {
  Basis coords;
  for (const OutDim& d : outs_) {
    coords.push_back(int32_t(bits & uint64_t(d.size - 1)));
    bits >>= log2Of(d.size);
  }
  return coords;
}

uint64_t LinearLayout::flattenIn(std::span<const int32_t> inputs) const {
  uint64_t bits = 0;
  int shift = 0;
  for (size_t i = 0; i < ins_.size(); ++i) {
    bits |= uint64_t(uint32_t(inputs[i])) << shift;
    shift += int(ins_[i].bases.size());
  }
  return bits;
}

std::vector<int32_t> LinearLayout::unflattenIn(uint64_t bits) const {
  std::vector<int32_t> values;
  for (const InDim& d : ins_) {
    values.push_back(int32_t(bits & ((uint64_t(1) << d.bases.size()) - 1)));
    bits >>= d.bases.size();
  }
  return values;
}

std::vector<uint64_t> LinearLayout::columns() const {
  std::vector<uint64_t> cols;
  for (const InDim& d : ins_)
    for (const Basis& b : d.bases) cols.push_back(flattenOut(b));
  return cols;
}

// --- building

LinearLayout LinearLayout::operator*(const LinearLayout& other) const {
  std::vector<OutDim> outs = outs_;
  std::vector<int> where, shift;  // for each out dim of `other`: its index in outs, and its bit shift
  for (const OutDim& o : other.outs_) {
    int j = findOut(o.name);
    if (j >= 0) {
      where.push_back(j);
      shift.push_back(log2Of(outs[j].size));
      if (int64_t(outs[j].size) * o.size > (1 << 30)) layoutBug("product: '" + o.name + "' exceeds 2^30");
      outs[j].size *= o.size;
    } else {
      where.push_back(int(outs.size()));
      shift.push_back(0);
      outs.push_back(o);
    }
  }
  std::vector<InDim> ins = ins_;
  for (InDim& d : ins)
    for (Basis& b : d.bases) b.resize(outs.size(), 0);
  for (const InDim& d : other.ins_) {
    std::vector<Basis> bases;
    for (const Basis& b : d.bases) {
      Basis nb(outs.size(), 0);
      for (size_t k = 0; k < b.size(); ++k) nb[where[k]] = b[k] << shift[k];
      bases.push_back(std::move(nb));
    }
    int i = findIn(d.name);
    if (i >= 0)
      ins[i].bases.insert(ins[i].bases.end(), bases.begin(), bases.end());
    else
      ins.push_back({d.name, std::move(bases)});
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

// Positions of `order`'s names among `names`; throws unless order is a permutation of names.
static std::vector<int> permutation(const std::vector<std::string>& names, const std::vector<std::string>& order,
                                    const char* what) {
  std::vector<int> perm;
  std::vector<bool> used(names.size(), false);
  for (const std::string& n : order) {
    auto it = std::find(names.begin(), names.end(), n);
    if (it == names.end() || used[it - names.begin()]) layoutBug(std::string(what) + ": not a permutation");
    used[it - names.begin()] = true;
    perm.push_back(int(it - names.begin()));
  }
  if (perm.size() != names.size()) layoutBug(std::string(what) + ": not a permutation");
  return perm;
}

LinearLayout LinearLayout::transposeIns(const std::vector<std::string>& order) const {
  std::vector<int> perm = permutation(inDimNames(), order, "transposeIns");
  std::vector<InDim> ins;
  for (int i : perm) ins.push_back(ins_[i]);
  return LinearLayout(std::move(ins), outs_);
}

LinearLayout LinearLayout::transposeOuts(const std::vector<std::string>& order) const {
  std::vector<int> perm = permutation(outDimNames(), order, "transposeOuts");
  std::vector<OutDim> outs;
  for (int j : perm) outs.push_back(outs_[j]);
  std::vector<InDim> ins = ins_;
  for (InDim& d : ins)
    for (Basis& b : d.bases) {
      Basis nb;
      for (int j : perm) nb.push_back(b[j]);
      b = std::move(nb);
    }
  return LinearLayout(std::move(ins), std::move(outs));
}

static int64_t checkedTotal(const std::vector<std::pair<std::string, int32_t>>& dims, const char* what) {
  int64_t total = 1;
  for (const auto& [name, size] : dims) {
    if (!isPow2(size)) layoutBug(std::string(what) + ": size of '" + name + "' is not a power of two");
    total *= size;
    if (total > (int64_t(1) << 62)) layoutBug(std::string(what) + ": too large");
  }
  return total;
}

LinearLayout LinearLayout::reshapeIns(const std::vector<std::pair<std::string, int32_t>>& newIns) const {
  if (checkedTotal(newIns, "reshapeIns") != totalInSize()) layoutBug("reshapeIns: total size differs");
  std::vector<Basis> flat;  // row-major: the last dim's bits lowest
  for (auto d = ins_.rbegin(); d != ins_.rend(); ++d) flat.insert(flat.end(), d->bases.begin(), d->bases.end());
  std::vector<InDim> ins(newIns.size());
  size_t next = 0;
  for (size_t i = newIns.size(); i-- > 0;) {
    ins[i].name = newIns[i].first;
    for (int b = 0; b < log2Of(newIns[i].second); ++b) ins[i].bases.push_back(flat[next++]);
  }
  return LinearLayout(std::move(ins), outs_);
}

LinearLayout LinearLayout::reshapeOuts(const std::vector<std::pair<std::string, int32_t>>& newOuts) const {
  if (checkedTotal(newOuts, "reshapeOuts") != totalOutSize()) layoutBug("reshapeOuts: total size differs");
  std::vector<OutDim> outs;
  for (const auto& [name, size] : newOuts) outs.push_back({name, size});
  std::vector<InDim> ins = ins_;
  for (InDim& d : ins)
    for (Basis& b : d.bases) {
      uint64_t flat = 0;  // row-major: dim0 outermost
      for (size_t j = 0; j < outs_.size(); ++j) flat = (flat << log2Of(outs_[j].size)) | uint64_t(b[j]);
      Basis nb(outs.size(), 0);
      for (size_t j = outs.size(); j-- > 0;) {
        nb[j] = int32_t(flat & uint64_t(outs[j].size - 1));
        flat >>= log2Of(outs[j].size);
      }
      b = std::move(nb);
    }
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::sublayout(const std::vector<std::string>& inDims,
                                     const std::vector<std::string>& outDims) const {
  for (const std::string& n : inDims) inDimIndex(n);
  for (const std::string& n : outDims) outDimIndex(n);
  auto listed = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  std::vector<int> keptOuts;
  std::vector<OutDim> outs;
  for (size_t j = 0; j < outs_.size(); ++j)
    if (listed(outDims, outs_[j].name)) {
      keptOuts.push_back(int(j));
      outs.push_back(outs_[j]);
    }
  std::vector<InDim> ins;
  for (const InDim& d : ins_) {
    if (!listed(inDims, d.name)) continue;
    InDim nd{d.name, {}};
    for (const Basis& b : d.bases) {
      Basis nb;
      for (int j : keptOuts) nb.push_back(b[j]);
      nd.bases.push_back(std::move(nb));
    }
    ins.push_back(std::move(nd));
  }
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout LinearLayout::renameIns(const std::vector<std::string>& names) const {
  if (names.size() != ins_.size()) layoutBug("renameIns: wrong number of names");
  std::vector<InDim> ins = ins_;
  for (size_t i = 0; i < ins.size(); ++i) ins[i].name = names[i];
  return LinearLayout(std::move(ins), outs_);
}

LinearLayout LinearLayout::renameOuts(const std::vector<std::string>& names) const {
  if (names.size() != outs_.size()) layoutBug("renameOuts: wrong number of names");
  std::vector<OutDim> outs = outs_;
  for (size_t j = 0; j < outs.size(); ++j) outs[j].name = names[j];
  return LinearLayout(ins_, std::move(outs));
}

size_t LinearLayout::hash() const {
  // FNV-1a over whole values rather than bytes (layout searches hash many candidates), with an xorshift
  // so that high bits reach the low bits that bucket indices use.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) {
    h = (h ^ v) * 1099511628211ull;
    h ^= h >> 29;
  };
  auto mixName = [&](const std::string& s) {
    for (char c : s) mix(uint8_t(c));
    mix(0x100);
  };
  for (const InDim& d : ins_) {
    mixName(d.name);
    for (const Basis& b : d.bases)
      for (int32_t c : b) mix(uint32_t(c));
    mix(0x200);
  }
  for (const OutDim& d : outs_) {
    mixName(d.name);
    mix(uint32_t(d.size));
  }
  return size_t(h);
}

}  // namespace kiln::layout
