// dotLayout and the mma.sync / FMA decisions behind it (dot_layouts.h).
#include "assign/dot_layouts.h"

#include <algorithm>
#include <bit>
#include <unordered_set>

#include "layout/named_layouts.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using ir::Scalar;
using layout::LinearLayout;

bool truncatesToTf32(const ir::Op& dot) { return dot.strAttrOr("input_precision", "tf32") == "tf32"; }

std::vector<int32_t> mmaWarpsPerCTA(int64_t m, int64_t n, int numWarps) {
  // Registers per warp grow as 4 * repM * repK + 2 * repN * repK: balance the repetitions, M on ties.
  int64_t repM = std::max<int64_t>(1, m / 16), repN = std::max<int64_t>(1, n / 8);
  std::vector<int32_t> warps{1, 1};
  while (int64_t(warps[0]) * warps[1] < numWarps) {
    if (repM >= repN) {
      warps[0] *= 2;
      if (repM != 1) repM /= 2;
    } else {
      warps[1] *= 2;
      repN /= 2;
    }
  }
  return warps;
}

namespace {

// The dots and mmas nested in the function (or top-level block) that holds `op`, but `op`.
std::vector<const ir::Op*> otherDotsAround(const ir::Op& op) {
  const ir::Block* root = op.parent;
  while (root && root->parentOp && root->parentOp->parent) root = root->parentOp->parent;
  std::vector<const ir::Op*> out;
  if (!root) return out;
  std::vector<const ir::Block*> blocks{root};
  while (!blocks.empty()) {
    const ir::Block* b = blocks.back();
    blocks.pop_back();
    for (const auto& o : b->ops) {
      if (o.get() != &op && (o->opcode == ir::Opcode::Dot || o->opcode == ir::Opcode::Mma)) out.push_back(o.get());
      for (const auto& r : o->regions) blocks.push_back(r.get());
    }
  }
  return out;
}

// Whether an op of `targets` is reached walking back from `from`'s operands through the ops that define
// them (not through loop-carried block arguments). `seen` holds the ops already walked: a walk that
// found no target leaves them there, and none of them reaches a target, so later walks skip them.
bool reachesBack(std::vector<const ir::Value*> work, const std::vector<const ir::Op*>& targets,
                 std::unordered_set<const ir::Op*>& seen) {
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    const ir::Op* d = v->def;
    if (!d || !seen.insert(d).second) continue;
    if (std::find(targets.begin(), targets.end(), d) != targets.end()) return true;
    for (const ir::Value* o : d->operands) work.push_back(o);
  }
  return false;
}

}  // namespace

bool isChainedDot(const ir::Op& dot) {
  // GPU IR's mmas count as dots: once the schedule split one dot of a chain into k-slice mmas, the other
  // (an f16 accumulator's, which stays whole) is still chained, and keeps the layouts it was given.
  const std::vector<const ir::Op*> others = otherDotsAround(dot);
  if (others.empty()) return false;
  // Another dot feeds this one's a or b, or this one feeds another's: two walks, each op visited once.
  std::unordered_set<const ir::Op*> seen;
  if (reachesBack({dot.operand(0), dot.operand(1)}, others, seen)) return true;
  seen.clear();
  std::vector<const ir::Value*> fromOthers;
  for (const ir::Op* other : others) {
    fromOthers.push_back(other->operand(0));
    fromOthers.push_back(other->operand(1));
  }
  return reachesBack(std::move(fromOthers), {&dot}, seen);
}

std::optional<ptx::WgmmaInput> wgmmaInput(Scalar elem) {
  switch (elem) {
    case Scalar::F16: return ptx::WgmmaInput::F16;
    case Scalar::BF16: return ptx::WgmmaInput::BF16;
    case Scalar::F32: return ptx::WgmmaInput::TF32;
    case Scalar::F8E4M3: return ptx::WgmmaInput::E4M3;
    case Scalar::F8E5M2: return ptx::WgmmaInput::E5M2;
    case Scalar::I8: return ptx::WgmmaInput::S8;
    case Scalar::U8: return ptx::WgmmaInput::U8;
    default: return std::nullopt;
  }
}

namespace {

// The mma.sync kind of the same operand types (MmaConfig::kind; wgmma itself goes by wgmmaInput).
ptx::MmaKind mmaKindOf(ptx::WgmmaInput in) {
  switch (in) {
    case ptx::WgmmaInput::F16: return ptx::MmaKind::F16_F32;
    case ptx::WgmmaInput::BF16: return ptx::MmaKind::BF16_F32;
    case ptx::WgmmaInput::TF32: return ptx::MmaKind::TF32_F32;
    case ptx::WgmmaInput::E4M3: return ptx::MmaKind::E4M3_F32;
    case ptx::WgmmaInput::E5M2: return ptx::MmaKind::E5M2_F32;
    case ptx::WgmmaInput::S8: return ptx::MmaKind::S8_S32;
    case ptx::WgmmaInput::U8: return ptx::MmaKind::U8_S32;
  }
  return ptx::MmaKind::F16_F32;
}

}  // namespace

std::optional<MmaConfig> wgmmaConfig(const ir::Op& dot, int numWarps, const ptx::Target& target) {
  if (target.sm != 90 || !target.archSpecific || numWarps % 4) return std::nullopt;
  if (dot.opcode == ir::Opcode::Mma && !dot.hasAttr("wgmma")) return std::nullopt;  // GPU IR says which
  const ir::Type &a = dot.operand(0)->type, &b = dot.operand(1)->type, &acc = dot.operand(2)->type;
  if (a.rank() != 2 || acc.rank() != 2 || a.elem != b.elem) return std::nullopt;
  const std::optional<ptx::WgmmaInput> in = wgmmaInput(a.elem);
  if (!in) return std::nullopt;
  const bool intSum = acc.elem == Scalar::I32 || acc.elem == Scalar::U32;
  if (ptx::wgmmaIntegerSum(*in) ? !intSum : acc.elem != Scalar::F32) return std::nullopt;
  // tf32 only where both operands are loaded K-major (tf32_dots.h): staged through registers, as an
  // operand along M or N would be, it runs slower than on mma.sync.
  if (*in == ptx::WgmmaInput::TF32 && (!dot.hasAttr("wgmma") || !truncatesToTf32(dot))) return std::nullopt;
  const int kTile = ptx::wgmmaK(*in);
  const int64_t m = a.shape[0], k = a.shape[1], n = acc.shape[1];
  if (m % 64 || k % kTile || n % 8 || n < 8) return std::nullopt;
  const int64_t groups = numWarps / 4;
  int64_t gm = 0, gn = 0;
  if (const ir::AttrValue* w = dot.findAttr("warps")) {  // GPU IR's mma: the grid of the dot it came from
    const auto& grid = std::get<std::vector<int64_t>>(*w);
    if (grid.at(0) % 4) return std::nullopt;
    gm = grid.at(0) / 4;
    gn = grid.at(1);
  } else if (isChainedDot(dot)) {
    // Every warpgroup along M (the first accumulator is the second dot's A where it stands), with as
    // many 64-row blocks as M needs: attention at 128 rows on 4 warps keeps two. Its loop-invariant q
    // is read from shared memory (stage_operands), so the thread holds the two accumulators and P.
    gm = groups;
    gn = 1;
  } else {
    gm = std::min<int64_t>(groups, m / 64);
    gn = groups / gm;
  }
  // Warpgroups side by side along N each take whole 64-column blocks of B's slot (their descriptors
  // start on a block, not inside a swizzled row).
  if (gm * gn != groups || m % (64 * gm) || n % (8 * gn) || (gn > 1 && n / gn < 64)) return std::nullopt;
  MmaConfig cfg{mmaKindOf(*in), ir::bitWidth(a.elem), kTile, {int32_t(4 * gm), int32_t(gn)}};
  cfg.wgmma = true;
  cfg.instrN = int32_t(std::min<int64_t>(256, n / gn));
  return cfg;
}

std::optional<MmaConfig> mmaConfig(const ir::Op& dot, int numWarps, const ptx::Target& target) {
  if (std::optional<MmaConfig> wg = wgmmaConfig(dot, numWarps, target)) return wg;
  const ir::Type& a = dot.operand(0)->type;
  const ir::Type& acc = dot.operand(2)->type;
  if (a.rank() != 2 || acc.rank() != 2) return std::nullopt;
  std::optional<MmaConfig> cfg;
  const Scalar in = a.elem, out = acc.elem;
  const bool intAcc = out == Scalar::I32 || out == Scalar::U32;
  // An f16 accumulator sums in f32 too and is rounded once after the last k (docs/semantics.md).
  const bool f32Sum = out == Scalar::F32 || out == Scalar::F16;
  if (in == Scalar::F16 && f32Sum) cfg = MmaConfig{ptx::MmaKind::F16_F32, 16, 16, {}};
  else if (in == Scalar::BF16 && out == Scalar::F32) cfg = MmaConfig{ptx::MmaKind::BF16_F32, 16, 16, {}};
  else if (in == Scalar::F32 && out == Scalar::F32 && truncatesToTf32(dot)) cfg = MmaConfig{ptx::MmaKind::TF32_F32, 32, 8, {}};
  else if (in == Scalar::I8 && intAcc) cfg = MmaConfig{ptx::MmaKind::S8_S32, 8, 32, {}};
  else if (in == Scalar::U8 && intAcc) cfg = MmaConfig{ptx::MmaKind::U8_S32, 8, 32, {}};
  else if (in == Scalar::F8E4M3 && f32Sum && target.sm >= 89) cfg = MmaConfig{ptx::MmaKind::E4M3_F32, 8, 32, {}};
  else if (in == Scalar::F8E5M2 && f32Sum && target.sm >= 89) cfg = MmaConfig{ptx::MmaKind::E5M2_F32, 8, 32, {}};
  if (!cfg || target.sm < 80) return std::nullopt;
  const int64_t m = a.shape[0], k = a.shape[1], n = acc.shape[1];
  if (m < 16 || n < 8 || k < cfg->kTile || m % 16 || n % 8 || k % cfg->kTile) return std::nullopt;
  if (const ir::AttrValue* w = dot.findAttr("warps")) {  // GPU IR's mma: the grid of the dot it came from
    const auto& grid = std::get<std::vector<int64_t>>(*w);
    cfg->warpsPerCTA = {int32_t(grid.at(0)), int32_t(grid.at(1))};
  } else if (isChainedDot(dot)) {
    // One dot's accumulator feeds the other's A (attention's p = softmax(q k^T); p v): with every warp
    // along M in both, the accumulator is already the A fragment (a register-only conversion).
    int32_t wm = int32_t(std::min<int64_t>(numWarps, std::max<int64_t>(1, m / 16)));
    cfg->warpsPerCTA = {wm, numWarps / wm};
  } else {
    cfg->warpsPerCTA = mmaWarpsPerCTA(m, n, numWarps);
  }
  return cfg;
}

std::optional<layout::WgmmaTile> wgmmaStagedTile(const ir::Op& dot, int opIdx) {
  const ir::Value* v = dot.operand(unsigned(opIdx));
  if (v->type.isShared()) return std::nullopt;
  const std::optional<ptx::WgmmaInput> in = wgmmaInput(v->type.elem);
  if (!in) throw InternalError(dot.loc, "wgmma: no instruction for the operand type");
  const int bytes = ir::bitWidth(v->type.elem) / 8;
  if (ptx::wgmmaTransposes(*in)) {
    if (opIdx == 0) return std::nullopt;  // register fragments
    layout::WgmmaTile t{v->type.shape, {1, 0}, bytes};
    if (!t.swizzleBytes()) t.order = {0, 1};
    return t;
  }
  // K-major: A [M, K] contiguous along K (dim 1), B [K, N] along K (dim 0). K is a multiple of the
  // instruction's 32 bytes, so the tile has a swizzled arrangement.
  layout::WgmmaTile t{v->type.shape, opIdx == 0 ? std::vector<int32_t>{1, 0} : std::vector<int32_t>{0, 1}, bytes};
  if (!t.swizzleBytes() || t.rows() < 8) throw InternalError(dot.loc, "wgmma: a K-major operand below one swizzle atom");
  return t;
}

int64_t wgmmaStagedTileBytes(const layout::WgmmaTile& t) {
  return t.shape[0] * t.shape[1] * t.elemBytes + 8 * int64_t(t.swizzleBytes());
}

int64_t wgmmaStagingBytes(const ir::Op& dot) {
  int64_t bytes = 0;
  for (int i = 0; i < 2; ++i)
    if (std::optional<layout::WgmmaTile> t = wgmmaStagedTile(dot, i)) bytes += wgmmaStagedTileBytes(*t);
  return bytes;
}

LinearLayout fmaAccumulatorLayout(const std::vector<int64_t>& shape, int numWarps) {
  // Four consecutive columns per thread keep the per-thread rows and columns (the A and B registers)
  // few: 8 x 4 for a 64x64 tile over 128 threads.
  return layout::defaultBlocked(shape, numWarps, 4, layout::rowMajorOrder(int(shape.size())));
}

LinearLayout fmaOperandLayout(int opIdx, const LinearLayout& acc, int64_t k) {
  const int rank = int(acc.outs().size());
  if (rank < 2 || (opIdx != 0 && opIdx != 1)) throw InternalError({}, "fmaOperandLayout: bad rank or operand");
  if (!std::has_single_bit(uint64_t(k))) throw InternalError({}, "fmaOperandLayout: K is not a power of two");
  const size_t kPos = opIdx == 0 ? size_t(rank - 1) : size_t(rank - 2);  // where K sits in the operand
  const size_t dropped = opIdx == 0 ? size_t(rank - 1) : size_t(rank - 2);  // the acc dim the operand lacks
  auto project = [&](const layout::Basis& b) {
    layout::Basis p = b;
    p[dropped] = 0;
    return p;
  };
  std::vector<layout::InDim> ins;
  for (const layout::InDim& d : acc.ins()) {
    layout::InDim nd{d.name, {}};
    if (d.name == layout::kRegister)
      for (int64_t v = 1; v < k; v *= 2) {
        layout::Basis b(size_t(rank), 0);
        b[kPos] = int32_t(v);
        nd.bases.push_back(b);
      }
    for (const layout::Basis& b : d.bases) {
      layout::Basis p = project(b);
      bool zero = std::all_of(p.begin(), p.end(), [](int32_t c) { return c == 0; });
      if (d.name == layout::kRegister && zero) continue;  // a register of the other dim: not needed here
      nd.bases.push_back(p);
    }
    ins.push_back(std::move(nd));
  }
  std::vector<layout::OutDim> outs = acc.outs();
  outs[kPos].size = int32_t(k);
  return LinearLayout(std::move(ins), std::move(outs));
}

LinearLayout dotLayout(int opIdx, const ir::Op& dot, int numWarps, const ptx::Target& target) {
  if (opIdx < 0 || opIdx > 2) throw InternalError(dot.loc, "dotLayout: operand index must be 0, 1 or 2");
  const ir::Type& a = dot.operand(0)->type;
  const ir::Type& b = dot.operand(1)->type;
  const ir::Type& acc = dot.operand(2)->type;
  if (std::optional<MmaConfig> cfg = mmaConfig(dot, numWarps, target)) {
    if (cfg->wgmma) {
      if (opIdx == 2) return layout::wgmmaAccumulator(acc.shape, cfg->instrN, cfg->warpsPerCTA);
      const int perThread = 16 / (ir::bitWidth(b.elem) / 8);
      if (cfg->bitWidth != 16) {
        // tf32, fp8, 8-bit integers: both operands are read K-major from shared memory; in registers
        // each is spread over every thread once, 16 bytes along K, and staged there by the dot.
        if (opIdx == 0) return layout::defaultBlocked(a.shape, numWarps, perThread, {1, 0});
        return layout::defaultBlocked(b.shape, numWarps, perThread, {0, 1});
      }
      if (opIdx == 0) return layout::wgmmaOperandA(a.shape, cfg->warpsPerCTA);
      // B is read from shared memory: in registers it is spread over every thread once, rows of 16
      // bytes, and staged there by the dot (a pipelined loop copies it into its slots directly).
      return layout::defaultBlocked(b.shape, numWarps, perThread, layout::rowMajorOrder(2));
    }
    if (opIdx == 2) return layout::mmaV2Accumulator(acc.shape, cfg->warpsPerCTA);
    return layout::mmaV2Operand(opIdx, opIdx == 0 ? a.shape : b.shape, cfg->warpsPerCTA, cfg->bitWidth);
  }
  LinearLayout accLayout = fmaAccumulatorLayout(acc.shape, numWarps);
  if (opIdx == 2) return accLayout;
  return fmaOperandLayout(opIdx, accLayout, a.shape.back());
}

}  // namespace kiln::lower
