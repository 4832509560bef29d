// remat: cheap tiles are computed again after a loop instead of being carried through it. A tile
// computed before a `for`/`while` and read after it holds its registers for the whole loop: a
// 128-row epilogue's row indices (arange plus a scalar) are 128 registers per thread, taken from
// the loop's own tiles (an MMA accumulator), and ptxas spills rather than recompute them. So each
// use after a loop of a tile that is cheap to form from scalars reads a copy made right before it.
//
// - Cheap: arange, constant, splat, broadcast, expand_dims, and integer add, sub, mul, shl, and, or,
//   xor, min, max and ptr_add, whose tile operands are cheap too, at most kMaxOps ops in all; scalars
//   are the leaves (one register each, live anyway).
// - One copy per value and per stretch of the block after a loop, placed before the first use in the
//   stretch; later uses in the stretch share it. Uses inside a later op's regions count as uses of
//   that op. Uses before any loop keep the original, which goes when nothing reads it any more.
// - Only loops in the same block as the definition count: a use inside a loop body would compute the
//   copy every iteration (what licm undoes).
// Runs after cse, which would merge the copies back.
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "passes/effects.h"
#include "passes/passes.h"

namespace kiln::passes {

using ir::Opcode;

namespace {

constexpr int kMaxOps = 16;

bool cheapOp(const ir::Op& op) {
  switch (op.opcode) {
    case Opcode::Arange: case Opcode::Splat: case Opcode::Broadcast: case Opcode::ExpandDims:
    case Opcode::PtrAdd:
      return true;
    case Opcode::Constant:
      return op.result(0)->type.isTensor();
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Shl: case Opcode::And: case Opcode::Or:
    case Opcode::Xor: case Opcode::Min: case Opcode::Max:
      return op.result(0)->type.isInt();
    default:
      return false;
  }
}

// The number of ops in v's tile expression when it is cheap; 0 when it is not (or too large).
int cheapSize(const ir::Value* v, int budget) {
  if (!v->type.isTensor()) return 0;
  const ir::Op* op = v->def;
  if (!op || op->numResults() != 1 || !cheapOp(*op) || budget <= 0) return 0;
  int size = 1;
  for (const ir::Value* o : op->operands) {
    if (!o->type.isTensor()) continue;
    int s = cheapSize(o, budget - size);
    if (s == 0) return 0;
    size += s;
  }
  return size <= budget ? size : 0;
}

class Rematerializer {
 public:
  explicit Rematerializer(ir::Block& b) : block_(b) {}

  void run() {
    // Which top-level op (by index) reads each tile, itself or in its regions (once per op), and where
    // the loops are.
    std::vector<size_t> loops;
    std::vector<std::pair<ir::Value*, size_t>> reads;  // (value, index of the reading top-level op)
    for (size_t p = 0; p < block_.ops.size(); ++p) {
      ir::Op& top = *block_.ops[p];
      if (top.opcode == Opcode::For || top.opcode == Opcode::While) loops.push_back(p);
      std::unordered_set<const ir::Value*> seen;
      auto add = [&](ir::Op& op) {
        for (ir::Value* v : op.operands)
          if (v->type.isTensor() && seen.insert(v).second) reads.emplace_back(v, p);
      };
      add(top);
      for (auto& r : top.regions) ir::walk(*r, add);
    }
    std::vector<ir::Op*> tops;  // indices shift as copies go in: the ops and positions from before
    std::unordered_map<const ir::Op*, size_t> position;
    for (auto& op : block_.ops) position.emplace(op.get(), tops.size()), tops.push_back(op.get());
    for (auto [v, p] : reads) {
      if (!v->def || v->def->parent != &block_ || cheapSize(v, kMaxOps) == 0) continue;
      const size_t d = position.at(v->def);
      size_t segment = 0;  // the last loop between the definition and the read, plus one
      for (size_t l : loops)
        if (l > d && l < p) segment = l + 1;
      if (segment == 0) continue;
      ir::Op* reader = tops[p];
      ir::Value* copy = copyOf(v, segment, reader);
      replaceIn(*reader, v, copy);
    }
  }

 private:
  ir::Block& block_;
  std::map<std::pair<size_t, const ir::Value*>, ir::Value*> copies_;  // (segment, original) -> copy

  // v's copy for `segment`, made before `reader` (the first read in the segment) if there is none yet.
  ir::Value* copyOf(ir::Value* v, size_t segment, ir::Op* reader) {
    if (!v->type.isTensor()) return v;
    auto key = std::pair{segment, static_cast<const ir::Value*>(v)};
    if (auto it = copies_.find(key); it != copies_.end()) return it->second;
    const ir::Op& op = *v->def;
    std::vector<ir::Value*> operands;
    for (ir::Value* o : op.operands) operands.push_back(copyOf(o, segment, reader));
    ir::Builder b;
    b.setInsertionPointBefore(reader);
    ir::Value* copy = b.create1(op.opcode, operands, v->type, op.attrs, op.loc);
    copies_.emplace(key, copy);
    return copy;
  }

  static void replaceIn(ir::Op& reader, ir::Value* from, ir::Value* to) {
    for (ir::Value*& o : reader.operands)
      if (o == from) o = to;
    for (auto& r : reader.regions) ir::replaceAllUses(*r, from, to);
  }
};

void runBlock(ir::Block& b) {
  for (auto& op : b.ops)
    for (auto& r : op->regions) runBlock(*r);
  Rematerializer(b).run();
}

}  // namespace

void remat(ir::Function& fn) {
  runBlock(fn.body);
  removeUnusedPureOps(fn);
}

}  // namespace kiln::passes
