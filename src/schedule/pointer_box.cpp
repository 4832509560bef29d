// Pointer loads as TMA boxes (pointer_box.h).
#include "schedule/pointer_box.h"

#include <algorithm>

#include "schedule/offset_terms.h"

namespace kiln::schedule {

using ir::Opcode;
using ir::Value;

namespace {

// Whether one of the tile's dims has the stride parameter `stride`.
bool strideOfTile(const PointerBox& box, const Value* stride) {
  return std::any_of(box.dims.begin(), box.dims.end(), [&](const BoxDim& d) {
    return d.stride && throughLayouts(d.stride) == throughLayouts(stride);
  });
}

bool definedIn(const Value* v, const ir::Block* body) {
  const ir::Block* b = v->def ? v->def->parent : v->owner;
  for (; body && b; b = b->parentOp ? b->parentOp->parent : nullptr)
    if (b == body) return true;
  return false;
}

std::optional<IndexRun> indexRun(OffsetTerms& dec, const Value* index) {
  std::optional<std::vector<OffsetTerm>> terms = dec.terms(index);
  if (!terms) return std::nullopt;
  IndexRun run;
  for (const OffsetTerm& t : *terms) {
    if (t.dim < 0 && t.stride) return std::nullopt;
    if (t.dim >= 0 && run.dim >= 0) return std::nullopt;
    if (t.dim >= 0 && (t.stride || t.strideValue != 1 || t.modulus)) return std::nullopt;
    if (t.dim >= 0) {
      run.dim = t.dim;
      run.size = t.size;
    }
    run.start.add(t.start);
  }
  if (run.dim < 0) return std::nullopt;
  return run;
}

void conjuncts(OffsetTerms& dec, const Value* mask, std::vector<std::optional<IndexBound>>& out) {
  mask = throughLayouts(mask);
  const ir::Op* d = mask->def;
  if (d && d->opcode == Opcode::Broadcast) return conjuncts(dec, d->operand(0), out);
  if (d && d->opcode == Opcode::And) {
    conjuncts(dec, d->operand(0), out);
    return conjuncts(dec, d->operand(1), out);
  }
  out.emplace_back();
  if (!d || d->opcode != Opcode::Cmp || !mask->type.isTensor()) return;
  const std::string& pred = d->strAttr("pred");
  if (pred != "lt" && pred != "gt") return;
  const Value* bound = throughLayouts(d->operand(pred == "lt" ? 1 : 0));
  if (!bound->def || bound->def->opcode != Opcode::Splat) return;
  std::optional<ScalarForm> limit = dec.form(bound->def->operand(0));
  std::optional<IndexRun> index = indexRun(dec, d->operand(pred == "lt" ? 0 : 1));
  if (limit && index) out.back() = IndexBound{std::move(*index), std::move(*limit)};
}

// Reads the mask `mask` of a load whose box is `box` (starts placed): each `index < bound` along one dim
// sets that dim's extent to bound - index start + coordinate start, which must not move with n and be
// a kernel parameter or a positive constant. False when the mask is anything else.
bool maskExtents(OffsetTerms& dec, const Value* mask, const Value* n, PointerBox& box) {
  if (!mask->type.isTensor() || mask->type.rank() != int(box.dims.size())) return false;
  std::vector<std::optional<IndexBound>> all;
  conjuncts(dec, mask, all);
  for (const std::optional<IndexBound>& c : all) {
    if (!c) return false;
    BoxDim& bd = box.dims[size_t(c->index.dim)];
    if (c->index.size != bd.size || bd.extentParam || bd.extentValue != kUnbounded) return false;
    ScalarForm extent = c->bound;
    extent.add(c->index.start, -1).add(bd.start);
    if (extent.coefficient(n) != 0) return false;
    if (const Value* p = extent.soleAtom(); p && i32Param(p)) bd.extentParam = i32Param(p);
    else if (extent.isConstant() && extent.constant >= 1) bd.extentValue = extent.constant;
    else return false;
  }
  return true;
}

}  // namespace

int PointerBox::contiguousDim() const {
  for (size_t d = 0; d < dims.size(); ++d)
    if (!dims[d].stride && dims[d].strideValue == 1) return int(d);
  return -1;
}

const ir::Value* iterationAtom(const ir::Op& forOp) { return forOp.region(0).arg(0); }

std::vector<std::optional<IndexBound>> maskConjuncts(const ir::Op& loop, const ir::Value* mask) {
  OffsetTerms dec(&loop);
  std::vector<std::optional<IndexBound>> out;
  conjuncts(dec, mask, out);
  return out;
}

namespace {

// The box of a tile of `shape` at `pointer` under `mask` (or null), read in the body of `forOp` (whose
// iteration it may advance with) or, with no loop, once.
std::optional<PointerBox> boxOf(const ir::Op* forOp, const Value* pointer, const Value* mask,
                                const std::vector<int64_t>& shape) {
  const ir::Block* body = forOp ? &forOp->region(0) : nullptr;
  const ir::Value* n = forOp ? iterationAtom(*forOp) : nullptr;
  const int rank = int(shape.size());
  OffsetTerms dec(forOp);

  // The pointer: base + offsets, through the advancing body argument (its initial tile, advanced by a
  // uniform step per iteration) or computed in the body.
  PointerBox box;
  std::vector<OffsetTerm> terms;
  const Value* p = pointer;
  std::optional<ScalarForm> advance;
  for (int guard = 0; guard < 16; ++guard) {
    p = throughLayouts(p);
    if (body && p->isBlockArg() && p->owner == body) {  // a loop-carried tile: its init, advanced per iteration
      const ir::Op* y = body->terminator();
      const Value* next = throughLayouts(y->operand(p->index - 1));
      if (advance || !next->def || next->def->opcode != Opcode::PtrAdd || throughLayouts(next->def->operand(0)) != p) return std::nullopt;
      std::optional<std::vector<OffsetTerm>> step = dec.terms(next->def->operand(1));
      if (!step || step->size() != 1 || (*step)[0].dim >= 0 || (*step)[0].stride || (*step)[0].start.coefficient(n) != 0)
        return std::nullopt;
      advance = (*step)[0].start;
      p = forOp->operand(3 + (p->index - 1));
      continue;
    }
    if (!p->def) return std::nullopt;
    if (p->def->opcode == Opcode::Broadcast) {  // a pointer column (or row) spread over the tile
      p = p->def->operand(0);
      continue;
    }
    if (p->def->opcode == Opcode::Splat) {  // the base, a parameter plus scalar offsets (`a_ptr += ...`)
      const Value* base = p->def->operand(0);
      for (; throughLayouts(base)->def && throughLayouts(base)->def->opcode == Opcode::PtrAdd;
           base = throughLayouts(base)->def->operand(0)) {
        std::optional<std::vector<OffsetTerm>> t = dec.terms(throughLayouts(base)->def->operand(1));
        if (!t) return std::nullopt;
        terms.insert(terms.end(), t->begin(), t->end());
      }
      if (!throughLayouts(base)->isBlockArg() || !throughLayouts(base)->owner->parentFunc) return std::nullopt;
      box.base = base;
      break;
    }
    if (p->def->opcode != Opcode::PtrAdd) return std::nullopt;
    std::optional<std::vector<OffsetTerm>> t = dec.terms(p->def->operand(1));
    if (!t) return std::nullopt;
    terms.insert(terms.end(), t->begin(), t->end());
    p = p->def->operand(0);
  }
  if (!box.base) return std::nullopt;

  // One term per dim; uniform summands go to the dim whose stride they are a multiple of.
  box.dims.resize(size_t(rank));
  std::vector<bool> seen(size_t(rank), false);
  std::vector<std::pair<ScalarForm, const Value*>> uniform;  // u, or u * stride
  for (const OffsetTerm& t : terms) {
    if (t.dim < 0) {
      uniform.emplace_back(t.start, t.stride);
      continue;
    }
    if (t.dim >= rank || seen[size_t(t.dim)] || t.size != shape[size_t(t.dim)]) return std::nullopt;
    seen[size_t(t.dim)] = true;
    BoxDim& d = box.dims[size_t(t.dim)];
    d.size = t.size;
    d.start = t.start;
    d.stride = t.stride;
    d.strideValue = t.strideValue;
    if (t.modulus && !(d.modulus = i32Param(t.modulus))) return std::nullopt;
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end()) return std::nullopt;
  // A uniform summand u (the advance: n * u) moves the coordinates of the dim whose stride it is a
  // multiple of: u * stride with that stride parameter, u = q * stride, or a constant u with the stride
  // 1; any other u (not the advance) the stride-1 dim's, which reads the same addresses (`x_tile + k`,
  // k the induction variable).
  auto place = [&](const ScalarForm& u, const Value* stride, bool perIteration) {
    if (stride && !perIteration && !strideOfTile(box, stride)) {  // a dim the tile does not span
      for (BoxDim& d : box.outer)
        if (throughLayouts(d.stride) == throughLayouts(stride)) {
          d.start.add(u);
          return true;
        }
      box.outer.push_back(BoxDim{1, u, stride});
      return box.outer.size() <= 3;
    }
    for (BoxDim& d : box.dims) {
      if (d.modulus) continue;
      if (stride) {
        if (d.stride && throughLayouts(d.stride) == throughLayouts(stride) && !perIteration) {
          d.start.add(u);
          return true;
        }
        continue;
      }
      std::optional<int64_t> q;
      if (!d.stride && d.strideValue == 1 && u.isConstant()) q = u.constant;
      else if (d.stride && u.constant == 0 && u.terms.size() == 1 && u.terms[0].first == throughLayouts(d.stride)) q = u.terms[0].second;
      if (!q) continue;
      d.start.add(perIteration ? ScalarForm::atom(n).scaled(*q) : ScalarForm::of(*q));
      return true;
    }
    if (stride || perIteration) return false;
    for (BoxDim& d : box.dims)
      if (!d.modulus && !d.stride && d.strideValue == 1) {
        d.start.add(u);
        return true;
      }
    return u.isConstant() && u.constant == 0;
  };
  for (const auto& [u, stride] : uniform)
    if (!place(u, stride, false)) return std::nullopt;
  if (advance && !place(*advance, nullptr, true)) return std::nullopt;

  // The mask: a conjunction of `index < bound` along single dims, each TMA's extent for that dim.
  if (mask && !maskExtents(dec, mask, n, box)) return std::nullopt;

  // (the chain of adds was read from its last: the first-added offset goes outermost, as a kernel adds
  // a batch's before a head's)
  std::reverse(box.outer.begin(), box.outer.end());
  for (const BoxDim& d : box.outer)  // (unbounded: the kernel reads there whatever its mask)
    for (const auto& [atom, k] : d.start.terms)
      if (atom == n || definedIn(atom, body)) return std::nullopt;
  for (BoxDim& d : box.dims) {
    if (!d.extentParam && d.extentValue == kUnbounded && d.modulus) d.extentParam = d.modulus;
    const int64_t perIteration = d.start.coefficient(n);
    // Coordinates only grow, and a dim the loop moves along is bounded (copies past the end read zeros).
    if (perIteration < 0 || (perIteration > 0 && (d.modulus || (!d.extentParam && d.extentValue == kUnbounded))))
      return std::nullopt;
    for (const auto& [atom, k] : d.start.terms)
      if (atom != n && definedIn(atom, body)) return std::nullopt;
  }
  return box;
}

}  // namespace

std::optional<PointerBox> pointerBox(const ir::Op& forOp, const ir::Op& load) {
  return boxOf(&forOp, load.operand(0), load.numOperands() > 1 ? load.operand(1) : nullptr,
               load.result(0)->type.shape);
}

std::optional<PointerBox> storeBox(const ir::Op& store) {
  std::optional<PointerBox> box = boxOf(nullptr, store.operand(0), store.numOperands() > 2 ? store.operand(2) : nullptr,
                                        store.operand(1)->type.shape);
  if (!box) return std::nullopt;
  for (const BoxDim& d : box->dims)
    if (d.modulus) return std::nullopt;  // (a wrapped store writes where no box reaches)
  return box;
}

}  // namespace kiln::schedule
