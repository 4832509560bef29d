// The summands of the integer offsets a pointer tile is built from, read from the IR: per dim,
// `(start + arange) * stride` (a `% M` wrap allowed on the index), and uniform scalars, `u` or `u *
// stride` with a stride parameter (`pid_m * BM * stride_am`; 64-bit offsets where they are 32-bit
// values sign-extended, `off_h.to(tl.int64) * stride_h`). Scalars are linear forms over the values they
// are computed from (scalar_form.h); pointer_box.h reads TMA boxes from these terms.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"
#include "schedule/scalar_form.h"

namespace kiln::schedule {

// One summand of an integer offset tile: (start + arange + j) * stride along `dim`, j = 0 .. size - 1
// (the arange's own start folded into `start`), or with dim < 0 a uniform scalar `start` (times a
// `stride` parameter where there is one: `pid_m * BM * stride_am` added to a base).
struct OffsetTerm {
  int dim = -1;
  int64_t size = 0;
  ScalarForm start;
  const ir::Value* stride = nullptr;  // null: strideValue
  int64_t strideValue = 1;
  const ir::Value* modulus = nullptr;  // the index taken % modulus (before the stride)
};

// `v` with layout conversions and hints looked through.
const ir::Value* throughLayouts(const ir::Value* v);

// A kernel parameter of type i32 (hints looked through), or null.
const ir::Value* i32Param(const ir::Value* v);

// Reads the terms of offsets used in the body of `loop` (whose induction variable its forms see as
// lower bound + step * n), or with no loop those of offsets anywhere (a store's, pointer_box.h).
class OffsetTerms {
 public:
  explicit OffsetTerms(const ir::Op* loop) : loop_(loop) {}

  std::optional<ScalarForm> form(const ir::Value* v) const { return scalarForm(v, loop_); }

  // The summands of integer tile (or scalar) `v`, or nothing.
  std::optional<std::vector<OffsetTerm>> terms(const ir::Value* v);

  // The summands of a 64-bit scalar offset computed from 32-bit scalars (`off_h.to(tl.int64) * stride_h`):
  // sign extensions of i32 forms, their sums, and their products with a constant or with an extended
  // stride parameter. Such products cannot wrap, so the forms over the 32-bit values are exact; anything
  // else (a 64-bit parameter or product of two indices) is nothing, no i32 coordinate holding it.
  std::optional<std::vector<OffsetTerm>> wide(const ir::Value* v);

 private:
  const ir::Op* loop_;

  // The i32 kernel parameter (hinted, as the kernel computes with it) that `v` sign-extends, or null.
  static const ir::Value* extendedParam(const ir::Value* v);
  // The terms of a 1-d index vector folded into one: the arange term with the uniform ones in its start.
  std::optional<std::vector<OffsetTerm>> vector(const ir::Value* v);
  // The scalar a splat (or a constant tile) holds, or null.
  static const ir::Value* scalarOf(const ir::Value* v);
  // index * stride, either way round: one index term times a splat scalar or a constant tile.
  std::optional<std::vector<OffsetTerm>> scaled(const ir::Value* a, const ir::Value* b);
};

}  // namespace kiln::schedule
