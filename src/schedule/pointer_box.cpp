// Pointer loads as TMA boxes (pointer_box.h).
#include "schedule/pointer_box.h"

#include <algorithm>

namespace kiln::schedule {

using ir::Opcode;
using ir::Value;

namespace {

// One summand of an integer offset tile: (start + arange + j) * stride along `dim`, j = 0 .. size - 1
// (the arange's own start folded into `start`), or with dim < 0 a uniform scalar `start` (times a
// `stride` parameter where there is one: `pid_m * BM * stride_am` added to a base).
struct Term {
  int dim = -1;
  int64_t size = 0;
  ScalarForm start;
  const Value* stride = nullptr;  // null: strideValue
  int64_t strideValue = 1;
  const Value* modulus = nullptr;  // the index taken % modulus (before the stride)
};

bool isLayoutOnly(Opcode op) { return op == Opcode::ConvertLayout || ir::familyOf(op) == ir::Family::Hint; }

// `v` with layout conversions and hints looked through.
const Value* throughLayouts(const Value* v) {
  while (v->def && isLayoutOnly(v->def->opcode)) v = v->def->operand(0);
  return v;
}

// A kernel parameter of type i32 (hints looked through), or null.
const Value* i32Param(const Value* v) {
  v = throughLayouts(v);
  return v->isBlockArg() && v->owner->parentFunc && v->type.elem == ir::Scalar::I32 && !v->type.isTensor() ? v : nullptr;
}

class Decomposer {
 public:
  explicit Decomposer(const ir::Op& loop) : loop_(loop) {}

  std::optional<ScalarForm> form(const Value* v) const { return scalarForm(v, &loop_); }

  // The summands of integer tile (or scalar) `v`, or nothing.
  std::optional<std::vector<Term>> terms(const Value* v) {
    while (v->def && isLayoutOnly(v->def->opcode)) v = v->def->operand(0);
    if (!v->type.isTensor() && v->type.elem == ir::Scalar::I64) return wide(v);
    if (!v->type.isTensor()) {
      if (v->def && v->def->opcode == Opcode::Mul) {  // a product of two forms: u * a stride parameter?
        std::optional<ScalarForm> a = form(v->def->operand(0)), b = form(v->def->operand(1));
        if (a && b && !a->isConstant() && !b->isConstant())
          if (std::optional<std::vector<Term>> t = scaled(v->def->operand(0), v->def->operand(1))) return t;
      }
      std::optional<ScalarForm> f = scalarForm(v, &loop_);  // (what it cannot see into is an atom)
      if (!f) return std::nullopt;
      return std::vector<Term>{Term{-1, 0, *f}};
    }
    if (v->type.elem != ir::Scalar::I32 || !v->def) return std::nullopt;
    const ir::Op& d = *v->def;
    switch (d.opcode) {
      case Opcode::Constant:
        return std::vector<Term>{Term{-1, 0, ScalarForm::of(d.intAttr("value"))}};
      case Opcode::Splat:
        return terms(d.operand(0));
      case Opcode::Arange:
        return std::vector<Term>{Term{0, d.intAttr("end") - d.intAttr("start"), ScalarForm::of(d.intAttr("start"))}};
      case Opcode::Broadcast:
        return terms(d.operand(0));
      case Opcode::ExpandDims: {
        std::optional<std::vector<Term>> in = vector(d.operand(0));
        if (!in) return std::nullopt;
        for (Term& t : *in)
          if (t.dim >= 0 && t.dim >= d.intAttr("axis")) ++t.dim;
        return in;
      }
      case Opcode::Add: {
        std::optional<std::vector<Term>> a = terms(d.operand(0)), b = terms(d.operand(1));
        if (!a || !b) return std::nullopt;
        a->insert(a->end(), b->begin(), b->end());
        return a;
      }
      case Opcode::Mul:
        return scaled(d.operand(0), d.operand(1));
      case Opcode::Rem: {
        std::optional<std::vector<Term>> a = vector(d.operand(0));
        const Value* m = scalarOf(d.operand(1));
        if (!a || !m || a->size() != 1 || (*a)[0].modulus || (*a)[0].stride || (*a)[0].strideValue != 1) return std::nullopt;
        (*a)[0].modulus = m;
        return a;
      }
      default:
        return std::nullopt;
    }
  }

  // The summands of a 64-bit scalar offset computed from 32-bit scalars (`off_h.to(tl.int64) * stride_h`):
  // sign extensions of i32 forms, their sums, and their products with a constant or with an extended
  // stride parameter. Such products cannot wrap, so the forms over the 32-bit values are exact; anything
  // else (a 64-bit parameter or product of two indices) is nothing, no i32 coordinate holding it.
  std::optional<std::vector<Term>> wide(const Value* v) {
    v = throughLayouts(v);
    const ir::Op* d = v->def;
    if (!d) return std::nullopt;
    switch (d->opcode) {
      case Opcode::Constant:
        return std::vector<Term>{Term{-1, 0, ScalarForm::of(d->intAttr("value"))}};
      case Opcode::Cast:
        if (d->operand(0)->type.isTensor() || d->operand(0)->type.elem != ir::Scalar::I32) return std::nullopt;
        return terms(d->operand(0));
      case Opcode::Add: {
        std::optional<std::vector<Term>> a = wide(d->operand(0)), b = wide(d->operand(1));
        if (!a || !b) return std::nullopt;
        a->insert(a->end(), b->begin(), b->end());
        return a;
      }
      case Opcode::Mul:
        for (int swap = 0; swap < 2; ++swap) {
          const Value* x = d->operand(swap), *y = d->operand(1 - swap);
          std::optional<std::vector<Term>> a = wide(x);
          if (!a || a->size() != 1) continue;
          Term t = (*a)[0];
          const Value* stride = extendedParam(y);
          if (stride && !t.stride && !t.start.isConstant()) {
            t.stride = stride;
            return std::vector<Term>{t};
          }
          std::optional<std::vector<Term>> k = wide(y);
          if (!k || k->size() != 1 || (*k)[0].stride || !(*k)[0].start.isConstant()) continue;
          t.start = t.start.scaled((*k)[0].start.constant);
          return std::vector<Term>{t};
        }
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

 private:
  const ir::Op& loop_;

  // The i32 kernel parameter (hinted, as the kernel computes with it) that `v` sign-extends, or null.
  static const Value* extendedParam(const Value* v) {
    v = throughLayouts(v);
    if (!v->def || v->def->opcode != Opcode::Cast) return nullptr;
    return i32Param(v->def->operand(0)) ? v->def->operand(0) : nullptr;
  }

  // The terms of a 1-d index vector folded into one: the arange term with the uniform ones in its start.
  std::optional<std::vector<Term>> vector(const Value* v) {
    std::optional<std::vector<Term>> in = terms(v);
    if (!in) return std::nullopt;
    if (v->type.rank() != 1) return in;
    Term out;
    for (const Term& t : *in) {
      if (t.dim < 0) {
        if (t.stride || out.modulus || out.stride || out.strideValue != 1) return std::nullopt;
        out.start.add(t.start);
        continue;
      }
      if (out.dim >= 0) return std::nullopt;  // two aranges along one dim
      ScalarForm start = out.start;
      out = t;
      out.start.add(start);
    }
    if (out.dim < 0) return std::nullopt;
    return std::vector<Term>{out};
  }

  // The scalar a splat (or a constant tile) holds, or null.
  static const Value* scalarOf(const Value* v) {
    while (v->def && isLayoutOnly(v->def->opcode)) v = v->def->operand(0);
    if (!v->type.isTensor()) return v;
    return v->def && v->def->opcode == Opcode::Splat ? v->def->operand(0) : nullptr;
  }

  // index * stride, either way round: one index term times a splat scalar or a constant tile.
  std::optional<std::vector<Term>> scaled(const Value* a, const Value* b) {
    for (int swap = 0; swap < 2; ++swap, std::swap(a, b)) {
      const Value* s = scalarOf(b);
      std::optional<int64_t> c;
      if (const Value* u = b; u->def && u->def->opcode == Opcode::Constant && u->type.isInt()) c = u->def->intAttr("value");
      if (!s && !c) continue;
      std::optional<std::vector<Term>> in = terms(a);
      if (!in) return std::nullopt;
      if (in->size() == 1 && (*in)[0].dim < 0) {  // a uniform product: its own form, or times a stride
        if ((*in)[0].stride) return std::nullopt;
        std::optional<ScalarForm> k = s ? scalarForm(s, &loop_) : ScalarForm::of(*c);
        if (!k) return std::nullopt;
        if (!k->isConstant() && !(*in)[0].start.isConstant()) {
          if (!s || !i32Param(s)) continue;  // (the other way round, the parameter may be `a`)
          (*in)[0].stride = s;
          return in;
        }
        (*in)[0].start = k->isConstant() ? (*in)[0].start.scaled(k->constant) : k->scaled((*in)[0].start.constant);
        return in;
      }
      if (in->size() != 1 || (*in)[0].stride || (*in)[0].strideValue != 1) return std::nullopt;
      std::optional<ScalarForm> k = s ? scalarForm(s, &loop_) : ScalarForm::of(*c);
      if (!k) return std::nullopt;
      if (k->isConstant()) (*in)[0].strideValue = k->constant;
      else (*in)[0].stride = s;
      return in;
    }
    return std::nullopt;
  }
};

// Whether one of the tile's dims has the stride parameter `stride`.
bool strideOfTile(const PointerBox& box, const Value* stride) {
  return std::any_of(box.dims.begin(), box.dims.end(), [&](const BoxDim& d) {
    return d.stride && throughLayouts(d.stride) == throughLayouts(stride);
  });
}

bool definedIn(const Value* v, const ir::Block& body) {
  const ir::Block* b = v->def ? v->def->parent : v->owner;
  for (; b; b = b->parentOp ? b->parentOp->parent : nullptr)
    if (b == &body) return true;
  return false;
}

std::optional<IndexRun> indexRun(Decomposer& dec, const Value* index) {
  std::optional<std::vector<Term>> terms = dec.terms(index);
  if (!terms) return std::nullopt;
  IndexRun run;
  for (const Term& t : *terms) {
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

void conjuncts(Decomposer& dec, const Value* mask, std::vector<std::optional<IndexBound>>& out) {
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
bool maskExtents(Decomposer& dec, const Value* mask, const Value* n, PointerBox& box) {
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
  Decomposer dec(loop);
  std::vector<std::optional<IndexBound>> out;
  conjuncts(dec, mask, out);
  return out;
}

std::optional<PointerBox> pointerBox(const ir::Op& forOp, const ir::Op& load) {
  const ir::Block& body = forOp.region(0);
  const ir::Value* n = iterationAtom(forOp);
  const int rank = load.result(0)->type.rank();
  Decomposer dec(forOp);

  // The pointer: base + offsets, through the advancing body argument (its initial tile, advanced by a
  // uniform step per iteration) or computed in the body.
  PointerBox box;
  std::vector<Term> terms;
  const Value* p = load.operand(0);
  std::optional<ScalarForm> advance;
  for (int guard = 0; guard < 16; ++guard) {
    p = throughLayouts(p);
    if (p->isBlockArg() && p->owner == &body) {  // a loop-carried tile: its init, advanced per iteration
      const ir::Op* y = body.terminator();
      const Value* next = throughLayouts(y->operand(p->index - 1));
      if (advance || !next->def || next->def->opcode != Opcode::PtrAdd || throughLayouts(next->def->operand(0)) != p) return std::nullopt;
      std::optional<std::vector<Term>> step = dec.terms(next->def->operand(1));
      if (!step || step->size() != 1 || (*step)[0].dim >= 0 || (*step)[0].stride || (*step)[0].start.coefficient(n) != 0)
        return std::nullopt;
      advance = (*step)[0].start;
      p = forOp.operand(3 + (p->index - 1));
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
        std::optional<std::vector<Term>> t = dec.terms(throughLayouts(base)->def->operand(1));
        if (!t) return std::nullopt;
        terms.insert(terms.end(), t->begin(), t->end());
      }
      if (!throughLayouts(base)->isBlockArg() || !throughLayouts(base)->owner->parentFunc) return std::nullopt;
      box.base = base;
      break;
    }
    if (p->def->opcode != Opcode::PtrAdd) return std::nullopt;
    std::optional<std::vector<Term>> t = dec.terms(p->def->operand(1));
    if (!t) return std::nullopt;
    terms.insert(terms.end(), t->begin(), t->end());
    p = p->def->operand(0);
  }
  if (!box.base) return std::nullopt;

  // One term per dim; uniform summands go to the dim whose stride they are a multiple of.
  box.dims.resize(size_t(rank));
  std::vector<bool> seen(size_t(rank), false);
  std::vector<std::pair<ScalarForm, const Value*>> uniform;  // u, or u * stride
  for (const Term& t : terms) {
    if (t.dim < 0) {
      uniform.emplace_back(t.start, t.stride);
      continue;
    }
    if (t.dim >= rank || seen[size_t(t.dim)] || t.size != load.result(0)->type.shape[size_t(t.dim)]) return std::nullopt;
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
  if (load.numOperands() > 1 && !maskExtents(dec, load.operand(1), n, box)) return std::nullopt;

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

}  // namespace kiln::schedule
