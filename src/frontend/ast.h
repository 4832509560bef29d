// The AST of the Python subset kiln reads: expressions, statements, jit functions and the module
// (imports, module-level constants, kernels). Every node carries its SourceLoc. One struct per
// category with a kind tag; the fields each kind uses are listed beside the kind.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/source.h"

namespace kiln::ast {

enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, LShift, RShift, BitAnd, BitOr, BitXor };
enum class UnaryOp { Neg, Pos, Invert, Not };
enum class BoolOp { And, Or };
enum class CmpOp { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

const char* spelling(BinOp op);    // "+", "//", ...
const char* spelling(UnaryOp op);  // "-", "~", "not"
const char* spelling(CmpOp op);    // "==", "is not", ...

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Keyword {
  std::string name;
  ExprPtr value;
  SourceLoc loc;
};

enum class ExprKind {
  Name,       // name
  Int,        // intValue (a literal is never negative; `-1` is Neg(Int 1))
  Float,      // floatValue
  Str,        // str
  Bool,       // intValue 0/1
  NoneLit,    //
  Tuple,      // elts
  List,       // elts
  BinOp,      // binOp, elts[0] op elts[1]
  UnaryOp,    // unaryOp, elts[0]
  BoolOp,     // boolOp, elts (two or more, left to right)
  Compare,    // elts[0] cmpOps[0] elts[1] cmpOps[1] elts[2] ... (chained)
  Call,       // elts[0] is the callee; elts[1..] positional args; keywords
  Attribute,  // elts[0].name
  Subscript,  // elts[0] is the value; elts[1..] the indices (one per dimension; Slice, NoneLit, ...)
  Slice,      // `lo:hi:step`: elts[0..2] each may be null
  IfExp,      // elts[1] if elts[0] else elts[2]   (elts = {test, body, orelse})
  ListComp,   // [elts[0] for elts[1] in elts[2]]: one `for`, no `if` (elts = {element, target, iterable})
  Starred,    // *elts[0]: a call's positional argument whose tuple's elements are the arguments
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  std::string name;  // Name: identifier; Attribute: attribute name
  std::string str;   // Str: the decoded string value
  uint64_t intValue = 0;
  double floatValue = 0;
  BinOp binOp = BinOp::Add;
  UnaryOp unaryOp = UnaryOp::Neg;
  BoolOp boolOp = BoolOp::And;
  std::vector<CmpOp> cmpOps;
  std::vector<ExprPtr> elts;  // children; may hold nulls only for Slice
  std::vector<Keyword> keywords;

  Expr(ExprKind k, SourceLoc l) : kind(k), loc(std::move(l)) {}
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

enum class StmtKind {
  ExprStmt,   // value (docstrings are dropped by the parser)
  Assign,     // targets (a = b = value: several targets) ; value
  AugAssign,  // targets[0] augOp= value
  AnnAssign,  // targets[0] : annotation = value (value may be null)
  If,         // value (test), body, orelse (elif becomes a nested If in orelse)
  For,        // targets[0] (loop variable or tuple), value (the iterable call), body, orelse
  While,      // value (test), body, orelse
  Return,     // value (may be null)
  Pass,
  Break,
  Continue,
  Assert,     // value (test), msg (may be null)
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  std::vector<ExprPtr> targets;
  ExprPtr value;
  ExprPtr annotation;
  ExprPtr msg;
  BinOp augOp = BinOp::Add;
  Body body, orelse;

  Stmt(StmtKind k, SourceLoc l) : kind(k), loc(std::move(l)) {}
};

struct Param {
  std::string name;
  SourceLoc loc;
  ExprPtr annotation;    // may be null
  ExprPtr defaultValue;  // may be null
};

// A top-level `def`. Only functions decorated with a jit decorator are parsed into a body;
// other top-level functions are skipped by the parser.
struct FunctionDef {
  std::string name;
  SourceLoc loc;
  std::vector<Param> params;
  Body body;
  std::string docstring;
  std::vector<ExprPtr> decorators;  // as written, e.g. `triton.jit`, `jit(do_not_specialize=[...])`
  ExprPtr returns;                  // the `-> T` annotation; may be null
};

// A module-level `NAME = expr` (or `NAME: T = expr`). When the right-hand side is not in the
// kernel subset (host code), `value` is null and `skipReason` says why; using such a name from
// a kernel is an error at the use.
struct GlobalAssign {
  std::string name;
  SourceLoc loc;
  ExprPtr value;
  std::string skipReason;
  ExprPtr annotation;  // `NAME: T = expr`: T; may be null
};

// A top-level `def` without a jit decorator (host code, skipped unparsed): kept by name so that
// a kernel calling it is told why it cannot.
struct PlainFunction {
  std::string name;
  SourceLoc loc;  // the `def`
};

// `import triton.language as tl` -> aliases["tl"] = "triton.language";
// `from triton import jit` -> aliases["jit"] = "triton.jit"; `import triton` -> aliases["triton"] = "triton".
struct Module {
  std::shared_ptr<const SourceFile> file;
  std::map<std::string, std::string> aliases;
  std::vector<std::unique_ptr<FunctionDef>> functions;  // jit functions, in source order
  std::vector<GlobalAssign> globals;                    // in source order (a later one wins)
  std::vector<PlainFunction> plainFunctions;            // non-jit top-level defs, in source order

  const FunctionDef* findFunction(const std::string& name) const;
};

}  // namespace kiln::ast
