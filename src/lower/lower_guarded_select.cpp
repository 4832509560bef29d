// A `select` on an index mask inside a loop (`tl.where(cols < n, x, y)` in a loop over blocks of n) is
// true everywhere in every iteration but the last: when analysis::allTrueGuard finds scalar terms that
// prove it, the per-element selects run only when the terms do not hold.
//
//   guard = AND of (lhs + c <= rhs + d), in 64 bits, from the loop's scalars
//   out[r] = a[r]                     (every distinct result register; ptxas mostly folds these)
//   @guard bra.uni done
//   out[r] = selp a[r], b[r], mask[r]
//   done:
//
// Flash attention's `where(valid, qk, -inf)` is 64 selects per thread and iteration at 64x64 per
// warpgroup; its guard is a few scalar instructions. A select outside loops, or with fewer than
// kMinSelects registers, keeps the plain form: there the branch would cost what it saves.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/index_bounds.h"
#include "lower/codegen.h"
#include "ptx/isel.h"

namespace kiln::lower {

using ptx::Reg;
using ptx::RegClass;

namespace {

constexpr int kMinSelects = 16;

bool insideLoop(const ir::Op& op) {
  for (const ir::Op* p = op.parentOp(); p; p = p->parentOp())
    if (p->opcode == ir::Opcode::For || p->opcode == ir::Opcode::While) return true;
  return false;
}

// value + offset as a 64-bit register (value: an i32 scalar, or null for zero).
Reg wide(Codegen& cg, const ir::Value* value, int64_t offset) {
  ptx::Entry& e = cg.e;
  Reg r = e.reg(RegClass::B64);
  if (!value) {
    e.inst("mov.b64", {r, offset});
    return r;
  }
  e.inst("cvt.s64.s32", {r, cg.regs(value).at(0)});
  if (offset != 0) e.inst("add.s64", {r, r, offset});
  return r;
}

Reg guardPredicate(Codegen& cg, const std::vector<analysis::GuardTerm>& terms) {
  ptx::Entry& e = cg.e;
  Reg all;
  for (const analysis::GuardTerm& t : terms) {
    Reg p = e.reg(RegClass::Pred);
    e.inst("setp.le.s64", {p, wide(cg, t.lhs, t.lhsOffset), wide(cg, t.rhs, t.rhsOffset)});
    if (all.valid()) e.inst("and.pred", {p, p, all});
    all = p;
  }
  return all;
}

// Of the ops the guard's proof read (the mask's computation), those to lower again behind the branch: the
// tensor ops of the select's own block, in program order (a layout conversion, a scalar, or anything
// defined before the block is read where it is).
std::vector<const ir::Op*> maskOps(const ir::Op& select, const std::vector<const ir::Op*>& read) {
  std::set<const ir::Op*> again;
  for (const ir::Op* op : read)
    if (op->parent == select.parent && op->opcode != ir::Opcode::ConvertLayout && op->result(0)->type.isTensor())
      again.insert(op);
  std::vector<const ir::Op*> ops;
  for (const auto& op : select.parent->ops)
    if (again.count(op.get())) ops.push_back(op.get());
  return ops;
}

// Whether the select may leave its result in a's registers and select into them: a is computed by an
// element-wise op of this block into registers of its own (no two elements share one, nor does any
// other value: perRegister allocates them), and the select is all that reads it.
bool canOverwrite(const ir::Op& select, const std::vector<Reg>& a) {
  const ir::Value* v = select.operand(1);
  const ir::Op* d = v->def;
  if (!d || d->parent != select.parent || !ir::isElementwise(d->opcode) || d->opcode == ir::Opcode::Select ||
      select.operand(0) == v || select.operand(2) == v)
    return false;
  std::set<int> ids;
  for (Reg r : a)
    if (!ids.insert(r.id).second) return false;
  int readers = 0;
  ir::walk(*select.parent, [&](ir::Op& op) { readers += int(std::count(op.operands.begin(), op.operands.end(), v)); });
  return readers == 1;
}

}  // namespace

bool lowerGuardedSelect(Codegen& cg, const ir::Op& op) {
  const ir::Value* res = op.result(0);
  if (!res->type.isTensor() || Codegen::numRegs(res->type) < kMinSelects || !insideLoop(op)) return false;
  std::vector<const ir::Op*> read;
  const std::optional<std::vector<analysis::GuardTerm>> terms = analysis::allTrueGuard(op.operand(0), &read);
  if (!terms || terms->empty()) return false;
  // regs() may form registers (codegen.h): fetched once, before the branch, and copied.
  const std::vector<Reg> c = cg.regs(op.operand(0)), a = cg.regs(op.operand(1)), b = cg.regs(op.operand(2));
  if (c.size() != a.size() || b.size() != a.size()) return false;
  ptx::Entry& e = cg.e;
  Reg guard = guardPredicate(cg, *terms);
  // One result register per distinct (mask, a, b) registers, as the plain form shares them; a's own
  // where nothing else reads them (no copies on the fast path, no extra registers live across it).
  const bool inPlace = canOverwrite(op, a);
  std::map<std::tuple<int, int, int>, Reg> shared;
  std::vector<Reg> out(a.size());
  std::vector<size_t> first;  // the indices that own a result register
  for (size_t r = 0; r < a.size(); ++r) {
    auto [it, added] = shared.try_emplace({c.at(r).id, a[r].id, b.at(r).id});
    if (added) it->second = inPlace ? a[r] : e.reg(a[r].cls), first.push_back(r);
    out[r] = it->second;
  }
  for (size_t r : first)
    if (out[r] != a[r]) e.mov(out[r], a[r]);
  ptx::Label done = e.newLabel("all_true");
  e.inst("bra.uni", {ptx::sym(done.name)}, ptx::when(guard));
  // The mask is computed again here, so that the fast path does not compute it (its first computation
  // is left without readers, and ptxas drops it): a causal mask is a compare per element.
  const ptx::ElementOp eop = ptx::elementOpOf(op, op.operand(1)->type.elem);
  cg.relowerOnOneSide(maskOps(op, read), [&] {
    const std::vector<Reg> mask = cg.regs(op.operand(0));
    for (size_t r : first) ptx::selectElementwise(e, eop, out[r], std::vector<Reg>{mask.at(r), a[r], b.at(r)});
  });
  e.label(done);
  cg.bind(res, std::move(out));
  return true;
}

}  // namespace kiln::lower
