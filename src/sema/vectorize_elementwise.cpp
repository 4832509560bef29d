// tl.map_elementwise's scalar function as tile code (vectorize_elementwise.h says what becomes what).
#include "sema/vectorize_elementwise.h"

#include "sema/lower.h"  // InsertionGuard

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

ElementwiseVectorizer::ElementwiseVectorizer(Context& cx, Shape shape, std::string fnName, SourceLoc callLoc)
    : cx_(cx), shape_(std::move(shape)), fnName_(std::move(fnName)), callLoc_(std::move(callLoc)) {}

void ElementwiseVectorizer::bind(const ir::Value* scalar, ir::Value* v) { map_[scalar] = v; }

ir::Value* ElementwiseVectorizer::mapped(const ir::Value* scalar) const {
  auto it = map_.find(scalar);
  if (it == map_.end()) throw InternalError(callLoc_, "map_elementwise: a value of '" + fnName_ + "' used before it is made");
  return it->second;
}

ir::Value* ElementwiseVectorizer::asTile(ir::Value* v) {
  return v->type.isTensor() ? v : broadcastTo(cx_, v, shape_, v->def ? v->def->loc : callLoc_);
}

ir::Value* ElementwiseVectorizer::tile(const ir::Value* scalar) { return asTile(mapped(scalar)); }

void ElementwiseVectorizer::refuse(const ir::Op& op, const std::string& why) const {
  CompileError err(op.loc, why);
  err.diag().notes.push_back(Diagnostic{Diagnostic::Kind::Note, callLoc_,
                                        "in the scalar function '" + fnName_ + "' of tl.map_elementwise called here", {}});
  throw err;
}

void ElementwiseVectorizer::block(const ir::Block& b) {
  for (const auto& o : b.ops)
    if (o.get() != b.terminator() || o->info().family != ir::Family::Terminator) op(*o);
}

void ElementwiseVectorizer::op(const ir::Op& op) {
  for (const auto& r : op.results)
    if (r->type.isTensor())
      refuse(op, "a map_elementwise function computes on single elements, but this makes a " + r->type.str());
  switch (op.info().family) {
    case ir::Family::Constant: case ir::Family::Cast: case ir::Family::Arith: case ir::Family::Bitwise:
    case ir::Family::Math: case ir::Family::Compare:
      return elementwise(op);
    case ir::Family::Index:
      if (op.opcode == Opcode::Arange) break;
      return elementwise(op);
    case ir::Family::Control:
      if (op.opcode == Opcode::If) return ifOp(op);
      if (op.opcode == Opcode::For) return forOp(op);
      if (op.opcode == Opcode::While) return whileOp(op);
      break;
    case ir::Family::Assert:
      if (op.opcode == Opcode::Assert) return assertOp(op);
      refuse(op, std::string("'") + op.name() + "' cannot be used in a map_elementwise function (its lines would follow "
                 "no element order)");
    case ir::Family::Memory: case ir::Family::Pointer:
      refuse(op, "a map_elementwise function cannot access memory");
    case ir::Family::Shape: case ir::Family::Reduce: case ir::Family::Dot: case ir::Family::Exchange:
    case ir::Family::Hint: case ir::Family::Asm: case ir::Family::Layout: case ir::Family::Shared:
    case ir::Family::Async: case ir::Family::Sync: case ir::Family::Mma: case ir::Family::Partition:
    case ir::Family::Terminator:
      break;
  }
  refuse(op, std::string("'") + op.name() + "' cannot be used in a map_elementwise function");
}

// The same op on what its operands became: scalars while every operand is one, else tiles.
void ElementwiseVectorizer::elementwise(const ir::Op& op) {
  std::vector<ir::Value*> operands;
  bool anyTile = false;
  for (const ir::Value* v : op.operands) {
    operands.push_back(mapped(v));
    anyTile = anyTile || operands.back()->type.isTensor();
  }
  std::vector<Type> types;
  for (const auto& r : op.results) types.push_back(anyTile ? r->type.withShape(shape_) : r->type);
  if (anyTile)
    for (ir::Value*& v : operands) v = asTile(v);
  ir::Op* made = cx_.b.create(op.opcode, operands, types, op.attrs, op.loc);
  for (size_t i = 0; i < op.results.size(); ++i) map_[op.results[i].get()] = made->results[i].get();
}

ir::Value* ElementwiseVectorizer::select(ir::Value* mask, ir::Value* a, ir::Value* b, const SourceLoc& loc) {
  if (a == b) return a;
  if (mask->type.isTensor() || a->type.isTensor() || b->type.isTensor()) {
    mask = asTile(mask), a = asTile(a), b = asTile(b);
  }
  return emit(cx_, Opcode::Select, {mask, a, b}, a->type, loc);
}

ir::Value* ElementwiseVectorizer::within(ir::Value* mask, const SourceLoc& loc) {
  mask = asTile(mask);
  return running_ ? emit(cx_, Opcode::And, {running_, mask}, mask->type, loc) : mask;
}

ir::Value* ElementwiseVectorizer::anyOf(ir::Value* mask, const SourceLoc& loc) {
  ir::Value* v = castElem(cx_, mask, Type::scalar(Scalar::I32), loc);
  if (v->type.rank() != 1) v = emit(cx_, Opcode::Reshape, {v}, v->type.withShape({v->type.numel()}), loc);
  ir::Value* most = emit(cx_, Opcode::Reduce, {v}, Type::scalar(Scalar::I32), loc, {{"axis", int64_t(0)}, {"kind", std::string("max")}});
  return emit(cx_, Opcode::Cmp, {most, cx_.b.intConst(0, Type::scalar(Scalar::I32), loc)}, Type::scalar(Scalar::I1), loc,
              {{"pred", std::string("ne")}});
}

// Both branches, each for the elements that take it; a result is the taken branch's value.
void ElementwiseVectorizer::ifOp(const ir::Op& op) {
  ir::Value* cond = mapped(op.operand(0));
  ir::Value* outer = running_;
  ir::Value* notCond = emit(cx_, Opcode::Xor, {cond, cx_.b.intConst(1, cond->type, op.loc)}, cond->type, op.loc);
  std::vector<ir::Value*> yields[2];
  for (int i = 0; i < 2; ++i) {
    const ir::Block& branch = op.region(unsigned(i));
    running_ = within(i == 0 ? cond : notCond, op.loc);
    block(branch);
    running_ = outer;
    for (const ir::Value* y : branch.terminator()->operands) yields[i].push_back(mapped(y));
  }
  for (size_t k = 0; k < op.results.size(); ++k)
    map_[op.results[k].get()] = select(cond, yields[0][k], yields[1][k], op.loc);
}

void ElementwiseVectorizer::forOp(const ir::Op& op) {
  for (unsigned i = 0; i < 3; ++i)
    if (mapped(op.operand(i))->type.isTensor()) return loopUntilDone(op);
  // Bounds that depend on no element: the same loop, its values tiles.
  std::vector<ir::Value*> operands{mapped(op.operand(0)), mapped(op.operand(1)), mapped(op.operand(2))};
  std::vector<Type> types;
  for (size_t k = 3; k < op.numOperands(); ++k) {
    operands.push_back(tile(op.operand(k)));
    types.push_back(operands.back()->type);
  }
  ir::Op* loop = cx_.b.create(Opcode::For, operands, types, op.attrs, op.loc);
  const ir::Block& body = op.region(0);
  {
    InsertionGuard guard(cx_.b);
    ir::Block& nb = loop->region(0);
    cx_.b.setInsertionPointToEnd(nb);
    bind(body.arg(0), nb.addArg(body.arg(0)->type));
    for (unsigned k = 1; k < body.numArgs(); ++k) bind(body.arg(k), nb.addArg(types[k - 1]));
    block(body);
    std::vector<ir::Value*> next;
    for (const ir::Value* y : body.terminator()->operands) next.push_back(tile(y));
    cx_.b.create(Opcode::Yield, next, {}, {}, body.terminator()->loc);
  }
  for (size_t k = 0; k < op.results.size(); ++k) map_[op.results[k].get()] = loop->results[k].get();
}

// A `for` whose bounds differ between elements: a while loop over tiles that runs while some element's
// index is below its bound; an element whose loop ended keeps its values.
void ElementwiseVectorizer::loopUntilDone(const ir::Op& op) {
  const SourceLoc& loc = op.loc;
  ir::Value* ub = tile(op.operand(1));
  ir::Value* step = tile(op.operand(2));
  const Type ivTile = ub->type;
  ir::Value* positive = emit(cx_, Opcode::Cmp, {step, cx_.b.intConst(0, ivTile, loc)}, Type::tensor(shape_, Scalar::I1),
                             loc, {{"pred", std::string("gt")}});
  ir::Value* stepOk = running_ ? select(running_, positive, cx_.b.intConst(1, positive->type, loc), loc) : positive;
  cx_.b.create(Opcode::Assert, {stepOk}, {}, {{"message", std::string("for loop has a non-positive step")}}, loc);

  std::vector<ir::Value*> inits{tile(op.operand(0))};
  for (size_t k = 3; k < op.numOperands(); ++k) inits.push_back(tile(op.operand(k)));
  std::vector<Type> types;
  for (ir::Value* v : inits) types.push_back(v->type);
  std::vector<Type> resultTypes{Type::tensor(shape_, Scalar::I1)};
  resultTypes.insert(resultTypes.end(), types.begin(), types.end());
  ir::Op* loop = cx_.b.create(Opcode::While, inits, resultTypes, {}, loc);
  {
    InsertionGuard guard(cx_.b);
    ir::Block& before = loop->region(0);
    cx_.b.setInsertionPointToEnd(before);
    std::vector<ir::Value*> args;
    for (const Type& t : types) args.push_back(before.addArg(t));
    ir::Value* below = emit(cx_, Opcode::Cmp, {args[0], ub}, Type::tensor(shape_, Scalar::I1), loc, {{"pred", std::string("lt")}});
    ir::Value* active = within(below, loc);
    std::vector<ir::Value*> operands{anyOf(active, loc), active};
    operands.insert(operands.end(), args.begin(), args.end());
    cx_.b.create(Opcode::Condition, operands, {}, {}, loc);
  }
  {
    InsertionGuard guard(cx_.b);
    ir::Block& after = loop->region(1);
    cx_.b.setInsertionPointToEnd(after);
    ir::Value* active = after.addArg(resultTypes[0]);
    std::vector<ir::Value*> args;
    for (const Type& t : types) args.push_back(after.addArg(t));
    const ir::Block& body = op.region(0);
    for (unsigned k = 0; k < body.numArgs(); ++k) bind(body.arg(k), args[k]);
    ir::Value* outer = running_;
    running_ = active;
    block(body);
    running_ = outer;
    std::vector<ir::Value*> next{select(active, emit(cx_, Opcode::Add, {args[0], step}, ivTile, loc), args[0], loc)};
    const auto& yields = body.terminator()->operands;
    for (size_t k = 0; k < yields.size(); ++k) next.push_back(select(active, tile(yields[k]), args[k + 1], loc));
    cx_.b.create(Opcode::Yield, next, {}, {}, body.terminator()->loc);
  }
  for (size_t k = 0; k < op.results.size(); ++k) map_[op.results[k].get()] = loop->results[k + 2].get();
}

// A while loop over tiles that runs while some element's condition holds. The condition passes on the
// values at the top of the iteration too, so that an element whose loop ended keeps them.
void ElementwiseVectorizer::whileOp(const ir::Op& op) {
  const SourceLoc& loc = op.loc;
  const ir::Block& before = op.region(0);
  const ir::Block& after = op.region(1);
  std::vector<ir::Value*> inits;
  for (const ir::Value* v : op.operands) inits.push_back(tile(v));
  std::vector<Type> carried, passed;
  for (ir::Value* v : inits) carried.push_back(v->type);
  for (const auto& r : op.results) passed.push_back(r->type.withShape(shape_));
  std::vector<Type> resultTypes{Type::tensor(shape_, Scalar::I1)};
  resultTypes.insert(resultTypes.end(), carried.begin(), carried.end());
  resultTypes.insert(resultTypes.end(), passed.begin(), passed.end());
  ir::Op* loop = cx_.b.create(Opcode::While, inits, resultTypes, {}, loc);
  {
    InsertionGuard guard(cx_.b);
    ir::Block& nb = loop->region(0);
    cx_.b.setInsertionPointToEnd(nb);
    std::vector<ir::Value*> args;
    for (unsigned k = 0; k < before.numArgs(); ++k) {
      args.push_back(nb.addArg(carried[k]));
      bind(before.arg(k), args.back());
    }
    block(before);
    const ir::Op& cond = *before.terminator();
    ir::Value* active = within(mapped(cond.operand(0)), cond.loc);
    std::vector<ir::Value*> operands{anyOf(active, cond.loc), active};
    operands.insert(operands.end(), args.begin(), args.end());
    for (size_t k = 1; k < cond.numOperands(); ++k) operands.push_back(tile(cond.operand(k)));
    cx_.b.create(Opcode::Condition, operands, {}, {}, cond.loc);
  }
  {
    InsertionGuard guard(cx_.b);
    ir::Block& nb = loop->region(1);
    cx_.b.setInsertionPointToEnd(nb);
    ir::Value* active = nb.addArg(resultTypes[0]);
    std::vector<ir::Value*> old;
    for (const Type& t : carried) old.push_back(nb.addArg(t));
    for (unsigned k = 0; k < after.numArgs(); ++k) bind(after.arg(k), nb.addArg(passed[k]));
    ir::Value* outer = running_;
    running_ = active;
    block(after);
    running_ = outer;
    std::vector<ir::Value*> next;
    const auto& yields = after.terminator()->operands;
    for (size_t k = 0; k < yields.size(); ++k) next.push_back(select(active, tile(yields[k]), old[k], loc));
    cx_.b.create(Opcode::Yield, next, {}, {}, after.terminator()->loc);
  }
  for (size_t k = 0; k < op.results.size(); ++k)
    map_[op.results[k].get()] = loop->results[1 + carried.size() + k].get();
}

// An assert checks the elements whose code reaches it.
void ElementwiseVectorizer::assertOp(const ir::Op& op) {
  ir::Value* cond = mapped(op.operand(0));
  if (running_) cond = select(running_, cond, cx_.b.intConst(1, Type::scalar(Scalar::I1), op.loc), op.loc);
  cx_.b.create(Opcode::Assert, {cond}, {}, op.attrs, op.loc);
}

}  // namespace kiln::sema
