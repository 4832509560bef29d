// What a name or expression denotes during sema: an IR value (scalar or tile), a compile-time
// constant (constexpr) with Python semantics, a dtype, a tuple, a jit function, a module
// namespace, a builtin function, a method bound to a value, or a block pointer / tensor descriptor.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"

namespace kiln::sema {

// The compile-time facts of a block pointer (tl.make_block_ptr) or a tensor descriptor
// (tl.make_tensor_descriptor, a host TensorDescriptor argument). Its runtime pieces are the
// SValue's elts: base pointer, tuple of shape, tuple of strides, and for block pointers the tuple
// of offsets; loops and branches carry and merge those like a tuple's elements.
struct BlockFacts {
  bool descriptor = false;       // a tensor descriptor: every dimension is bounds-checked
  ir::Scalar elem = ir::Scalar::F32;  // element type of the blocks (pointers to i1 access i8)
  std::vector<int64_t> blockShape;
  std::vector<int64_t> order;    // block pointers: the memory order Triton records
  std::string padding;           // out-of-bounds loads read "zero", "nan", or (block pointers) ""
  bool operator==(const BlockFacts&) const = default;
};
// How Triton names the type in messages: "tensor_descriptor<fp16[64, 64]>", "block_ptr<fp32[128]>".
std::string blockTypeName(const BlockFacts& b);

struct SValue {
  enum class Kind {
    IR,         // ir: a scalar or tile value in the IR being built
    Int,        // constexpr int (Python int, kept in int64; overflow is a compile error)
    Float,      // constexpr float
    Bool,       // constexpr bool (i holds 0/1)
    Str,        // constexpr str
    None,       // constexpr None
    Dtype,      // type: an element type (tl.float32) or a pointer type (its .element_ty works)
    Tuple,      // elts
    Function,   // fn: a @jit function of the module
    Namespace,  // str: a module path, e.g. "triton.language" or "triton.language.math"
    Builtin,    // str: qualified builtin name, e.g. "triton.language.load", "min", "range"
    Method,     // str: method name; elts[0]: the receiver (x.to, x.reshape, dtype.is_fp16 ...)
    Slice,      // a `:` in a subscript
    Block,      // a block pointer or tensor descriptor: `block` holds its compile-time facts, elts its
                // runtime pieces (block_access.h)
    TupleClass, // a NamedTuple class: str its name, fields its field names, elts the defaults of its
                // last elts.size() fields; calling it makes a Tuple with those fields
  };
  Kind kind = Kind::None;
  ir::Value* ir = nullptr;
  int64_t i = 0;
  // Int: a literal in [2^63, 2^64), its bits in i. Triton types it uint64 where it meets a tensor; kiln
  // takes it there (and as a runtime value), not in constexpr arithmetic.
  bool u64 = false;
  double f = 0;
  std::string str;
  ir::Type type;  // Dtype: the scalar (or pointer) type it denotes
  std::vector<SValue> elts;
  // Tuple from a NamedTuple argument: its field names, one per element (`str` holds the class name),
  // so `t.ptr` reads an element.
  std::vector<std::string> fields;
  const ast::FunctionDef* fn = nullptr;
  std::shared_ptr<const BlockFacts> block;  // Block

  static SValue irValue(ir::Value* v) { SValue s; s.kind = Kind::IR; s.ir = v; return s; }
  static SValue integer(int64_t v) { SValue s; s.kind = Kind::Int; s.i = v; return s; }
  static SValue real(double v) { SValue s; s.kind = Kind::Float; s.f = v; return s; }
  static SValue boolean(bool v) { SValue s; s.kind = Kind::Bool; s.i = v; return s; }
  static SValue string(std::string v) { SValue s; s.kind = Kind::Str; s.str = std::move(v); return s; }
  static SValue none() { return SValue{}; }
  static SValue dtype(ir::Type t) { SValue s; s.kind = Kind::Dtype; s.type = std::move(t); return s; }
  static SValue tuple(std::vector<SValue> e) { SValue s; s.kind = Kind::Tuple; s.elts = std::move(e); return s; }
  static SValue function(const ast::FunctionDef* f) { SValue s; s.kind = Kind::Function; s.fn = f; return s; }
  static SValue ns(std::string path) { SValue s; s.kind = Kind::Namespace; s.str = std::move(path); return s; }
  static SValue builtin(std::string q) { SValue s; s.kind = Kind::Builtin; s.str = std::move(q); return s; }
  static SValue method(SValue self, std::string name) {
    SValue s; s.kind = Kind::Method; s.str = std::move(name); s.elts.push_back(std::move(self)); return s;
  }
  static SValue slice() { SValue s; s.kind = Kind::Slice; return s; }
  static SValue tupleClass(std::string name, std::vector<std::string> fields, std::vector<SValue> defaults) {
    SValue s; s.kind = Kind::TupleClass; s.str = std::move(name); s.fields = std::move(fields);
    s.elts = std::move(defaults);
    return s;
  }
  static SValue blockRef(BlockFacts facts, std::vector<SValue> pieces) {
    SValue s; s.kind = Kind::Block; s.elts = std::move(pieces);
    s.block = std::make_shared<const BlockFacts>(std::move(facts));
    return s;
  }

  bool isIR() const { return kind == Kind::IR; }
  bool isConstexpr() const {  // a compile-time value usable where Triton needs a constexpr
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool || kind == Kind::Str ||
           kind == Kind::None || kind == Kind::Dtype ||
           (kind == Kind::Tuple && allConstexpr());
  }
  // A tuple or a block: values made of elts that loops carry and branches merge element by element.
  bool isAggregate() const { return kind == Kind::Tuple || kind == Kind::Block; }
  bool isNumber() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool allConstexpr() const;
  // Human-readable description for messages: "a tensor<128xf32>", "the constexpr 3", "tl.float16".
  std::string describe() const;
};

// A constexpr str's characters as Python counts them (its text is held as UTF-8): one entry per code
// point, so len(), indexing and slicing agree with Python's for non-ASCII text.
std::vector<std::string> characters(const std::string& utf8);

}  // namespace kiln::sema
