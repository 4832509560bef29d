// split_dots: a dot of f32 operands whose input_precision asks for f32 accuracy from the tensor cores
// ("tf32x3", "bf16x3", "bf16x6") becomes the narrower dots that emulate it, as Triton's F32DotTC
// rewrite defines them (docs/semantics.md, dot):
//
//   tf32x3:  x_big = round_tf32(x), x_small = x - x_big            (for x = a and x = b)
//            s = dot(a_small, b_big, 0); s = dot(a_big, b_small, s)  (tf32 dots)
//            r = dot(a_big, b_big, isnan(s) ? 0 : s) + acc
//   bf16xN:  x_0 = bf16(x), x_1 = bf16(x - f32(x_0)), x_2 = bf16(x - f32(x_0) - f32(x_1))
//            bf16x3: s = a_1 b_0 + a_0 b_1; bf16x6: s = a_1 b_1 + a_2 b_0 + a_0 b_2 + a_1 b_0 + a_0 b_1
//            (dots in that order, each into the last); r = dot(a_0, b_0, isnan(s) ? 0 : s) + acc
//
// The small products are summed first and a NaN among them dropped: an infinite operand x has
// x_small = inf - inf = NaN, which must not spoil the big product's infinity. The rewrite happens in
// the Tile IR, before anything runs, so the interpreter and the GPU compute the same dots, and it runs
// without `optimize` too: no later stage knows the split precisions.
#include "ir/dot_precision.h"
#include "passes/passes.h"

namespace kiln::passes {

using ir::Opcode;
using ir::Scalar;
using ir::Value;

namespace {

class SplitDots {
 public:
  void runBlock(ir::Block& b) {
    for (size_t i = 0; i < b.ops.size(); ++i) {
      ir::Op& op = *b.ops[i];
      for (auto& r : op.regions) runBlock(*r);
      if (op.opcode != Opcode::Dot || !ir::awaitsSplit(op)) continue;
      ir::Builder at(b, i);
      Value* r = split(at, op);
      i = at.position();  // op now stands here
      ir::replaceAllUses(b, op.result(), r);
      removed_.push_back(b.remove(&op));
      --i;
    }
  }

 private:
  std::vector<std::unique_ptr<ir::Op>> removed_;  // the replaced dots, freed when the pass ends

  struct Emit {
    ir::Builder& at;
    SourceLoc loc;
    Value* op1(Opcode o, Value* x, const ir::Type& t) { return at.create1(o, {x}, t, {}, loc); }
    Value* op2(Opcode o, Value* x, Value* y) { return at.create1(o, {x, y}, x->type, {}, loc); }
    Value* dot(Value* a, Value* b, Value* acc, const char* precision) {
      std::vector<ir::Attr> attrs;
      if (precision) attrs.push_back(ir::Attr{"input_precision", std::string(precision)});
      return at.create1(Opcode::Dot, {a, b, acc}, acc->type, std::move(attrs), loc);
    }
    // x where it is a number, 0 where it is NaN (x != x only for NaN).
    Value* zeroNaNs(Value* x, Value* zero) {
      Value* nan = at.create1(Opcode::Cmp, {x, x}, x->type.withElem(Scalar::I1), {{"pred", std::string("ne")}}, loc);
      return at.create1(Opcode::Select, {nan, zero, x}, x->type, {}, loc);
    }
  };

  // x's first `n` bf16 parts: each the bf16 rounding of what the parts before it left of x.
  static std::vector<Value*> bf16Parts(Emit& e, Value* x, int n) {
    std::vector<Value*> parts;
    for (int i = 0; i < n; ++i) {
      Value* part = e.op1(Opcode::Cast, x, x->type.withElem(Scalar::BF16));
      parts.push_back(part);
      if (i + 1 < n) x = e.op2(Opcode::Sub, x, e.op1(Opcode::Cast, part, x->type));
    }
    return parts;
  }

  static Value* split(ir::Builder& at, ir::Op& dot) {
    Emit e{at, dot.loc};
    Value* a = dot.operand(0);
    Value* b = dot.operand(1);
    Value* acc = dot.operand(2);
    Value* zero = at.floatConst(0.0, acc->type, dot.loc);
    const std::string p = dot.strAttr("input_precision");
    Value *small = nullptr, *aBig = nullptr, *bBig = nullptr;
    if (p == "tf32x3") {
      aBig = e.op1(Opcode::RoundTf32, a, a->type);
      bBig = e.op1(Opcode::RoundTf32, b, b->type);
      Value* aSmall = e.op2(Opcode::Sub, a, aBig);
      Value* bSmall = e.op2(Opcode::Sub, b, bBig);
      small = e.dot(aSmall, bBig, zero, "tf32");
      small = e.dot(aBig, bSmall, small, "tf32");
    } else {
      const int n = p == "bf16x6" ? 3 : 2;
      std::vector<Value*> as = bf16Parts(e, a, n), bs = bf16Parts(e, b, n);
      small = zero;
      if (n == 3) {
        small = e.dot(as[1], bs[1], small, nullptr);
        small = e.dot(as[2], bs[0], small, nullptr);
        small = e.dot(as[0], bs[2], small, nullptr);
      }
      small = e.dot(as[1], bs[0], small, nullptr);
      small = e.dot(as[0], bs[1], small, nullptr);
      aBig = as[0];
      bBig = bs[0];
    }
    Value* big = e.dot(aBig, bBig, e.zeroNaNs(small, zero), p == "tf32x3" ? "tf32" : nullptr);
    return e.op2(Opcode::Add, big, acc);
  }
};

}  // namespace

void splitDots(ir::Function& fn) {
  SplitDots s;
  s.runBlock(fn.body);
}

}  // namespace kiln::passes
