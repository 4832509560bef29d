// dot_accumulate: a dot from zeros whose only use is an addition becomes a dot into the addend, as
// Triton combines them:
//   add(c, dot(a, b, 0)), add(dot(a, b, 0), c) -> dot(a, b, c)
// `acc += tl.dot(a, b)` is how many kernels accumulate (Triton's grouped-GEMM tutorial among them);
// rewritten, the tensor cores accumulate into acc in place, so a loop carries one accumulator and not
// two, and its MMAs stay in flight across iterations. The rewrite happens in the Tile IR, so the
// interpreter computes the same dot (docs/semantics.md: a dot adds its products to its accumulator in
// k order) and the two agree. The new dot stands where the add stood, where a, b and c are all defined;
// the old dot is left without a use for dce.
#include "ir/constant_zero.h"
#include "passes/effects.h"
#include "passes/passes.h"

namespace kiln::passes {

using ir::Opcode;
using ir::Value;

namespace {

class DotAccumulate {
 public:
  explicit DotAccumulate(ir::Function& fn) : uses_(countUses(fn)) {}

  void runBlock(ir::Block& b) {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      ir::Op& op = *b.ops[i];
      for (auto& r : op.regions) runBlock(*r);
      if (op.opcode != Opcode::Add) continue;
      const int k = fromZeros(op, 0) ? 0 : fromZeros(op, 1) ? 1 : -1;
      if (k < 0) continue;
      ir::Op& dot = *op.operand(unsigned(k))->def;
      Value* c = op.operand(unsigned(1 - k));
      ir::Builder at(b, i);
      ir::Op* fused = at.create(Opcode::Dot, {dot.operand(0), dot.operand(1), c}, {op.result()->type}, dot.attrs, dot.loc);
      i = at.position();  // op now stands here
      ir::replaceAllUses(b, op.result(), fused->result(0));
      --uses_[dot.result()];
      removed_.push_back(b.remove(&op));
      --i;
    }
  }

 private:
  UseCounts uses_;
  std::vector<std::unique_ptr<ir::Op>> removed_;  // the replaced adds, freed when the pass ends

  // Operand k of `add` is a dot from zeros (+0 or -0, as Triton's matcher takes either) with no other
  // use, of the add's type.
  bool fromZeros(const ir::Op& add, unsigned k) {
    const Value* v = add.operand(k);
    const ir::Op* d = v->def;
    return d && d->opcode == Opcode::Dot && uses_[v] == 1 && ir::isConstantZero(d->operand(2)) &&
           v->type == add.result()->type && add.operand(1 - k)->type == v->type;
  }
};

}  // namespace

void dotAccumulate(ir::Function& fn) {
  DotAccumulate d(fn);
  d.runBlock(fn.body);
}

}  // namespace kiln::passes
