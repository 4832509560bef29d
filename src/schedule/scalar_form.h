// Integer scalars as linear forms c + k1 * a1 + k2 * a2 + ... over the values ("atoms") they are
// computed from by add, sub and multiplication by constants, so that two computations can be compared
// (`K - k * BK + k * BK` is `K`). Arithmetic wraps as the i32 it stands for, so equal forms are equal
// values. Atoms are values with hints looked through; inside a loop the induction variable stands for
// lower bound + step * n, with the loop's body argument 0 as the atom n (the iteration count), when the
// step is a constant.
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace kiln::schedule {

struct ScalarForm {
  int64_t constant = 0;
  std::vector<std::pair<const ir::Value*, int64_t>> terms;  // atom, coefficient (never 0); first use first

  static ScalarForm of(int64_t c) { return ScalarForm{c, {}}; }
  static ScalarForm atom(const ir::Value* v) { return ScalarForm{0, {{v, 1}}}; }

  ScalarForm& add(const ScalarForm& o, int64_t scale = 1);
  ScalarForm scaled(int64_t k) const;
  int64_t coefficient(const ir::Value* atom) const;
  ScalarForm without(const ir::Value* atom) const;  // the form with that atom's term dropped
  bool isConstant() const { return terms.empty(); }
  // The one atom of a form `atom` (coefficient 1, constant 0), or null.
  const ir::Value* soleAtom() const;
  bool operator==(const ScalarForm& o) const;
};

// `v` with hints (multiple_of, max_contiguous, ...) looked through: the value they annotate.
const ir::Value* unhinted(const ir::Value* v);

// The form of scalar `v` of type i32. With `loop` (a `for` with a constant step), its induction
// variable reads as lower bound + step * n (atom: the body's argument 0).
std::optional<ScalarForm> scalarForm(const ir::Value* v, const ir::Op* loop = nullptr);

// Computes `f` as i32 ops at `b`; the atom n of `loop` (when the form has one) as (iv - lower bound) /
// step, from the induction variable `iv` given, or k * n as (k / step) * (iv - lower bound) where the
// step divides k (no division).
ir::Value* emitForm(ir::Builder& b, const ScalarForm& f, const ir::Op* loop, ir::Value* iv, const SourceLoc& loc);

}  // namespace kiln::schedule
