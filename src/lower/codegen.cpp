// The per-thread code generator's core: values -> registers, thread indices, the coordinates a
// register of a layout holds, scratch shared memory, and lowerBlock's dispatch of every op of
// ops.def to its family (lower_<family>.cpp).
#include "lower/codegen.h"

#include <bit>

#include "lower/global_access.h"
#include "lower/shared_tile.h"
#include "ptx/isel.h"
#include "ptx/warp.h"
#include "support/diagnostic.h"

namespace kiln::lower {

using ir::Opcode;
using ptx::Reg;
using ptx::RegClass;

namespace {

constexpr int kMaxNesting = 64;  // regions inside regions; deeper input is refused, not recursed

[[noreturn]] void bug(const SourceLoc& loc, const std::string& msg) { throw InternalError(loc, "codegen: " + msg); }

}  // namespace

void codegenBug(const ir::Op& op, const std::string& msg) {
  throw InternalError(op.loc, std::string("codegen of '") + op.name() + "': " + msg);
}

Codegen::Codegen(ptx::Entry& entry, const ir::Function& fn, const analysis::AxisInfoAnalysis& axis, int numWarps)
    : e(entry), fn(fn), axis(axis), numWarps(numWarps) {
  // The layouts' num_warps is a power of two (emitPtx checks it); a CTA of warp partitions may have any
  // count (warp_specialize: 8 + 4), its tiles live inside the partitions.
  if (numWarps < 1 || numWarps > 32) bug(fn.loc, "a CTA has 1 to 32 warps, got " + std::to_string(numWarps));
  tid_ = ptx::readSpecial(e, ptx::SpecialReg::TidX);
  lane_ = e.reg(RegClass::B32);
  e.inst("and.b32", {lane_, tid_, 31});
  warp_ = e.reg(RegClass::B32);
  e.inst("shr.u32", {warp_, tid_, 5});
}

// ---------------------------------------------------------------- values

int Codegen::numRegs(const ir::Type& t) {
  if (!t.isTensor()) return 1;
  if (!t.layout) bug({}, "tile " + t.str() + " has no layout: codegen needs GPU IR (run assignLayouts)");
  return t.layout->hasInDim(layout::kRegister) ? t.layout->getInDimSize(layout::kRegister) : 1;
}

const std::vector<Reg>& Codegen::regs(const ir::Value* v) {
  if (auto it = regs_.find(v); it != regs_.end()) return it->second;
  auto pt = ptrTiles_.find(v);
  if (pt == ptrTiles_.end())
    bug(v->def ? v->def->loc : SourceLoc{}, "a value of type " + v->type.str() + " is used before it is lowered");
  const PtrTile& t = pt->second;
  std::vector<Reg> out(size_t(numRegs(v->type)));
  std::unordered_map<int, Reg> byOffset;  // register indices with one offset register share the pointer
  for (size_t r = 0; r < out.size(); ++r) {
    if (t.offsets.empty()) {
      out[r] = t.base;
      continue;
    }
    auto [it, fresh] = byOffset.emplace(t.offsets[r].id, Reg{});
    if (fresh) it->second = ptrAddress(t, r);
    out[r] = it->second;
  }
  materialized_.push_back(std::move(out));
  return materialized_.back();
}

Reg Codegen::reg(const ir::Value* v) const {
  auto it = regs_.find(v);
  if (it == regs_.end() || v->type.isTensor() || it->second.size() != 1)
    bug(v->def ? v->def->loc : SourceLoc{}, "reg() of " + v->type.str() + ", which is no lowered scalar");
  return it->second[0];
}

const Codegen::PtrTile* Codegen::ptrTile(const ir::Value* v) const {
  auto it = ptrTiles_.find(v);
  return it == ptrTiles_.end() ? nullptr : &it->second;
}

void Codegen::bindPtrTile(const ir::Value* v, PtrTile t) {
  if (!v->type.isTensor() || !v->type.isPtr()) bug({}, "a base + offsets form for " + v->type.str());
  if (!t.base.valid() || t.base.cls != RegClass::B64 || t.elemBytes <= 0) bug({}, "malformed pointer tile");
  if (!t.offsets.empty() && int(t.offsets.size()) != numRegs(v->type)) bug({}, "pointer tile offsets of another layout");
  for (Reg o : t.offsets)
    if (!o.valid() || o.cls != ptx::regClassOf(t.offsetType)) bug({}, "pointer tile offset of the wrong class");
  ptrTiles_[v] = std::move(t);
}

Reg Codegen::ptrAddress(const PtrTile& t, size_t r) {
  if (t.offsets.empty()) return t.base;
  Reg a = e.reg(RegClass::B64);
  ptx::selectPtrAdd(e, t.offsetType, t.elemBytes, a, t.base, t.offsets.at(r));
  return a;
}

Codegen::Binding Codegen::binding(const ir::Value* v) const {
  Binding b{v, std::nullopt, std::nullopt};
  if (auto it = regs_.find(v); it != regs_.end()) b.regs = it->second;
  if (auto it = ptrTiles_.find(v); it != ptrTiles_.end()) b.tile = it->second;
  return b;
}

void Codegen::restore(const Binding& b) {
  regs_.erase(b.value);
  ptrTiles_.erase(b.value);
  if (b.regs) regs_[b.value] = *b.regs;
  if (b.tile) ptrTiles_[b.value] = *b.tile;
}

void Codegen::bind(const ir::Value* v, std::vector<Reg> r) {
  if (int(r.size()) != numRegs(v->type))
    bug(v->def ? v->def->loc : SourceLoc{}, "binding " + std::to_string(r.size()) + " registers to " + v->type.str() +
                                                " (" + std::to_string(numRegs(v->type)) + " expected)");
  // A shared buffer or slot is its .b32 shared-window address.
  RegClass c = v->type.isShared() ? RegClass::B32 : ptx::regClassOf(v->type.elem);
  for (Reg x : r)
    if (!x.valid() || x.cls != c) bug({}, "binding a register of the wrong class to " + v->type.str());
  regs_[v] = std::move(r);
}

std::vector<Reg> Codegen::newRegs(const ir::Type& t) {
  std::vector<Reg> out;
  int n = numRegs(t);
  out.reserve(size_t(n));
  std::vector<int32_t> canon;
  if (t.isTensor()) canon = canonicalRegisters(*t.layout);
  for (int i = 0; i < n; ++i)
    out.push_back(!canon.empty() && canon[size_t(i)] != i ? out[size_t(canon[size_t(i)])] : e.reg(ptx::regClassOf(t.elem)));
  return out;
}

// ---------------------------------------------------------------- thread indices, coordinates

Reg Codegen::tid() { return tid_; }
Reg Codegen::lane() { return lane_; }
Reg Codegen::warp() { return warp_; }

size_t Codegen::cacheHash(Cached kind, int dim, const layout::LinearLayout& l) {
  return l.hash() ^ (size_t(kind) << 40) ^ (size_t(uint32_t(dim)) * 0x9e3779b97f4a7c15ull);
}

const std::vector<Reg>* Codegen::findCached(Cached kind, int dim, const layout::LinearLayout& l) const {
  auto it = coordCache_.find(cacheHash(kind, dim, l));
  if (it == coordCache_.end()) return nullptr;
  for (const CachedRegs& c : it->second)
    if (c.kind == kind && c.dim == dim && c.layout == l) return &c.regs;
  return nullptr;
}

void Codegen::addCached(Cached kind, int dim, const layout::LinearLayout& l, std::vector<Reg> regs) {
  std::vector<CachedRegs>& bucket = coordCache_[cacheHash(kind, dim, l)];
  for (CachedRegs& c : bucket)
    if (c.kind == kind && c.dim == dim && c.layout == l) {
      c.regs = std::move(regs);
      return;
    }
  bucket.push_back(CachedRegs{kind, dim, l, std::move(regs)});
}

Reg Codegen::threadCoord(const layout::LinearLayout& l, int dim) {
  if (const std::vector<Reg>* r = findCached(Cached::ThreadCoord, dim, l)) return r->empty() ? Reg{} : (*r)[0];
  Reg acc;
  auto combine = [&](Reg term) {
    if (!acc.valid()) {
      acc = term;
      return;
    }
    Reg x = e.reg(RegClass::B32);
    e.inst("xor.b32", {x, acc, term});
    acc = x;
  };
  // index's bits b.. whose images along `dim` are 2^s, 2^(s+1), ..: one bit-field extract and a shift;
  // any other image: the bit times the image.
  auto addIndex = [&](std::string_view in, Reg index) {
    if (!l.hasInDim(in)) return;
    int bits = l.getInDimSizeLog2(in);
    for (int b = 0; b < bits;) {
      int32_t c = l.basis(in, b)[size_t(dim)];
      if (c == 0) {
        ++b;
        continue;
      }
      Reg t = e.reg(RegClass::B32);
      if (!std::has_single_bit(uint32_t(c))) {
        e.inst("bfe.u32", {t, index, b, 1});
        Reg m = e.reg(RegClass::B32);
        e.inst("mul.lo.u32", {m, t, c});
        combine(m);
        ++b;
        continue;
      }
      int s = std::countr_zero(uint32_t(c)), run = 1;
      while (b + run < bits && l.basis(in, b + run)[size_t(dim)] == (int32_t(1) << (s + run))) ++run;
      e.inst("bfe.u32", {t, index, b, run});
      if (s > 0) {
        Reg sh = e.reg(RegClass::B32);
        e.inst("shl.b32", {sh, t, s});
        t = sh;
      }
      combine(t);
      b += run;
    }
  };
  addIndex(layout::kLane, lane_);
  addIndex(layout::kWarp, warp_);
  addCached(Cached::ThreadCoord, dim, l, acc.valid() ? std::vector<Reg>{acc} : std::vector<Reg>{});
  return acc;
}

std::vector<Codegen::CoordPart> Codegen::coordParts(const layout::LinearLayout& l, int32_t r) {
  int regBits = l.hasInDim(layout::kRegister) ? l.getInDimSizeLog2(layout::kRegister) : 0;
  if (r < 0 || r >= (int32_t(1) << regBits)) bug({}, "register index " + std::to_string(r) + " out of range of " + l.str());
  return coordPartsOf(l, r, r + 1)[0];
}

std::vector<std::vector<Codegen::CoordPart>> Codegen::coordPartsOf(const layout::LinearLayout& l, int32_t begin,
                                                                  int32_t end) {
  const size_t rank = l.outs().size();
  // The thread part of each dim and every bit it can set, once for all the registers.
  std::vector<CoordPart> thread(rank);
  std::vector<int32_t> reachable(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    thread[d].thread = threadCoord(l, int(d));
    for (std::string_view in : {layout::kLane, layout::kWarp})
      if (l.hasInDim(in))
        for (const layout::Basis& b : l.ins()[size_t(l.inDimIndex(in))].bases) reachable[d] |= b[d];
  }
  const std::vector<layout::Basis>* regBases =
      l.hasInDim(layout::kRegister) ? &l.ins()[size_t(l.inDimIndex(layout::kRegister))].bases : nullptr;
  std::vector<std::vector<CoordPart>> out;
  out.reserve(size_t(end - begin));
  for (int32_t r = begin; r < end; ++r) {
    std::vector<CoordPart>& parts = out.emplace_back(thread);
    if (regBases)
      for (size_t b = 0; b < regBases->size(); ++b)
        if ((r >> b) & 1)
          for (size_t d = 0; d < rank; ++d) parts[d].constant ^= (*regBases)[b][d];
    for (size_t d = 0; d < rank; ++d) parts[d].disjoint = (reachable[d] & parts[d].constant) == 0;
  }
  return out;
}

std::vector<Reg> Codegen::coords(const layout::LinearLayout& l, int32_t r) {
  std::vector<Reg> out;
  for (const CoordPart& p : coordParts(l, r)) {
    if (p.thread.valid() && p.constant == 0) {
      out.push_back(p.thread);  // shared: callers never write into a register they are given
      continue;
    }
    Reg x = e.reg(RegClass::B32);
    if (p.thread.valid()) e.inst("xor.b32", {x, p.thread, p.constant});
    else e.inst("mov.b32", {x, p.constant});
    out.push_back(x);
  }
  return out;
}

Reg Codegen::ownerPredicate(const layout::LinearLayout& l) {
  if (const std::vector<Reg>* r = findCached(Cached::Owner, 0, l)) return r->empty() ? Reg{} : (*r)[0];
  layout::DimMasks free = l.getFreeVariableMasks();
  Reg p;
  for (auto [in, index] : {std::pair{layout::kLane, lane_}, std::pair{layout::kWarp, warp_}}) {
    int32_t mask = free.get(in);
    if (!mask) continue;
    Reg t = e.reg(RegClass::B32), q = e.reg(RegClass::Pred);
    e.inst("and.b32", {t, index, mask});
    if (p.valid()) e.inst("setp.eq.and.u32", {q, t, 0, p});
    else e.inst("setp.eq.u32", {q, t, 0});
    p = q;
  }
  addCached(Cached::Owner, 0, l, p.valid() ? std::vector<Reg>{p} : std::vector<Reg>{});
  return p;
}

Reg Codegen::firstThread() { return comparedWithZero(Cached::FirstThread, "setp.eq.u32", tid_); }

Reg Codegen::otherWarps() { return comparedWithZero(Cached::OtherWarps, "setp.ne.u32", warp_); }

Reg Codegen::comparedWithZero(Cached kind, const char* setp, Reg index) {
  if (const std::vector<Reg>* r = findCached(kind, 0, layout::LinearLayout())) return (*r)[0];
  Reg p = e.reg(RegClass::Pred);
  e.inst(setp, {p, index, 0});
  addCached(kind, 0, layout::LinearLayout(), {p});
  return p;
}

// ---------------------------------------------------------------- shared memory

Codegen::Scratch Codegen::scratch(const ir::Op& op, int64_t bytes) {
  if (bytes <= 0) codegenBug(op, "scratch of " + std::to_string(bytes) + " bytes");
  if (!op.hasAttr("scratch")) codegenBug(op, "no scratch placed for the op (allocate_shared places it)");
  const std::vector<int64_t>& placed = op.listAttr("scratch");
  if (placed.size() != 2 || bytes > placed[1])
    codegenBug(op, "the op needs " + std::to_string(bytes) + " bytes of scratch, more than allocate_shared placed");
  const Scratch s{sharedAddress(placed[0]), placed[0], placed[0] + placed[1]};
  scratchBytes_ = std::max(scratchBytes_, s.end);
  return s;
}

Reg Codegen::sharedAddress(int64_t offset) {
  // A fresh mov each time (ptxas folds them): a base read once inside one branch would be unset in
  // the other.
  Reg base = e.dynamicSharedBase();
  if (offset == 0) return base;
  Reg at = e.reg(RegClass::B32);
  e.inst("add.u32", {at, base, offset});
  return at;
}

void Codegen::reserveBuffer(const ir::Op& alloc) {
  if (!alloc.hasAttr("offset")) codegenBug(alloc, "a buffer without an offset (allocate_shared places every buffer)");
  const ir::Type& t = alloc.result(0)->type;
  scratchBytes_ = std::max(scratchBytes_, (alloc.intAttr("offset") + t.slots * t.slotStride() + 15) / 16 * 16);
}

void Codegen::noteSum(Reg r, Reg base, int64_t constant) {
  if (r.cls != RegClass::B32 || (base.valid() && base.cls != RegClass::B32)) bug({}, "a sum of other than .b32 registers");
  sums_[r.id] = Sum{base, constant};
}

std::optional<Codegen::Sum> Codegen::sumOf(Reg r) const {
  if (r.cls != RegClass::B32) return std::nullopt;
  auto it = sums_.find(r.id);
  if (it == sums_.end()) return std::nullopt;
  return it->second;
}

void Codegen::barrier() {
  ptx::barSync(e, barrierId_, barrierId_ ? numWarps * 32 : 0);
}

// ---------------------------------------------------------------- dispatch

void Codegen::lowerBlock(const ir::Block& b) {
  if (++depth_ > kMaxNesting) {
    SourceLoc loc = b.parentOp ? b.parentOp->loc : fn.loc;
    throw CompileError(loc, "kernel '" + fn.name + "': control flow nested more than " +
                                std::to_string(kMaxNesting) + " deep");
  }
  auto outer = coordCache_;
  for (const auto& op : b.ops) lowerOp(*op);
  coordCache_ = std::move(outer);
  --depth_;
}

void Codegen::relowerOnOneSide(const std::vector<const ir::Op*>& ops, const std::function<void()>& use) {
  auto cache = coordCache_;
  std::vector<std::pair<const ir::Value*, std::vector<Reg>>> saved;
  for (const ir::Op* op : ops)
    for (const auto& r : op->results)
      if (auto it = regs_.find(r.get()); it != regs_.end()) saved.emplace_back(r.get(), it->second);
  for (const ir::Op* op : ops) lowerOp(*op);
  use();
  for (auto& [v, r] : saved) regs_[v] = std::move(r);
  coordCache_ = std::move(cache);
}

void Codegen::lowerOp(const ir::Op& op) {
  switch (ir::familyOf(op.opcode)) {
    case ir::Family::Constant: case ir::Family::Cast: case ir::Family::Arith: case ir::Family::Bitwise:
    case ir::Family::Math: case ir::Family::Compare:
      return lowerElementwise(*this, op);
    case ir::Family::Index: case ir::Family::Shape: case ir::Family::Hint:
      return lowerShape(*this, op);
    case ir::Family::Pointer: case ir::Family::Memory:
      return lowerMemory(*this, op);
    case ir::Family::Control: case ir::Family::Terminator: case ir::Family::Assert:
      return lowerControl(*this, op);
    case ir::Family::Reduce: return lowerReduce(*this, op);
    case ir::Family::Dot: return lowerDot(*this, op);
    case ir::Family::Exchange: return lowerExchange(*this, op);
    case ir::Family::Layout: return lowerConvert(*this, op);
    case ir::Family::Shared: case ir::Family::Async: case ir::Family::Sync:
      return lowerSchedule(*this, op);
    case ir::Family::Mma: return lowerTensorCore(*this, op);
    case ir::Family::Partition: return lowerPartition(*this, op);
    case ir::Family::Asm: return lowerInlineAsm(*this, op);
  }
}

void Codegen::lowerPartitionBlock(const ir::Block& b, int firstWarp, int warps, int barrierId) {
  const Reg tid = tid_, warp = warp_;
  const int outerWarps = numWarps, outerBarrier = barrierId_;
  barrierId_ = barrierId;
  auto outerCache = std::move(coordCache_);
  coordCache_.clear();  // coordinates computed from the CTA's warp index mean nothing here
  if (firstWarp > 0) {
    tid_ = e.reg(RegClass::B32);
    warp_ = e.reg(RegClass::B32);
    e.inst("sub.u32", {tid_, tid, firstWarp * 32});
    e.inst("sub.u32", {warp_, warp, firstWarp});
  }
  numWarps = warps;
  lowerBlock(b);
  numWarps = outerWarps;
  barrierId_ = outerBarrier;
  tid_ = tid;
  warp_ = warp;
  coordCache_ = std::move(outerCache);
}

}  // namespace kiln::lower
