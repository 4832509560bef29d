// Reductions and scans with a combine function: tl.reduce and tl.associative_scan call a @jit function
// on scalars to build the combine region of a reduce_combine / scan op (Triton's tt.reduce / tt.scan);
// tl.cumsum, tl.cumprod, tl.xor_sum and tl.reduce_or are the same ops with a fixed add, mul, xor or or.
#include "sema/lower.h"  // InsertionGuard
#include "sema/ops_common.h"
#include "sema/vectorize_elementwise.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using K = SValue::Kind;

namespace {

// The tensors of `input` (one tensor, or a tuple of tensors of one shape).
std::vector<ir::Value*> combineInputs(const SValue& input, const std::string& who, const SourceLoc& loc) {
  std::vector<SValue> items = input.kind == K::Tuple ? input.elts : std::vector<SValue>{input};
  if (items.empty()) fail(loc, who + " needs at least one tensor, got an empty tuple");
  std::vector<ir::Value*> out;
  for (const SValue& v : items) {
    if (!v.isIR() || !v.ir->type.isTensor())
      fail(loc, who + " needs a tensor or a tuple of tensors, got " + (items.size() > 1 ? "an element that is " : "") +
                    v.describe());
    if (v.ir->type.isPtr()) fail(loc, who + " cannot combine pointers: " + v.describe());
    if (!out.empty() && v.ir->type.shape != out[0]->type.shape)
      fail(loc, who + ": all inputs must have the same shape, got " + shapeStr(out[0]->type.shape) + " and " +
                    shapeStr(v.ir->type.shape));
    out.push_back(v.ir);
  }
  return out;
}

// Why an op of a combine function cannot stand in a combine region ("" when it can).
std::string notCombinable(const ir::Op& op) {
  for (const auto& r : op.results)
    if (r->type.isTensor())
      return "a combine function computes on single elements, but this makes a " + r->type.str();
  if (ir::allowedInCombineRegion(op.opcode)) return "";
  switch (op.info().family) {
    case ir::Family::Control:
      return "control flow on runtime values ('" + std::string(op.name()) +
             "') is not supported in a combine function: it runs on single elements (use tl.where)";
    case ir::Family::Memory: case ir::Family::Pointer:
      return "a combine function cannot access memory";
    default:
      return std::string("'") + op.name() + "' cannot be used in a combine function";
  }
}

// Fails at the first op of a combine function's body that a combine region cannot hold, with a note at
// the call of the builtin that called it (`who` at `loc`).
void checkCombinable(const ir::Block& region, const ast::FunctionDef& fn, const std::string& who, const SourceLoc& loc) {
  for (const auto& inner : region.ops) {
    std::string why = notCombinable(*inner);
    if (why.empty()) continue;
    CompileError err(inner->loc, why);
    err.diag().notes.push_back(
        Diagnostic{Diagnostic::Kind::Note, loc, "in the combine function '" + fn.name + "' of " + who + " called here", {}});
    throw err;
  }
}

// A @jit combine function as a region body: called with the scalars, it must return one scalar of each
// input's dtype (a tuple for several inputs).
CombineBody jitBody(Context& cx, const SValue& fnArg, const std::vector<ir::Value*>& inputs, const std::string& who,
                    const SourceLoc& loc) {
  if (fnArg.kind != K::Function || !fnArg.fn)
    fail(loc, who + ": combine_fn must be a @jit function, got " + fnArg.describe());
  const ast::FunctionDef& fn = *fnArg.fn;
  const size_t n = inputs.size(), want = 2 * n;
  size_t required = 0;
  for (const ast::Param& p : fn.params) required += p.defaultValue ? 0 : 1;
  if (required > want || fn.params.size() < want) {
    CompileError err(loc, who + ": combine_fn '" + fn.name + "' must take " + std::to_string(want) +
                              " arguments (the accumulated " + (n == 1 ? "value, then the new one" : "values, then the new ones") +
                              ", one per input), but it takes " + std::to_string(fn.params.size()));
    err.diag().notes.push_back(Diagnostic{Diagnostic::Kind::Note, fn.loc, "'" + fn.name + "' is defined here", {}});
    throw err;
  }
  return [&cx, &fn, inputs, who, loc](const std::vector<ir::Value*>& args) {
    std::vector<SValue> vals;
    for (ir::Value* a : args) vals.push_back(SValue::irValue(a));
    SValue r = cx.callJit(fn, std::move(vals), loc);
    checkCombinable(*cx.b.block(), fn, who, loc);
    std::vector<SValue> leaves = r.kind == K::Tuple ? r.elts : std::vector<SValue>{r};
    std::string wantTypes, gotTypes;
    bool ok = leaves.size() == inputs.size();
    for (size_t i = 0; i < inputs.size(); ++i) wantTypes += (i ? ", " : "") + dtypeExpr(inputs[i]->type.element());
    for (size_t i = 0; i < leaves.size(); ++i) {
      gotTypes += (i ? ", " : "") + (leaves[i].isIR() ? dtypeExpr(leaves[i].ir->type) : leaves[i].describe());
      ok = ok && leaves[i].isIR() && leaves[i].ir->type == inputs[i]->type.element();
    }
    if (r.kind == K::None) gotTypes = "nothing";
    if (!ok)
      fail(loc, who + ": combine_fn '" + fn.name + "' returns (" + gotTypes + ") but must return one scalar of each input's dtype: (" +
                    wantTypes + ")");
    std::vector<ir::Value*> out;
    for (const SValue& v : leaves) out.push_back(v.ir);
    return out;
  };
}

// A fixed binary op as a region body over one input: acc OP x.
CombineBody opBody(Context& cx, Opcode opc, const SourceLoc& loc) {
  return [&cx, opc, loc](const std::vector<ir::Value*>& args) {
    return std::vector<ir::Value*>{emit(cx, opc, {args[0], args[1]}, args[0]->type, loc)};
  };
}

SValue wrap(const std::vector<ir::Value*>& vs, bool tuple) {
  if (!tuple) return SValue::irValue(vs.at(0));
  std::vector<SValue> elts;
  for (ir::Value* v : vs) elts.push_back(SValue::irValue(v));
  return SValue::tuple(std::move(elts));
}

// Triton's tl.reduce: axis None flattens every input; keep_dims keeps the reduced dims with size 1.
std::vector<ir::Value*> reduceWith(Context& cx, std::vector<ir::Value*> inputs, std::optional<int64_t> axis, bool keepDims,
                                   const CombineBody& body, const SourceLoc& loc) {
  const int64_t rank = inputs[0]->type.rank();
  int64_t ax = 0;
  if (axis) ax = wrapAxis(*axis, rank, loc);
  else
    for (ir::Value*& x : inputs)
      if (rank > 1) x = reshape(cx, x, {x->type.numel()}, loc);
  std::vector<ir::Value*> out = combineOp(cx, Opcode::ReduceCombine, inputs, ax, false, body, loc);
  if (keepDims)
    for (ir::Value*& r : out) {
      if (axis) r = expandDims(cx, r, ax, loc);
      else
        for (int64_t i = 0; i < rank; ++i) r = expandDims(cx, r, 0, loc);
    }
  return out;
}

std::optional<int64_t> optionalAxis(const CallArgs& a, size_t i) {
  if (!a.has(i)) return std::nullopt;
  return a.intArg(i);
}

SValue reduceFn(CallArgs& a) {
  std::vector<ir::Value*> in = combineInputs(a.at(0), a.display, a.loc);
  CombineBody body = jitBody(*a.cx, a.at(2), in, a.display, a.loc);
  return wrap(reduceWith(*a.cx, in, optionalAxis(a, 1), a.boolArg(3, false), body, a.loc), a.at(0).kind == K::Tuple);
}

SValue scanFn(CallArgs& a) {
  std::vector<ir::Value*> in = combineInputs(a.at(0), a.display, a.loc);
  if (!a.has(1)) a.fail(a.display + "(): 'axis' must be a constexpr int, got None");
  int64_t axis = wrapAxis(a.intArg(1), in[0]->type.rank(), a.loc);
  CombineBody body = jitBody(*a.cx, a.at(2), in, a.display, a.loc);
  return wrap(combineOp(*a.cx, Opcode::Scan, in, axis, a.boolArg(3, false), body, a.loc), a.at(0).kind == K::Tuple);
}

// cumsum/cumprod: bf16 computes in f32; cumsum's integers narrower than 32 bits in i32/u32, or `dtype`.
SValue cumulative(CallArgs& a, Opcode opc, bool hasDtype) {
  Context& cx = *a.cx;
  ir::Value* x = combineInputs(a.at(0), a.display, a.loc)[0];
  if (x->type.elem == Scalar::BF16) x = castElem(cx, x, Type::scalar(Scalar::F32), a.loc);
  if (hasDtype && a.has(3)) x = castElem(cx, x, a.dtypeArg(3), a.loc);
  else if (hasDtype && x->type.isInt() && ir::bitWidth(x->type.elem) < 32)
    x = castElem(cx, x, Type::scalar(ir::isSigned(x->type.elem) ? Scalar::I32 : Scalar::U32), a.loc);
  int64_t axis = wrapAxis(a.has(1) ? a.intArg(1) : 0, x->type.rank(), a.loc);
  return SValue::irValue(combineOp(cx, Opcode::Scan, {x}, axis, a.boolArg(2, false), opBody(cx, opc, a.loc), a.loc)[0]);
}
SValue cumsum(CallArgs& a) { return cumulative(a, Opcode::Add, true); }
SValue cumprod(CallArgs& a) { return cumulative(a, Opcode::Mul, false); }

// xor_sum / reduce_or: integer reductions by a fixed bitwise op, in the input's own type.
SValue bitwiseReduce(CallArgs& a, Opcode opc) {
  ir::Value* x = combineInputs(a.at(0), a.display, a.loc)[0];
  if (!x->type.isInt()) a.fail(a.display + " only supports integers, got " + a.at(0).describe());
  return SValue::irValue(reduceWith(*a.cx, {x}, optionalAxis(a, 1), a.boolArg(2, false), opBody(*a.cx, opc, a.loc), a.loc)[0]);
}
SValue xorSum(CallArgs& a) { return bitwiseReduce(a, Opcode::Xor); }
SValue reduceOr(CallArgs& a) {
  if (!a.has(1)) a.fail(a.display + "(): 'axis' must be a constexpr int, got None");
  return bitwiseReduce(a, Opcode::Or);
}

// tl.map_elementwise(scalar_fn, *args, pack=1): the inputs broadcast to one shape; scalar_fn takes pack
// scalars of each input (input by input) and returns pack scalars of each result (result by result).
// kiln takes scalar functions without runtime control flow (what a combine function may hold, checked
// on scalars in a scratch block that is then dropped) and calls them on the whole tensors, every op
// being element-wise; each of the pack positions of an input is given the whole input, so a function
// that treats its pack positions alike (Triton's use of pack) computes Triton's result.
SValue mapElementwise(CallArgs& a) {
  Context& cx = *a.cx;
  const std::string who = "tl.map_elementwise";
  const SValue& fnArg = a.at(0);
  if (fnArg.kind != K::Function || !fnArg.fn) a.fail(who + ": scalar_fn must be a @jit function, got " + fnArg.describe());
  const ast::FunctionDef& fn = *fnArg.fn;
  const int64_t pack = a.has(1) ? a.intArg(1) : 1;
  if (pack < 1) a.fail(who + ": pack must be >= 1, got " + std::to_string(pack));
  if (a.rest.empty()) a.fail(who + " needs at least one input tensor");
  std::vector<ir::Value*> ins;
  Shape shape;
  for (const SValue& v : a.rest) {
    ins.push_back(toTensor(cx, v, a.loc, who + "'s argument"));
    shape = broadcastShape(shape, ins.back()->type.shape, a.loc);
  }
  for (ir::Value*& v : ins) v = broadcastTo(cx, v, shape, a.loc);

  auto leavesOf = [&](const SValue& r) {
    std::vector<SValue> leaves = r.kind == K::Tuple ? r.elts : std::vector<SValue>{r};
    if (r.kind == K::None || leaves.empty() || leaves.size() % size_t(pack) != 0)
      a.fail(who + ": scalar_fn '" + fn.name + "' must return " + (pack > 1 ? std::to_string(pack) + " values per result" : "a value or a tuple of values") + ", got " + r.describe());
    for (const SValue& l : leaves)
      if (!l.isIR() && !l.isNumber()) a.fail(who + ": scalar_fn '" + fn.name + "' returns " + l.describe() + ", not a number");
    return leaves;
  };
  // On scalars, in a block of its own: what the function computes for one element, its result types;
  // then that block again over the tiles (vectorize_elementwise.h).
  ir::Block scratch;
  std::vector<SValue> vals;
  for (ir::Value* x : ins)
    for (int64_t j = 0; j < pack; ++j) vals.push_back(SValue::irValue(scratch.addArg(Type::scalar(x->type.elem))));
  std::vector<SValue> leaves;
  SValue r;
  {
    InsertionGuard guard(cx.b);
    cx.b.setInsertionPointToEnd(scratch);
    r = cx.callJit(fn, std::move(vals), a.loc);
    leaves = leavesOf(r);
  }
  std::vector<Type> resultTypes;
  for (size_t k = 0; k < leaves.size(); k += size_t(pack)) {
    Type t = leaves[k].isIR() ? leaves[k].ir->type : literalType(leaves[k]);
    for (int64_t j = 1; j < pack; ++j) {
      Type u = leaves[k + size_t(j)].isIR() ? leaves[k + size_t(j)].ir->type : literalType(leaves[k + size_t(j)]);
      if (u != t) a.fail(who + ": scalar_fn '" + fn.name + "' returns " + t.str() + " and " + u.str() + " for one result (type mismatch in unpacked results)");
    }
    resultTypes.push_back(t);
  }
  ElementwiseVectorizer tiles(cx, shape, fn.name, a.loc);
  for (size_t i = 0; i < ins.size(); ++i)  // each of an input's pack positions is given the whole input
    for (int64_t j = 0; j < pack; ++j) tiles.bind(scratch.arg(unsigned(i * size_t(pack) + size_t(j))), ins[i]);
  tiles.block(scratch);
  const bool single = r.kind != K::Tuple;  // Triton: one tensor back when scalar_fn returned one value
  std::vector<SValue> out;
  for (size_t k = 0; k < resultTypes.size(); ++k) {
    const SValue& l = leaves[k * size_t(pack)];
    ir::Value* v = l.isIR() ? tiles.tile(l.ir) : constantOf(cx, l, resultTypes[k], a.loc);
    out.push_back(SValue::irValue(broadcastTo(cx, castTo(cx, v, resultTypes[k].withShape(v->type.shape), a.loc), shape, a.loc)));
  }
  return single ? out[0] : SValue::tuple(std::move(out));
}

constexpr BuiltinDef kCombine[] = {
    {"map_elementwise", kTl, "scalar_fn *args pack?", mapElementwise},
    {"reduce", kTl | kMember, "input axis combine_fn keep_dims?", reduceFn},
    {"associative_scan", kTl | kMember, "input axis combine_fn reverse?", scanFn},
    {"cumsum", kTl | kMember, "input axis? reverse? dtype?", cumsum},
    {"cumprod", kTl | kMember, "input axis? reverse?", cumprod},
    {"xor_sum", kTl | kMember, "input axis? keep_dims?", xorSum},
    {"reduce_or", kTl | kMember, "input axis keep_dims?", reduceOr},
};

}  // namespace

std::vector<ir::Value*> combineOp(Context& cx, Opcode opc, const std::vector<ir::Value*>& inputs, int64_t axis,
                                  bool reverse, const CombineBody& body, const SourceLoc& loc) {
  std::vector<Type> results;
  for (ir::Value* x : inputs) {
    Shape s = x->type.shape;
    if (opc == Opcode::ReduceCombine) s.erase(s.begin() + axis);
    results.push_back(Type::tensor(s, x->type.elem));
  }
  std::vector<ir::Attr> attrs{{"axis", axis}};
  if (reverse) attrs.push_back({"reverse", int64_t(1)});
  ir::Op* op = cx.b.create(opc, inputs, results, std::move(attrs), loc);
  ir::Block& region = op->region(0);
  std::vector<ir::Value*> args;
  for (int half = 0; half < 2; ++half)
    for (ir::Value* x : inputs) args.push_back(region.addArg(Type::scalar(x->type.elem)));
  ir::Block* outer = cx.b.block();
  const size_t pos = cx.b.position();
  cx.b.setInsertionPointToEnd(region);
  std::vector<ir::Value*> yielded = body(args);
  cx.b.create(Opcode::Yield, yielded, {}, {}, loc);
  cx.b.setInsertionPoint(*outer, pos);
  std::vector<ir::Value*> out;
  for (const auto& r : op->results) out.push_back(r.get());
  return out;
}

std::span<const BuiltinDef> combineBuiltins() { return kCombine; }

}  // namespace kiln::sema
