// contract: floating-point contraction, as Triton does by default (enable_fp_fusion): a float `mul`
// whose only use is an `add` or `sub` of the same block becomes one `fma` with a single rounding.
//   add(mul(a, b), c), add(c, mul(a, b)) -> fma(a, b, c)
//   sub(mul(a, b), c)                     -> fma(a, b, neg(c))
//   sub(c, mul(a, b))                     -> fma(neg(a), b, c)
// `neg` is exact, and the GPU folds it into the fma's operand. The rewrite happens in the Tile IR, so
// the interpreter runs the same fused ops as the GPU and both round alike. A mul with other uses stays
// (fusing it would compute the product twice).
//   reduce(sum, mul(a, b))                -> the reduce gets contract = 1
// lets the GPU add each thread's products through a chain of fmas, as Triton's LLVM does: a float sum
// already rounds in the GPU's order, not the interpreter's (docs/semantics.md), so the interpreter
// keeps its own order and the mul.
#include <memory>
#include <unordered_map>
#include <vector>

#include "passes/effects.h"
#include "passes/passes.h"

namespace kiln::passes {

using ir::Opcode;
using ir::Value;

namespace {

bool contractible(const ir::Type& t) {
  using ir::Scalar;
  return t.elem == Scalar::F32 || t.elem == Scalar::F64 || t.elem == Scalar::F16 || t.elem == Scalar::BF16;
}

class Contract {
 public:
  explicit Contract(ir::Function& fn) : uses_(countUses(fn)) {}

  void runBlock(ir::Block& b) {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      ir::Op& op = *b.ops[i];
      for (auto& r : op.regions) runBlock(*r);
      if (op.opcode == Opcode::Reduce && op.strAttr("kind") == "sum" && productOf(b, op.operand(0)))
        op.setAttr("contract", int64_t(1));
      const bool add = op.opcode == Opcode::Add;
      if ((!add && op.opcode != Opcode::Sub) || !contractible(op.result()->type)) continue;
      // The operand that is the product: the first one when both are.
      const int k = fusable(b, op, 0) ? 0 : fusable(b, op, 1) ? 1 : -1;
      if (k < 0) continue;
      ir::Op& mul = *op.operand(unsigned(k))->def;
      Value *a = mul.operand(0), *x = mul.operand(1), *c = op.operand(unsigned(1 - k));
      ir::Builder at(b, i);
      if (!add) {
        Value*& negated = k == 0 ? c : a;
        negated = at.create1(Opcode::Neg, {negated}, negated->type, {}, op.loc);
      }
      Value* fma = at.create1(Opcode::Fma, {a, x, c}, op.result()->type, {}, op.loc);
      i = at.position();  // op now stands here
      ir::replaceAllUses(b, op.result(), fma);
      uses_[mul.result()] = 0;
      removed_.push_back(b.remove(&op));
      --i;
    }
  }

  // The fused muls have no use left: they go. (Only those: other dead ops are dce's.)
  void removeFusedMuls(ir::Block& b) {
    std::erase_if(b.ops, [&](const std::unique_ptr<ir::Op>& o) {
      auto it = uses_.find(o->opcode == Opcode::Mul ? o->result() : nullptr);
      return it != uses_.end() && it->second == 0;
    });
    for (auto& o : b.ops)
      for (auto& r : o->regions) removeFusedMuls(*r);
  }

 private:
  UseCounts uses_;
  std::vector<std::unique_ptr<ir::Op>> removed_;  // the replaced adds/subs, freed when the pass ends

  // v is a float mul of block b whose operands have its type, with no use but the one at hand.
  bool productOf(const ir::Block& b, const Value* v) {
    const ir::Op* d = v->def;
    return d && d->opcode == Opcode::Mul && d->parent == &b && uses_[v] == 1 && contractible(v->type) &&
           d->operand(0)->type == v->type && d->operand(1)->type == v->type;
  }

  // Operand k of op is a mul of the same block and type, with no other use.
  bool fusable(const ir::Block& b, const ir::Op& op, unsigned k) {
    const Value* v = op.operand(k);
    return productOf(b, v) && v->type == op.result()->type && op.operand(1 - k)->type == v->type;
  }
};

}  // namespace

void contract(ir::Function& fn) {
  Contract c(fn);
  c.runBlock(fn.body);
  c.removeFusedMuls(fn.body);
}

}  // namespace kiln::passes
