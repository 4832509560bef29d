// The AST -> Tile IR lowering of one kernel: the Lowerer walks statements and expressions of the
// kernel and of the @jit helpers it inlines. Its methods are spread over lower.cpp (entry, names,
// globals), lower_stmt.cpp, lower_expr.cpp, lower_control.cpp (if, merging of branch values),
// lower_loop.cpp (for, while, static unrolling) and lower_call.cpp (helper inlining).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sema/context.h"
#include "sema/scope.h"

namespace kiln::sema {

// How control left a statement list: it fell off the end, or it returned (with `value`).
struct Flow {
  bool returned = false;
  SValue value;  // None for a bare `return`
};

// The statements that follow the one being lowered, up to the end of the function: a tail-level
// `if` that returns in one branch lowers the rest of the function into its other branch.
struct Continuation {
  const ast::Body* body;
  size_t start;
  const Continuation* next;
};

// A loop whose body holds a `break` or `continue` of its own (lower_loop_exit.cpp): the hidden names
// (not identifiers, so no kernel can spell them) of its two flags, `broke` (a break ran: carried by
// the loop, which stops) and `go` (this iteration goes on: set at the top of each iteration).
struct LoopExit {
  std::string broke, go;
  bool hasBreak = false;
};

// One function being lowered: the kernel, an inlined helper, or the module scope in which
// globals and default values are evaluated (fn == null).
struct Frame {
  const ast::FunctionDef* fn = nullptr;
  bool isKernel = false;
  Scope scope;
  const LoopExit* loopExit = nullptr;  // the innermost loop being lowered, when it has exits
};


// Where a name is assigned in a loop body (for loop-carried values).
struct Assigned {
  std::string name;
  SourceLoc loc;
};

// Leaves of two values that meet at the end of an `if` (or a conditional expression): the leaves
// that differ become results of the `if` op, of type `types[i]`.
struct Merge {
  std::vector<SValue> thenLeaves, elseLeaves;
  std::vector<ir::Type> types;
};

class Lowerer {
 public:
  Lowerer(const ast::Module& m, std::string_view kernel);
  std::unique_ptr<ir::Module> run(const Signature& sig);

  Context& cx() { return cx_; }
  Scope& scope() { return frames_.back()->scope; }

  // ---- lower.cpp: names, globals, annotations
  SValue lookup(const std::string& name, const SourceLoc& loc);
  bool isConstexprAnnotation(const ast::Expr* annotation) const;
  // Evaluates `e` in the module scope (no local names), e.g. a default value.
  SValue evalInModuleScope(const ast::Expr& e);
  void countWork(const SourceLoc& loc);  // bounds the total work of inlining and unrolling

  // ---- lower_stmt.cpp
  // Lowers body[start..] and then, in tail position, the continuation `k`. `tail`: a `return`
  // here ends the function (false inside loops and inside an `if` that is not at the tail).
  Flow stmts(const ast::Body& body, size_t start, const Continuation* k, bool tail);
  void assign(const ast::Expr& target, const SValue& v, const SourceLoc& loc);

  // ---- lower_expr.cpp
  SValue expr(const ast::Expr& e);
  // A non-constexpr condition as an i1 scalar (`x != 0` for other scalars); errors for tiles.
  ir::Value* scalarCondition(const SValue& c, const SourceLoc& loc, const char* what);

  // ---- lower_control.cpp
  // An `if` statement. With a continuation (tail position) it may take over the rest of the
  // function and then returns its Flow; otherwise returns nullopt and lowering goes on after it.
  std::optional<Flow> ifStmt(const ast::Stmt& s, const Continuation* rest);
  SValue ifExp(const ast::Expr& e);
  SValue listComprehension(const ast::Expr& e);
  void collectMerge(const SValue& a, const SValue& b, Merge& m, const std::string& what, const SourceLoc& loc);
  // Emits the casts and the `yield` that end one branch of an `if` op.
  void yieldLeaves(ir::Block& block, const std::vector<SValue>& leaves, const std::vector<ir::Type>& types,
                   const SourceLoc& loc);

  // ---- lower_loop.cpp
  void forStmt(const ast::Stmt& s);
  void whileStmt(const ast::Stmt& s);

  // ---- lower_call.cpp
  SValue callFunction(const ast::FunctionDef& fn, std::vector<SValue> args, Kwargs kwargs, const SourceLoc& loc);
  SValue call(const ast::Expr& e);
  void attachHint(const SValue& input, const SValue& result);

  // RAII: a frame pushed for the lifetime of the guard.
  class FrameGuard {
   public:
    FrameGuard(Lowerer& l, const ast::FunctionDef* fn) : l_(l) {
      l.frames_.push_back(std::make_unique<Frame>());
      l.frames_.back()->fn = fn;
    }
    ~FrameGuard() { l_.frames_.pop_back(); }
    FrameGuard(const FrameGuard&) = delete;
    FrameGuard& operator=(const FrameGuard&) = delete;

   private:
    Lowerer& l_;
  };

 private:
  Context cx_;
  std::vector<std::unique_ptr<Frame>> frames_;
  std::vector<std::pair<const ast::GlobalAssign*, SValue>> globalCache_;
  std::set<const ast::GlobalAssign*> evaluatingGlobals_;
  long work_ = 0;
  int nesting_ = 0;  // blocks being lowered, through all inlined helpers: bounds the C++ stack
  int dryRunDepth_ = 0;

  SValue global(const ast::GlobalAssign& g, const SourceLoc& useLoc);
  void bindParameters(const ast::FunctionDef& fn, const Signature& sig, ir::Function& f);
  Flow returnStmt(const ast::Stmt& s, bool tail);
  void assertStmt(const ast::Stmt& s);

  // loops (lower_loop.cpp)
  struct Carried;
  std::vector<Carried> carriedValues(const ast::Body& body, const std::set<std::string>& exclude);
  void refineCarriedTypes(std::vector<Carried>& carried, const ast::Body& body, const ast::Expr* target,
                          const ir::Type& ivType);
  void bindCarried(const std::vector<Carried>& carried, ir::Block& block);
  std::vector<ir::Value*> carriedAtEnd(const std::vector<Carried>& carried);
  void afterLoop(const Scope& before, const Scope& end, const std::vector<Carried>& carried, ir::Op* loop,
                 const std::set<std::string>& loopVars, const SourceLoc& loc);
  void staticFor(const ast::Stmt& s, std::vector<SValue> bounds);
  const ast::Expr& whileCondition(const ast::Expr& e, std::vector<ir::Attr>& attrs);
  // break and continue (lower_loop_exit.cpp)
  // The flags of a loop whose body holds an exit of its own (`broke` bound to false), or nullopt.
  std::optional<LoopExit> loopExitOf(const ast::Body& body);
  void addBreakFlag(std::vector<Carried>& carried, const LoopExit& exit, const SourceLoc& loc);
  // Lowers one iteration's body: `go` set, and, when `guardBreak` and a break may have run, the body
  // only where none did.
  void loopBody(const ast::Body& body, bool guardBreak, const SourceLoc& loc);
  Flow exitStmt(const ast::Stmt& s);
  // After an `if` holding an exit of the current loop: lowers body[next..] where the iteration goes on;
  // false when the statements go on as usual (every element goes on).
  bool restAfterExit(const ast::Body& body, size_t next, const SourceLoc& loc);
  // An `if` on `cond` whose then-branch `lowerThen` lowers and whose else-branch is empty.
  void guarded(ir::Value* cond, const std::function<void()>& lowerThen, const SourceLoc& loc);
  void mergeBranches(ir::Op* op, const Scope& before, Scope (&ends)[2], const SourceLoc& loc);
  int loopExits_ = 0;
  // Makes `exit` the current loop's flags (null: a loop without exits) while it lives.
  class ExitScope {
   public:
    ExitScope(Lowerer& l, const std::optional<LoopExit>& exit)
        : frame_(*l.frames_.back()), saved_(frame_.loopExit) { frame_.loopExit = exit ? &*exit : nullptr; }
    ~ExitScope() { frame_.loopExit = saved_; }
    ExitScope(const ExitScope&) = delete;
    ExitScope& operator=(const ExitScope&) = delete;

   private:
    Frame& frame_;
    const LoopExit* saved_;
  };
  void unrolledFor(const ast::Stmt& s, const std::vector<SValue>& items);
  void dynamicFor(const ast::Stmt& s, const std::string& rangeName, const std::vector<SValue>& args,
                  const Kwargs& kwargs);
};

// ---- small helpers shared by the lower_*.cpp files
bool sameValue(const SValue& a, const SValue& b);
bool containsIR(const SValue& v);
std::string typeDescription(const SValue& v);  // "tensor<16xf32>" for IR values, describe() otherwise
bool containsReturn(const ast::Body& body);
bool isIterationBuiltin(const SValue& callee);  // range, tl.range, tl.static_range
bool definitelyReturns(const ast::Body& body);
void assignedNames(const ast::Body& body, std::vector<Assigned>& out);
void targetNames(const ast::Expr& target, std::set<std::string>& out);
// Rebuilds a merged value: leaves recorded by collectMerge take the next `results`.
SValue rebuildMerged(const SValue& a, const SValue& b, const std::vector<ir::Value*>& results, size_t& idx);

// Restores the builder's insertion point when it goes out of scope.
class InsertionGuard {
 public:
  explicit InsertionGuard(ir::Builder& b) : b_(b), block_(b.block()), pos_(b.position()) {}
  ~InsertionGuard() {
    if (block_) b_.setInsertionPoint(*block_, pos_);
  }
  InsertionGuard(const InsertionGuard&) = delete;
  InsertionGuard& operator=(const InsertionGuard&) = delete;

 private:
  ir::Builder& b_;
  ir::Block* block_;
  size_t pos_;
};

}  // namespace kiln::sema
