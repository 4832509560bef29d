// Internal to the builtins_libdevice*.cpp files: Triton's extern_elementwise dispatch (arguments matched
// against a function's table of signatures, promoted together when none matches) and the small IR
// builders the libdevice compositions share.
#pragma once
#include <initializer_list>
#include <vector>

#include "sema/ops_common.h"

namespace kiln::sema::libdevice {

// One row of a function's table: its argument dtypes (its result dtype is the caller's business).
using ArgTypes = std::initializer_list<ir::Scalar>;

// Every argument becomes a tensor (a number takes its literal type) and all broadcast to one shape;
// when their dtypes are not one of `sigs` they are first promoted together as by an arithmetic
// operator (for two or more arguments). Still no match: a located error listing the signatures.
// `which`, when given, receives the index of the matched signature.
std::vector<ir::Value*> externArgs(CallArgs& a, std::initializer_list<ArgTypes> sigs, size_t* which = nullptr);

// The float types a function has signatures for (Triton's tables): fp32 and fp64, or one of them.
enum class Floats { Both, F32, F64 };
std::vector<ir::Value*> externArgs(CallArgs& a, size_t n, Floats floats);

ir::Value* num(CallArgs& a, double v, const ir::Type& t);
ir::Value* intNum(CallArgs& a, int64_t v, const ir::Type& t);
ir::Value* op1(CallArgs& a, ir::Opcode op, ir::Value* x);
ir::Value* op2(CallArgs& a, ir::Opcode op, ir::Value* x, ir::Value* y);
ir::Value* cmp(CallArgs& a, const char* pred, ir::Value* x, ir::Value* y);
ir::Value* select(CallArgs& a, ir::Value* c, ir::Value* x, ir::Value* y);
// Element type conversions: numeric (Triton's cast) and of the bits.
ir::Value* cast(CallArgs& a, ir::Value* x, ir::Scalar to);
ir::Value* bitcast(CallArgs& a, ir::Value* x, ir::Scalar to);
// The bits of a float tensor as the signed integer of its width (i32 or i64).
ir::Value* bitsOf(CallArgs& a, ir::Value* x);

}  // namespace kiln::sema::libdevice
