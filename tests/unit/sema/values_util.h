// Fixture for the tests of sema's values half: a Context over an empty module and one function
// whose parameters stand for runtime values; helpers to call operators and builtins, read the
// ops they emitted, verify the function and capture error messages.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/text.h"
#include "sema/context.h"

namespace kiln::sema::test {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

class Values : public ::testing::Test {
 protected:
  ast::Module module;
  ir::Module irm;
  ir::Function& fn = irm.addFunction("k");
  Context cx{module, "k", ir::Builder(fn.body)};
  SourceLoc loc{makeSource("k.py", "pass\n"), 1, 1};

  // A runtime value of type t (a parameter of the function).
  SValue val(const Type& t) { return SValue::irValue(fn.body.addArg(t, "p" + std::to_string(fn.body.numArgs()))); }
  SValue tile(std::vector<int64_t> shape, Scalar s) { return val(Type::tensor(std::move(shape), s)); }
  SValue scalar(Scalar s) { return val(Type::scalar(s)); }
  SValue ptrs(std::vector<int64_t> shape, Scalar pointee) {
    return val(Type{Scalar::Ptr, pointee, std::move(shape)});
  }
  static SValue I(int64_t v) { return SValue::integer(v); }
  static SValue F(double v) { return SValue::real(v); }
  static SValue B(bool v) { return SValue::boolean(v); }
  static SValue S(std::string s) { return SValue::string(std::move(s)); }
  static SValue Tup(std::vector<SValue> e) { return SValue::tuple(std::move(e)); }

  SValue tl(const std::string& name) { return attribute(cx, SValue::ns("triton.language"), name, loc); }
  SValue dt(const std::string& name) { return tl(name); }
  SValue call(const SValue& callee, std::vector<SValue> args, Kwargs kw = {}) {
    return callBuiltin(cx, callee, std::move(args), std::move(kw), loc);
  }
  SValue callTl(const std::string& name, std::vector<SValue> args, Kwargs kw = {}) {
    return call(tl(name), std::move(args), std::move(kw));
  }
  SValue method(const SValue& self, const std::string& name, std::vector<SValue> args, Kwargs kw = {}) {
    return call(attribute(cx, self, name, loc), std::move(args), std::move(kw));
  }
  SValue bin(ast::BinOp op, const SValue& a, const SValue& b) { return binary(cx, op, a, b, loc); }
  SValue cmp(ast::CmpOp op, const SValue& a, const SValue& b) { return compare(cx, op, a, b, loc); }

  static Type typeOfIR(const SValue& v) {
    EXPECT_TRUE(v.isIR()) << v.describe();
    return v.isIR() ? v.ir->type : Type{};
  }
  static std::string ty(const SValue& v) { return v.isIR() ? v.ir->type.str() : "<" + v.describe() + ">"; }

  int count(Opcode op) const {
    int n = 0;
    ir::walk(fn, [&](ir::Op& o) { n += o.opcode == op; });
    return n;
  }
  const ir::Op* last(Opcode op) const {
    const ir::Op* found = nullptr;
    ir::walk(fn, [&](ir::Op& o) {
      if (o.opcode == op) found = &o;
    });
    return found;
  }
  // Ends the function and runs the IR verifier over everything emitted so far.
  void expectValid() {
    cx.b.setInsertionPointToEnd(fn.body);
    cx.b.create(Opcode::Return, {}, {}, {}, loc);
    auto problem = ir::verify(fn);
    EXPECT_FALSE(problem.has_value()) << (problem ? problem->message : "") << "\n" << ir::print(fn);
  }

  // The message of the CompileError `f` throws; a test failure when it throws none.
  template <class Fn>
  std::string error(Fn&& f) {
    try {
      f();
    } catch (const CompileError& e) {
      EXPECT_EQ(e.diag().loc.line, loc.line) << "error not located at the construct";
      return e.diag().message;
    }
    ADD_FAILURE() << "expected a CompileError";
    return "";
  }
};

inline bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace kiln::sema::test
