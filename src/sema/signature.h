// Kernel signatures in Triton's AOT syntax: "*fp32:16, *fp32:16, i32, 1024".
// One entry per kernel parameter: a pointer ("*" + dtype, optional ":16" = 16-byte aligned; kiln also
// reads ":8"),
// a scalar type (optional ":16" = divisible by 16; the literal 1 specializes an integer to 1),
// or, in a constexpr position, a literal value (int, float, True/False, None, or a string); or a tuple
// of those, nested as a tuple argument is: "(*fp32:16, (1, None, *i32:16, 4))", "(i32,)", "()", and a
// NamedTuple with its class and fields, "Tensor(ptr=*fp32:16, shape=(i32:16, i32:16))"; a @jit function
// passed as an argument is "@name", its name in the kernel's module (a constexpr wherever it stands).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/types.h"
#include "support/source.h"

namespace kiln::sema {

struct SigEntry {
  enum class Kind { Pointer, Scalar, Literal, Tuple };
  Kind kind = Kind::Scalar;
  ir::Scalar type = ir::Scalar::I32;  // Pointer: the pointee; Scalar: the type; Literal: inferred (i32/i64/f32/i1)
  bool divisibleBy16 = false;         // ":16"
  // ":16" or ":8" (a kiln extension: values divisible by 8, pointers 8-byte aligned, so that sizes like
  // 3000 still vectorise f16 accesses); 1 without a hint.
  int divisibility = 1;
  // Literal: the value as written. An int literal in a non-constexpr integer position is a
  // specialization (only 1 is allowed there, as in Triton).
  // DType: "tl.fp16", "tl.i32", ... (a dtype passed to a constexpr parameter; the type in `type`).
  // Function: "@name", a @jit function of the kernel's module passed as an argument (in strValue; the
  // launcher links it under that name).
  enum class LitKind { Int, Float, Bool, None, Str, DType, Function };
  LitKind litKind = LitKind::Int;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string strValue;
  std::string text;  // the entry as written, for messages
  // Tuple: the elements, each an entry of its own (a literal element is a constexpr of the tuple, a type
  // one of the kernel's parameters); a NamedTuple's class name and one field name per element.
  std::vector<SigEntry> elts;
  std::string tupleName;
  std::vector<std::string> fields;
};

struct Signature {
  std::vector<SigEntry> entries;
  std::string text;
};

// Parses a signature; throws CompileError (naming the entry) on malformed input.
Signature parseSignature(std::string_view text);
// The same, with errors located in `shownAs` (a source holding `text`, e.g. named "<signature>")
// at the offending entry, so that they render with the signature and a caret under the entry.
Signature parseSignature(std::string_view text, const std::shared_ptr<const SourceFile>& shownAs);

// Triton dtype spellings used in signatures: fp16 bf16 fp32 fp64 fp8e4nv fp8e5 i1 i8 .. i64
// u8 .. u64 (also "f32"-style IR names). Nullopt when unknown.
std::optional<ir::Scalar> dtypeFromTritonName(std::string_view n);

}  // namespace kiln::sema
