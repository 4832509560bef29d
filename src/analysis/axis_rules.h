// Transfer rules of the axis-info analysis: the facts of an op's result from its operands' facts.
// Shape, memory and hint ops are in axis_rules.cpp, integer and pointer arithmetic in axis_arith.cpp.
// Internal to src/analysis; every rule may assume the op passed the verifier.
#pragma once
#include <optional>
#include <vector>

#include "analysis/axis_info.h"
#include "ir/ir.h"

namespace kiln::analysis::rules {

// Facts of the single result of any op without regions (not store/yield/...: those have no result).
// Operands are given in order; the result still needs lattice::finish.
AxisInfo transfer(const ir::Op& op, const std::vector<const AxisInfo*>& operands);

// Integer and pointer arithmetic (axis_arith.cpp). `t` is the result type; operands are of the
// result's shape (a scalar condition of select is splat first).
std::optional<int64_t> foldInt(const ir::Op& op, const std::vector<const AxisInfo*>& in);
AxisInfo addSub(bool isSub, const AxisInfo& l, const AxisInfo& r, const ir::Type& t);
AxisInfo mul(const AxisInfo& l, const AxisInfo& r, const ir::Type& t);
AxisInfo div(const AxisInfo& l, const AxisInfo& r, const ir::Type& t);
AxisInfo rem(const AxisInfo& l, const AxisInfo& r, const ir::Type& t);
AxisInfo shift(bool left, const AxisInfo& l, const AxisInfo& r, const ir::Type& t);
AxisInfo bitwise(ir::Opcode op, const AxisInfo& l, const AxisInfo& r, const ir::Type& t);  // and or xor
AxisInfo minMax(bool isMin, const AxisInfo& l, const AxisInfo& r, const ir::Type& t);
AxisInfo unary(ir::Opcode op, const AxisInfo& x, const ir::Type& t);  // neg not abs
AxisInfo cmp(const ir::Op& op, const AxisInfo& l, const AxisInfo& r);
AxisInfo select(const AxisInfo& cond, const AxisInfo& a, const AxisInfo& b, const ir::Type& t);
AxisInfo ptrAdd(const AxisInfo& p, const AxisInfo& off, const ir::Type& t);
AxisInfo convert(bool isBitcast, const AxisInfo& x, const ir::Type& from, const ir::Type& to);
// Any element-wise op: the result is constant where every operand is; nothing else is known.
AxisInfo elementwise(const std::vector<const AxisInfo*>& in, const ir::Type& t);

}  // namespace kiln::analysis::rules
