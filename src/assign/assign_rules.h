// Layout assignment, internal: what each op asks of the layouts of its operands and result (the GPU IR
// contract of docs/layouts.md as functions), the coalesced and default layouts, and a pool that shares
// one LinearLayout object per distinct layout. Used by the propagation, the conversion insertion and
// the contract checker, so all three read the rules from one place.
#pragma once
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/axis_info.h"
#include "ir/ir.h"
#include "layout/linear_layout.h"
#include "ptx/builder.h"

namespace kiln::lower::assign {

using Layout = layout::LinearLayout;
using LayoutRef = std::shared_ptr<const Layout>;

// How an op relates the layouts of its tile operands and results.
enum class LayoutRule {
  Elementwise,  // every tile operand and the result share one layout (also load, multiple_of, ...)
  Source,       // splat, arange, constant: any result layout
  Broadcast,
  ExpandDims,
  Reshape,
  Permute,
  Reduce,       // result = sliceLayout(operand, axis)
  Combine,      // reduce_combine, scan, sort: every operand in combineOperand's layout; results combineResult's
  Dot,          // lower::dotLayout for a, b, acc and result
  Exchange,     // gather: the index in the result's layout, src in any; histogram: operand and result free
  Load,         // element-wise, and the anchor of a coalesced layout (also atomic_rmw, atomic_cas)
  Store,        // ptr, value and mask share one layout (the store's coalesced anchor)
  Convert,      // convert_layout: any layout to any layout
  ControlFlow,  // for, if, while: results, region arguments, inits and yields tie together
  Terminator,   // yield, condition, return (checked by their parent)
  Free,         // no layout rule: program_id, num_programs, assert, debug_barrier
};
LayoutRule layoutRuleOf(ir::Opcode op);

// ---- the shape ops' layout transformations (result <-> operand)
// broadcast: the operand's layout for result layout `result`: the broadcast dims' components zeroed
// and those out dims of size 1 (same register count).
Layout broadcastOperand(const Layout& result, const std::vector<int64_t>& operandShape);
// expand_dims: the operand's layout from the result's (out dim `axis` removed, every register kept),
// and the result's from the operand's (a size-1 out dim inserted at `axis`).
Layout expandDimsOperand(const Layout& result, int axis);
Layout expandDimsResult(const Layout& operand, int axis);
// reshape (row-major) to `shape`: the same registers, out dims re-split; its own inverse.
Layout reshapeLayout(const Layout& l, const std::vector<int64_t>& shape);
// permute: result dim i = operand dim order[i].
Layout permuteResult(const Layout& operand, const std::vector<int64_t>& order);
Layout permuteOperand(const Layout& result, const std::vector<int64_t>& order);

// The layout operand `i` of `op` must have when its result (result 0) has layout `result`, for the ops
// whose operands follow their result: element-wise, load, broadcast, expand_dims, reshape, permute.
// nullopt for scalar operands and other families.
std::optional<Layout> operandFromResult(const ir::Op& op, unsigned i, const Layout& result);
// The result layout an op gets from operand `i`'s layout: element-wise, load, expand_dims, reshape,
// permute, reduce (a tile result). nullopt where the operand does not decide it.
std::optional<Layout> resultFromOperand(const ir::Op& op, unsigned i, const Layout& operand);

// reduce_combine, scan and sort combine elements in axis order: every tile operand takes the first
// operand's layout `first` when it holds the axis in order (layout/axis_bits.h), else the default layout;
// result `i` is that layout (scan, sort), its slice without the axis (reduce_combine) or its first k
// coordinates along the axis (a top-k sort: layout::truncateDim).
Layout combineOperand(const ir::Op& op, const Layout& first);
Layout combineResult(const ir::Op& op, const Layout& operand);

// A pointer tile's dims by decreasing contiguity (ties: the later dim first, as in a row-major tile):
// the order its accesses are coalesced in.
std::vector<int32_t> coalescedOrder(const analysis::AxisInfo& info);
// The coalesced blocked layout of an access through pointer tile `ptr`: dims in coalescedOrder, vectors of vectorElements(ptr, fastest dim) elements bounded
// by the elements each thread holds, then 32 lanes and numWarps warps along the fastest dims.
Layout coalescedLayout(const ir::Value* ptr, const analysis::AxisInfoAnalysis& axis, int numWarps);
// The layout of a tile nothing asks anything of: row-major, 1..4 elements per thread.
Layout defaultLayout(const std::vector<int64_t>& shape, int numWarps);

// Reads the layout pointer of a value's type; throws InternalError (naming `op`) when a tile has none.
const Layout& layoutOf(const ir::Value* v, const ir::Op& op);

// One shared object per distinct layout, so types that agree share storage.
class LayoutPool {
 public:
  LayoutRef intern(const Layout& l);

 private:
  std::unordered_map<Layout, LayoutRef> pool_;
};

// For, if and while: which values must share one layout. `tie` lists, for each iteration value, the
// group: results, region arguments, and the operands that flow in (inits, yields, condition values).
struct Tie {
  std::vector<ir::Value*> defs;      // values the group defines: results and region arguments
  std::vector<ir::Op*> users;        // ops passing a value into the group ...
  std::vector<unsigned> operandIdx;  // ... as this operand
};
// The ties of one control-flow op (for, if, while), in a fixed order.
std::vector<Tie> tiesOf(ir::Op& op);

// ---- the steps of assignLayouts (assign_layouts.cpp runs them in this order)

// What the propagation decided: a layout for every tile value of the function, and the anchors of
// the ops whose operands are fixed by something other than their result (stores, dots).
struct Choice {
  std::unordered_map<const ir::Value*, LayoutRef> layouts;
  std::unordered_map<const ir::Op*, LayoutRef> storeLayouts;              // per store: its coalesced layout
  std::unordered_map<const ir::Op*, std::vector<LayoutRef>> dotLayouts;  // per dot: a, b, acc (= result)
};
// Decides the layouts (assign_propagate.cpp); does not change `fn`.
Choice chooseLayouts(ir::Function& fn, const analysis::AxisInfoAnalysis& axis, int numWarps,
                     const ptx::Target& target, LayoutPool& pool);
// Writes the chosen layouts into the types, then inserts a convert_layout after the definition of each
// value that some op needs in another layout (one per value and layout), and rewires the users.
void insertConversions(ir::Function& fn, const Choice& choice);
// Drops conversions to the same layout, folds chains, and replaces a conversion of a cheap value
// (splat, constant, arange, and small element-wise slices over them) by recomputing it in the target
// layout when the conversion would move data.
void removeRedundantConversions(ir::Function& fn, LayoutPool& pool);

}  // namespace kiln::lower::assign
