// Test helper: builds Tile IR kernels by hand with ir::Builder (no text parser), every op located
// on its own line of a fake source file so error locations can be checked.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interp/interp.h"
#include "ir/ir.h"
#include "support/diagnostic.h"

namespace kiln::interp::test {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using ir::Value;

inline Type ten(std::vector<int64_t> shape, Scalar s) { return Type::tensor(std::move(shape), s); }
inline Type sc(Scalar s) { return Type::scalar(s); }
inline Type ptrTen(std::vector<int64_t> shape, Scalar pointee) {
  Type t = Type::ptr(pointee);
  t.shape = std::move(shape);
  return t;
}

struct KernelBuilder {
  ir::Module mod;
  ir::Function& fn;
  ir::Builder b;
  std::shared_ptr<const SourceFile> src;
  int line = 1;  // each op created gets the next source line

  explicit KernelBuilder(std::string name) : fn(mod.addFunction(std::move(name))), b(fn.body) {
    std::string text;
    for (int i = 1; i <= 200; ++i) text += "    line_" + std::to_string(i) + "()\n";
    src = makeSource("kern.py", text);
    fn.loc = SourceLoc{src, 1, 1};
  }
  SourceLoc next() { return SourceLoc{src, ++line, 5}; }

  Value* param(Type t, std::string name) { return fn.body.addArg(std::move(t), std::move(name)); }
  Value* op(Opcode oc, std::vector<Value*> operands, Type t, std::vector<ir::Attr> attrs = {}) {
    return b.create1(oc, operands, t, std::move(attrs), next());
  }
  ir::Op* opN(Opcode oc, std::vector<Value*> operands, std::vector<Type> ts, std::vector<ir::Attr> attrs = {}) {
    return b.create(oc, operands, ts, std::move(attrs), next());
  }
  Value* ci(int64_t v, Type t = sc(Scalar::I32)) { return b.intConst(v, t, next()); }
  Value* cf(double v, Type t = sc(Scalar::F32)) { return b.floatConst(v, t, next()); }
  Value* pid(int axis = 0) { return op(Opcode::ProgramId, {}, sc(Scalar::I32), {{"axis", int64_t(axis)}}); }
  Value* arange(int64_t start, int64_t end) {
    return op(Opcode::Arange, {}, ten({end - start}, Scalar::I32), {{"start", start}, {"end", end}});
  }
  Value* splat(Value* v, std::vector<int64_t> shape) {
    return op(Opcode::Splat, {v}, v->type.withShape(std::move(shape)));
  }
  Value* bin(Opcode oc, Value* a, Value* c) { return op(oc, {a, c}, a->type); }
  Value* cmp(const char* pred, Value* a, Value* c) {
    return op(Opcode::Cmp, {a, c}, a->type.withElem(Scalar::I1), {{"pred", std::string(pred)}});
  }
  Value* ptrAdd(Value* p, Value* off) { return op(Opcode::PtrAdd, {p, off}, p->type); }
  Value* load(Value* p, Value* mask = nullptr, Value* other = nullptr) {
    std::vector<Value*> ops = {p};
    if (mask) ops.push_back(mask);
    if (other) ops.push_back(other);
    return op(Opcode::Load, ops, Type{p->type.pointee, Scalar::I32, p->type.shape});
  }
  ir::Op* store(Value* p, Value* v, Value* mask = nullptr) {
    std::vector<Value*> ops = {p, v};
    if (mask) ops.push_back(mask);
    return opN(Opcode::Store, ops, {});
  }
  void ret() { opN(Opcode::Return, {}, {}); }
};

// Builds an ArgValue for a host buffer.
template <class T>
ArgValue buf(std::vector<T>& v) {
  ArgValue a;
  a.kind = ArgValue::Kind::Buffer;
  a.data = v.data();
  a.bytes = v.size() * sizeof(T);
  return a;
}
inline ArgValue intArg(int64_t i) {
  ArgValue a;
  a.kind = ArgValue::Kind::Int;
  a.i = i;
  return a;
}
inline ArgValue floatArg(double f) {
  ArgValue a;
  a.kind = ArgValue::Kind::Float;
  a.f = f;
  return a;
}

// interp::run taking a braced list of arguments.
inline void run(const ir::Function& fn, GridDims grid, const std::vector<ArgValue>& args) {
  interp::run(fn, grid, args);
}

// Runs and returns the CompileError's diagnostic; fails the test when nothing is thrown.
inline Diagnostic runExpectingError(const ir::Function& fn, GridDims grid, const std::vector<ArgValue>& args) {
  try {
    interp::run(fn, grid, args);
  } catch (const CompileError& e) {
    return e.diag();
  }
  ADD_FAILURE() << "expected a CompileError";
  return {};
}

}  // namespace kiln::interp::test
