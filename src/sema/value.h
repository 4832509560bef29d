// What a name or expression denotes during sema: an IR value (scalar or tile), a compile-time
// constant (constexpr) with Python semantics, a dtype, a tuple, a jit function, a module
// namespace, a builtin function, or a method bound to a value.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"

namespace kiln::sema {

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
  };
  Kind kind = Kind::None;
  ir::Value* ir = nullptr;
  int64_t i = 0;
  double f = 0;
  std::string str;
  ir::Type type;  // Dtype: the scalar (or pointer) type it denotes
  std::vector<SValue> elts;
  // Tuple from a NamedTuple argument: its field names, one per element (`str` holds the class name),
  // so `t.ptr` reads an element.
  std::vector<std::string> fields;
  const ast::FunctionDef* fn = nullptr;

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

  bool isIR() const { return kind == Kind::IR; }
  bool isConstexpr() const {  // a compile-time value usable where Triton needs a constexpr
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool || kind == Kind::Str ||
           kind == Kind::None || kind == Kind::Dtype ||
           (kind == Kind::Tuple && allConstexpr());
  }
  bool isNumber() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool allConstexpr() const;
  // Human-readable description for messages: "a tensor<128xf32>", "the constexpr 3", "tl.float16".
  std::string describe() const;
};

// A constexpr str's characters as Python counts them (its text is held as UTF-8): one entry per code
// point, so len(), indexing and slicing agree with Python's for non-ASCII text.
std::vector<std::string> characters(const std::string& utf8);

}  // namespace kiln::sema
