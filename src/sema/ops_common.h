// Internal to the values half of sema (value.cpp, ops_*.cpp, builtins_*.cpp): Triton's literal
// typing, promotion, broadcasting and casts on IR values, Python semantics on constexprs, and the
// table of builtin functions with its argument binder.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sema/context.h"

namespace kiln::sema {

using Shape = std::vector<int64_t>;

// ---- names used in messages

std::string shapeStr(const Shape& s);            // "[64, 32]"
std::string dtypeExpr(const ir::Type& t);        // "tl.float16", "tl.pointer_type(tl.float32)"
std::string tritonDtypeName(const ir::Type& t);  // Triton's dtype.name: "fp16", "int8", "pointer<fp32>"
const char* pyTypeName(const SValue& v);         // Python's type name: "int", "str", "tensor", ...
std::string pyRepr(const SValue& v);             // Python's repr of a constexpr: 3, 2.5, 'a', (1, 2)
std::string pyStr(const SValue& v);              // Python's str (what print shows): strings unquoted
std::string floatRepr(double d);                 // Python's repr of a float: 1.0, 0.1, inf, nan

// ---- literal typing and promotion (ops_promote.cpp)

// Triton's type of a Python number used as an operand: bool -> i1, int -> i32 when it fits, else
// i64; float -> f32 unless its magnitude is outside f32's normal range (then f64).
ir::Type literalType(const SValue& num);
int typeKind(ir::Scalar s);  // Triton's kind order: bool 0 < int 1 < float 2
ir::Scalar integerPromote(ir::Scalar a, ir::Scalar b);
// The element type both operands of an arithmetic op are converted to (computation_type_impl).
// `aWeak`/`bWeak`: the operand is a Python number, which only decides the type when it is of a
// higher kind than the other operand. `operands` describes both for the error messages.
ir::Scalar computationType(ir::Scalar a, bool aWeak, ir::Scalar b, bool bWeak, bool divOrMod,
                           const std::string& operands, const SourceLoc& loc);

// ---- building IR

// fp8e4b15 values are only moved, selected, converted (to and from f16/f32) and given tl.abs, as in
// Triton, whose GPU code holds them as bytes: arithmetic on them is a located error (ops_cast.cpp).
void checkFp8e4b15Op(ir::Opcode op, const std::vector<ir::Value*>& operands, const ir::Type& t, const SourceLoc& loc);
inline ir::Value* emit(Context& cx, ir::Opcode op, std::vector<ir::Value*> operands, const ir::Type& t,
                       const SourceLoc& loc, std::vector<ir::Attr> attrs = {}) {
  checkFp8e4b15Op(op, operands, t, loc);
  return cx.b.create1(op, operands, t, std::move(attrs), loc);
}
// A constant of type `t` (a scalar, or a tile: a splat constant) holding the number `num`, which
// must fit `t` (callers check ranges); floats are rounded to t's precision.
ir::Value* constantOf(Context& cx, const SValue& num, const ir::Type& t, const SourceLoc& loc);
ir::Value* zeroOf(Context& cx, const ir::Type& t, const SourceLoc& loc);

// numpy broadcasting of two shapes (right-aligned, size-1 dims stretch); error at loc otherwise.
Shape broadcastShape(const Shape& a, const Shape& b, const SourceLoc& loc);
// Splats a scalar, prepends size-1 dims and broadcasts size-1 dims to reach `shape`.
ir::Value* broadcastTo(Context& cx, ir::Value* v, const Shape& shape, const SourceLoc& loc);
// Triton's cast of every element to `elem` (a scalar or pointer type); same shape. `rounding` is
// fp_downcast_rounding ("" when not given; "rtne"/"rtz" only for narrowing float casts).
ir::Value* castElem(Context& cx, ir::Value* v, const ir::Type& elem, const SourceLoc& loc,
                    const std::string& rounding = "");
// Reinterprets the bits of every element as `elem` (same bit width; pointers go through castElem).
ir::Value* bitcastElem(Context& cx, ir::Value* v, const ir::Type& elem, const SourceLoc& loc);
// Converts a value to i1 with Python's truth rule (x != 0); i1 values are returned as they are.
ir::Value* truthOf(Context& cx, ir::Value* v, const SourceLoc& loc);

// Triton's binary_op_type_checking_impl: converts two operands (IR values or Python numbers, at
// least one an IR value) to one element type and one shape.
struct BinaryRule {
  bool allowLhsPtr = false;
  bool allowRhsPtr = false;
  bool arithmetic = true;  // promote to the computation type (off: only literal-type constants)
  bool divOrMod = false;
};
std::pair<ir::Value*, ir::Value*> binaryOperands(Context& cx, const SValue& a, const SValue& b,
                                                 const BinaryRule& rule, std::string_view op,
                                                 const SourceLoc& loc);
// "invalid operands of type A and B for <op>" (Triton's wording first)
[[noreturn]] void operandError(std::string_view op, const SValue& a, const SValue& b, const SourceLoc& loc,
                               const std::string& hint = "");
// The IR value of an operand that must be a runtime value or a Python number (to_tensor).
ir::Value* toTensor(Context& cx, const SValue& v, const SourceLoc& loc, std::string_view what);

// ---- constexpr (Python) semantics (ops_constexpr.cpp)

SValue constexprBinary(ast::BinOp op, const SValue& a, const SValue& b, const SourceLoc& loc);
SValue constexprUnary(ast::UnaryOp op, const SValue& a, const SourceLoc& loc);
SValue constexprCompare(ast::CmpOp op, const SValue& a, const SValue& b, const SourceLoc& loc);
bool pyEqual(const SValue& a, const SValue& b, const SourceLoc& loc);
bool pyTruth(const SValue& v);  // for constexprs and compile-time objects (never IR)

// ---- shapes and constexpr arguments

void validateShape(const Shape& s, const SourceLoc& loc);  // powers of two, numel limit
int64_t wrapAxis(int64_t axis, int64_t rank, const SourceLoc& loc);

// ---- builtins (builtins_table.cpp and the family files)

enum BuiltinWhere : unsigned {
  kTl = 1,      // triton.language.NAME
  kMath = 2,    // triton.language.math.NAME
  kTriton = 4,  // triton.NAME
  kPy = 8,      // a Python builtin visible in kernels
  kMember = 16,    // also a tensor method: x.NAME(...) passes x as the first argument
  kLibdevice = 32, // triton.language.extra[.cuda].libdevice.NAME (builtins_libdevice.cpp)
  kCuda = 64,      // triton.language.extra.cuda.NAME
  kRandom = 128,   // triton.language.random.NAME (builtins_random.cpp)
  kDescriptorMember = 256,  // a method of tensor descriptors: desc.load(...) passes desc first
  kBlockPtrMember = 512     // a method of block pointers: ptr.advance(...)
};

// A call's arguments bound to a builtin's parameters.
struct CallArgs {
  Context* cx = nullptr;
  std::string display;  // how the builtin is named in messages: "tl.load", "min", "tensor.to"
  SourceLoc loc;
  std::vector<std::string> names;          // parameter names, the variadic one excluded
  std::vector<std::optional<SValue>> vals; // bound values by parameter
  std::vector<SValue> rest;                // the *varargs values (a single tuple is unpacked)
  std::vector<SValue> raw;                 // the positional arguments as passed
  Kwargs rawKw;                            // the keyword arguments as passed

  bool has(size_t i) const { return vals.at(i) && vals[i]->kind != SValue::Kind::None; }
  const SValue& at(size_t i) const;        // a required parameter
  SValue get(size_t i) const { return vals.at(i) ? *vals[i] : SValue::none(); }
  // Constexpr parameters ("what" defaults to the parameter name).
  int64_t intArg(size_t i) const;
  bool boolArg(size_t i, bool dflt) const;
  std::string strArg(size_t i, const std::string& dflt) const;
  ir::Type dtypeArg(size_t i) const;        // an element or pointer dtype
  Shape shapeArg(const SValue& v, std::string_view what) const;  // tuple of constexpr ints
  std::vector<int64_t> intList(const SValue& v, std::string_view what) const;  // int or tuple of ints
  [[noreturn]] void fail(const std::string& msg) const;  // "<display>: msg"
};

using BuiltinFn = SValue (*)(CallArgs& a);
struct BuiltinDef {
  const char* name;
  unsigned where;      // BuiltinWhere bits
  const char* params;  // "pointer mask? other?"; "?" optional, "*dims" variadic; null: no binding
  BuiltinFn fn;
};

// The families; builtins_table.cpp searches them in this order.
std::span<const BuiltinDef> coreBuiltins();
std::span<const BuiltinDef> memoryBuiltins();
std::span<const BuiltinDef> mathBuiltins();
std::span<const BuiltinDef> reduceBuiltins();
std::span<const BuiltinDef> combineBuiltins();  // tl.reduce, tl.associative_scan, cumsum, ... (builtins_combine.cpp)
std::span<const BuiltinDef> shapeBuiltins();
std::span<const BuiltinDef> dotBuiltins();
std::span<const BuiltinDef> pythonBuiltins();
std::span<const BuiltinDef> libdeviceBuiltins();  // and extra.cuda
std::span<const BuiltinDef> libdeviceIntBuiltins();       // integer and bit functions (builtins_libdevice_int.cpp)
std::span<const BuiltinDef> libdeviceRoundingBuiltins();  // directed rounding (builtins_libdevice_round.cpp)
std::span<const BuiltinDef> atomicBuiltins();     // and tl.debug_barrier
std::span<const BuiltinDef> randomBuiltins();     // Philox: tl.randint, tl.rand, tl.randn, ...
std::span<const BuiltinDef> joinBuiltins();       // join, split, interleave, cat, flip (builtins_join.cpp)
std::span<const BuiltinDef> exchangeBuiltins();   // gather, histogram (builtins_exchange.cpp)
std::span<const BuiltinDef> sortBuiltins();       // tl.sort, tl.topk
std::span<const BuiltinDef> blockPointerBuiltins();  // tl.make_block_ptr, tl.advance (builtins_block_ptr.cpp)
std::span<const BuiltinDef> descriptorBuiltins();    // tl.make_tensor_descriptor and its methods
std::span<const BuiltinDef> debugBuiltins();  // tl.inline_asm_elementwise, tl.device_print, print (builtins_debug.cpp)

// The builtin named `name` in the namespace `where` (one BuiltinWhere bit), or null.
const BuiltinDef* findBuiltin(std::string_view name, unsigned where);
// Every builtin name of a namespace (for "did you mean" suggestions).
std::vector<std::string> builtinNames(unsigned where);
// Calls a builtin with the arguments of a call (binding them to its parameters first).
SValue invokeBuiltin(Context& cx, const BuiltinDef& def, const std::string& display, std::vector<SValue> args,
                     Kwargs kwargs, const SourceLoc& loc);
// Error for a builtin kiln knows of but does not implement.
SValue unsupportedBuiltin(CallArgs& a);

// The `mask` argument i of tl.load, tl.store and the atomics: null when absent, else an i1 value.
ir::Value* maskArg(CallArgs& a, size_t i);
// Fails unless `v` (null: nothing to check) broadcasts to the shape of pointer `ptr` without widening
// it; through a single pointer only scalars fit. `what` names v, `verb` the access ("storing").
void checkFitsPointer(const CallArgs& a, const ir::Value* ptr, ir::Value* v, const char* what, const char* verb);

// Shared pieces of builtins used by other builtins and by the operators.
SValue reduceValue(Context& cx, const SValue& input, std::string_view kind, std::optional<int64_t> axis,
                   bool keepDims, const SourceLoc& loc);
ir::Value* expandDims(Context& cx, ir::Value* v, int64_t axis, const SourceLoc& loc);
// Builds the body of a combine region from its arguments (acc_0.., x_0..) and returns the N values it yields.
using CombineBody = std::function<std::vector<ir::Value*>(const std::vector<ir::Value*>& args)>;
// One reduce_combine or scan op over `inputs` along `axis` (in range), its region built by `body`
// (builtins_combine.cpp).
std::vector<ir::Value*> combineOp(Context& cx, ir::Opcode opc, const std::vector<ir::Value*>& inputs, int64_t axis,
                                  bool reverse, const CombineBody& body, const SourceLoc& loc);
// tl.join's meaning on IR values: a and b broadcast to one shape and joined in a new minor dim of size 2
// (builtins_join.cpp).
ir::Value* join(Context& cx, ir::Value* a, ir::Value* b, const SourceLoc& loc);
ir::Value* permute(Context& cx, ir::Value* v, const std::vector<int64_t>& order, const SourceLoc& loc);
ir::Value* reshape(Context& cx, ir::Value* v, const Shape& shape, const SourceLoc& loc);
SValue elementwiseMinMax(Context& cx, bool isMax, const SValue& x, const SValue& y, bool propagateNan,
                         const SourceLoc& loc);
// tl.dot_scaled (builtins_dot_scaled.cpp), listed with tl.dot.
SValue dotScaled(CallArgs& a);
SValue castValue(Context& cx, const SValue& x, const ir::Type& dtype, const std::string& rounding, bool bitcast,
                 const SourceLoc& loc);
// Dtype-valued attributes and the dtype predicates (x.dtype.is_fp16()).
SValue dtypeAttribute(const SValue& dt, const std::string& name, const SourceLoc& loc);
SValue callDtypeMethod(const SValue& dt, const std::string& name, const std::vector<SValue>& args,
                       const SourceLoc& loc);
// Attributes and methods of block pointers and tensor descriptors (block_access.cpp).
SValue blockAttribute(Context& cx, const SValue& block, const std::string& name, const SourceLoc& loc);
bool hasBlockAttribute(const SValue& block, const std::string& name);
// hasattr(obj, name) with Triton's answer (constexprs are unwrapped to Python values first).
bool hasAttribute(const SValue& obj, const std::string& name);
// The element or pointer types named tl.float32 ... (null when `name` is not a dtype name).
std::optional<ir::Type> dtypeByName(std::string_view name, const SourceLoc& loc);

}  // namespace kiln::sema
