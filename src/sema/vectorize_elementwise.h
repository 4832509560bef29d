// tl.map_elementwise's scalar function as tile code. The function is first lowered on scalars (one
// element of each input) into a block of its own; this class then emits that block again over tiles
// of the inputs' shape, as Triton runs the function once per element:
// - an element-wise op becomes the same op on tiles; values that depend on no element (constants,
//   program ids) stay scalars until they meet a tile;
// - an `if` on an element's value runs both branches and selects each result by the condition (the
//   branches hold no memory access, so running an untaken one changes nothing), an `if` on a value that
//   depends on no element likewise;
// - a `for` over bounds that depend on no element stays a loop over tiles; a `for` whose bounds do,
//   and a `while`, run until no element is still looping, each element's values kept from the
//   iteration where its own loop ended;
// - code inside a branch or a loop runs for the elements that reach it only as far as it matters: an
//   assert there checks those elements alone.
#pragma once

#include <string>
#include <unordered_map>

#include "sema/ops_common.h"

namespace kiln::sema {

class ElementwiseVectorizer {
 public:
  // `fnName` and `callLoc` name the function and the map_elementwise call in errors.
  ElementwiseVectorizer(Context& cx, Shape shape, std::string fnName, SourceLoc callLoc);

  // A value of the scalar block (an argument) stands for `v` (a tile of the shape, or a scalar).
  void bind(const ir::Value* scalar, ir::Value* v);
  // Emits every op of `b` but its terminator at the builder's insertion point.
  void block(const ir::Block& b);
  // What a value of the scalar block became, as a tile of the shape.
  ir::Value* tile(const ir::Value* scalar);

 private:
  ir::Value* mapped(const ir::Value* scalar) const;
  ir::Value* asTile(ir::Value* v);
  void op(const ir::Op& op);
  void elementwise(const ir::Op& op);
  void ifOp(const ir::Op& op);
  void forOp(const ir::Op& op);
  void loopUntilDone(const ir::Op& op);
  void whileOp(const ir::Op& op);
  void assertOp(const ir::Op& op);
  ir::Value* anyOf(ir::Value* mask, const SourceLoc& loc);  // scalar i1: some element of the i1 tile is set
  ir::Value* within(ir::Value* mask, const SourceLoc& loc);  // mask and the running elements
  ir::Value* select(ir::Value* mask, ir::Value* a, ir::Value* b, const SourceLoc& loc);
  [[noreturn]] void refuse(const ir::Op& op, const std::string& why) const;

  Context& cx_;
  Shape shape_;
  std::string fnName_;
  SourceLoc callLoc_;
  std::unordered_map<const ir::Value*, ir::Value*> map_;
  ir::Value* running_ = nullptr;  // i1 tile: the elements whose code is being emitted; null: all of them
};

}  // namespace kiln::sema
