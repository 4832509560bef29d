// The seam between the two halves of sema. lower_*.cpp walks statements and expressions
// (scopes, assignment, control flow, calls to @jit helpers, constexpr folding of `if`);
// the operations on values (arithmetic with Triton's promotion and broadcasting, comparisons,
// attributes, subscripts and every `tl` builtin) live in ops_*.cpp and builtins_*.cpp behind
// the functions declared here.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"
#include "sema/sema.h"
#include "sema/value.h"
#include "support/diagnostic.h"

namespace kiln::sema {

// Per-kernel state shared by both halves.
struct Context {
  const ast::Module& module;
  std::string kernelName;
  ir::Builder b;  // insertion point of the IR being built
  // Inlines a @jit function at the insertion point, as a call from `loc` would (set by the Lowerer):
  // how builtins that take a function (tl.reduce's combine_fn) call it.
  std::function<SValue(const ast::FunctionDef&, std::vector<SValue>, const SourceLoc&)> callJit;
  int numWarps = 4;  // the compile's num_warps (tl.extra.cuda.num_warps is a constexpr of it)
};

using Kwargs = std::vector<std::pair<std::string, SValue>>;

// ---- operations on values (ops_*.cpp, builtins_*.cpp)

// a op b. Both constexpr: Python semantics (int64 with overflow errors, true division, floor
// division and modulo rounding toward -inf). Otherwise Triton semantics: type promotion,
// broadcasting, C division/remainder on integers, pointer arithmetic; errors are located at loc.
SValue binary(Context& cx, ast::BinOp op, const SValue& a, const SValue& b, const SourceLoc& loc);
SValue unary(Context& cx, ast::UnaryOp op, const SValue& a, const SourceLoc& loc);
// One link of a comparison chain (the lowering combines links with `and`).
SValue compare(Context& cx, ast::CmpOp op, const SValue& a, const SValue& b, const SourceLoc& loc);
// `a and b` / `a or b` for non-constexpr operands (scalars or tiles of i1); constexpr operands
// short-circuit in the lowering with Python semantics before this is called.
SValue logical(Context& cx, ast::BoolOp op, const SValue& a, const SValue& b, const SourceLoc& loc);

// obj.name: tensor attributes and methods (x.dtype, x.shape, x.T, x.to -> Method), dtype
// attributes (element_ty, is_fp16 ...), namespace members (tl.float32, tl.load -> Builtin,
// tl.math.exp). Throws "unknown ..." errors at loc.
SValue attribute(Context& cx, const SValue& obj, const std::string& name, const SourceLoc& loc);
// obj[indices]: x[:, None] / x[None, :] on tiles, t[i] on constexpr tuples and tuples of values.
SValue subscript(Context& cx, const SValue& obj, const std::vector<SValue>& indices, const SourceLoc& loc);

// Calls a Builtin or a Method value with evaluated arguments. Python builtins visible in
// kernels are also Builtins ("min", "max", "float", "int", "len", "print", "isinstance"...).
SValue callBuiltin(Context& cx, const SValue& callee, std::vector<SValue> args, Kwargs kwargs,
                   const SourceLoc& loc);
// Calling a NamedTuple class (SValue::Kind::TupleClass): its fields bound as Python binds them.
SValue newNamedTuple(const SValue& cls, std::vector<SValue> args, const Kwargs& kwargs, const SourceLoc& loc);
// The SValue a bare name resolves to when no variable or global binds it ("min", "range",
// "float", "int", "True" handled by the parser...), or nullopt-like None kind with ok=false.
bool lookupPythonBuiltin(std::string_view name, SValue& out);
// What an import path denotes: "triton.language" -> Namespace, "triton.jit" -> Builtin,
// "triton.language.constexpr" -> Builtin ... false when kiln does not know the path.
bool resolveImportPath(std::string_view path, SValue& out);

// A host TensorDescriptor argument arrives as the NamedTuple TensorDescriptor(base, shape, strides,
// block_shape, padding) (kiln._args; block_shape and padding are constexprs): the tensor descriptor it
// stands for, checked as tl.make_tensor_descriptor checks one (builtins_descriptor.cpp).
bool isHostDescriptor(const SValue& v);
SValue hostDescriptor(Context& cx, const SValue& v, const SourceLoc& loc);

// Turns a value into an IR value: constexpr numbers become constants of Triton's literal type
// (int -> i32, or i64 / u64 when too large; float -> f32; bool -> i1). Errors for non-numbers.
ir::Value* materialize(Context& cx, const SValue& v, const SourceLoc& loc);
// The truth value of a constexpr (Python rules); errors at loc for IR values ("... is not a
// constexpr" with a hint) when `what` needs a compile-time value.
bool constexprTruth(const SValue& v, const SourceLoc& loc, std::string_view what);
// The IR type a value would have (materializing constexprs by Triton's literal rules).
ir::Type typeOf(const SValue& v);
// Converts an IR value to `to` (a type of the same shape or a scalar type that is broadcast):
// used for loop-carried values and returns that must keep one type.
ir::Value* castTo(Context& cx, ir::Value* v, const ir::Type& to, const SourceLoc& loc);
// x.item(): the element of a one-element tile as a scalar of its dtype (a scalar is returned as it
// is); a tile of more elements is an error at loc, in Triton's words.
ir::Value* unsplat(Context& cx, ir::Value* v, const SourceLoc& loc);

}  // namespace kiln::sema
