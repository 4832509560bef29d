// Algebraic simplification for canonicalize: identities (x+0, x*1, x&-1, ...), canonical operand
// order (constants on the right), and shorter chains of shape ops. Float rules keep NaN, inf and
// the sign of zero exactly: x + -0.0 -> x is exact, x + 0.0 is not (-0.0 + 0.0 = +0.0).
#include <algorithm>
#include <cmath>

#include "passes/effects.h"
#include "passes/rewrite.h"

namespace kiln::passes {

using ir::Opcode;
using ir::Value;

namespace {

bool definedBy(const Value* v, Opcode opc) { return v->def && v->def->opcode == opc; }

Value* zero(ir::Op& op, ir::Builder& b) { return makeConstant(b, op.result()->type, ir::intElem(0), op.loc); }

// Moves a constant left operand of a commutative op to the right. Float min/max qualify unless
// the constant is a zero: scalar_eval orders -0.0 below +0.0 either way round, but a GPU min/max
// instruction need not, so a zero keeps its place.
bool constantToRight(ir::Op& op) {
  std::optional<ir::Elem> lhs = constantElem(op.operand(0));
  if (!lhs || constantElem(op.operand(1))) return false;
  bool floatMinMax = (op.opcode == Opcode::Min || op.opcode == Opcode::Max) && op.operand(0)->type.isFloat();
  if (!isCommutative(op) && !(floatMinMax && lhs->f != 0.0)) return false;
  std::swap(op.operands[0], op.operands[1]);
  return true;
}

const char* swappedPredicate(const std::string& p) {
  if (p == "lt") return "gt";
  if (p == "gt") return "lt";
  if (p == "le") return "ge";
  if (p == "ge") return "le";
  if (p == "eq") return "eq";
  if (p == "ne") return "ne";
  return nullptr;
}

Value* simplifyCmp(ir::Op& op, ir::Builder& b, bool& modified) {
  Value *x = op.operand(0), *y = op.operand(1);
  std::string pred = op.strAttrOr("pred", "");
  if (constantElem(x) && !constantElem(y)) {
    const char* swapped = swappedPredicate(pred);
    if (!swapped) return nullptr;
    std::swap(op.operands[0], op.operands[1]);
    op.setAttr("pred", std::string(swapped));
    modified = true;
    return nullptr;
  }
  // x cmp x: known for integers and pointers; a float x may be NaN, which compares unequal to itself.
  if (x == y && !x->type.isFloat()) {
    bool reflexive = pred == "eq" || pred == "le" || pred == "ge";
    if (!reflexive && pred != "ne" && pred != "lt" && pred != "gt") return nullptr;
    return makeConstant(b, op.result()->type, ir::intElem(reflexive ? 1 : 0), op.loc);
  }
  return nullptr;
}

Value* simplifySelect(ir::Op& op, ir::Builder& b) {
  Value *c = op.operand(0), *t = op.operand(1), *f = op.operand(2);
  const ir::Type& rt = op.result()->type;
  if (std::optional<ir::Elem> e = constantElem(c)) {
    Value* taken = e->i != 0 ? t : f;
    return taken->type == rt ? taken : nullptr;
  }
  if (t == f && t->type == rt) return t;
  // select(c, true, false) is c itself.
  if (rt.isBool() && c->type == rt && isIntConstant(t, 1) && isIntConstant(f, 0)) return c;
  return nullptr;
}

// A shape op (broadcast, expand_dims, reshape, permute) of a splat is a splat of the result shape.
Value* resplat(ir::Op& op, ir::Builder& b) {
  Value* x = op.operand(0);
  if (!definedBy(x, Opcode::Splat)) return nullptr;
  Value* scalar = x->def->operand(0);
  if (scalar->type != op.result()->type.element()) return nullptr;
  return b.create1(Opcode::Splat, {scalar}, op.result()->type, {}, op.loc);
}

Value* simplifyPermute(ir::Op& op, ir::Builder& b, bool& modified) {
  Value* x = op.operand(0);
  const ir::AttrValue* a = op.findAttr("order");
  if (!a || !std::holds_alternative<std::vector<int64_t>>(*a)) return nullptr;
  std::vector<int64_t> order = std::get<std::vector<int64_t>>(*a);
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity &= order[i] == int64_t(i);
  if (identity && x->type == op.result()->type) return x;
  // permute(permute(y, inner), order): result dim i = y dim inner[order[i]].
  if (definedBy(x, Opcode::Permute)) {
    const ir::AttrValue* ia = x->def->findAttr("order");
    if (!ia || !std::holds_alternative<std::vector<int64_t>>(*ia)) return nullptr;
    const std::vector<int64_t>& inner = std::get<std::vector<int64_t>>(*ia);
    if (inner.size() != order.size()) return nullptr;
    std::vector<int64_t> composed(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      if (order[i] < 0 || size_t(order[i]) >= inner.size()) return nullptr;
      composed[i] = inner[size_t(order[i])];
    }
    op.operands[0] = x->def->operand(0);
    op.setAttr("order", composed);
    modified = true;
    return nullptr;
  }
  return resplat(op, b);
}

Value* simplifyShape(ir::Op& op, ir::Builder& b, bool& modified) {
  Value* x = op.operand(0);
  if (x->type == op.result()->type && op.opcode != Opcode::ExpandDims) return x;
  // reshape(reshape(y)) and reshape(expand_dims(y)) are reshape(y): both keep row-major order.
  // broadcast(broadcast(y)) is broadcast(y).
  bool collapse = op.opcode == Opcode::Reshape
                      ? definedBy(x, Opcode::Reshape) || definedBy(x, Opcode::ExpandDims)
                      : op.opcode == Opcode::Broadcast && definedBy(x, Opcode::Broadcast);
  if (collapse) {
    op.operands[0] = x->def->operand(0);
    modified = true;
    return nullptr;
  }
  return resplat(op, b);
}

// Identities of the two-operand integer and float ops, after constants were moved right.
Value* simplifyBinary(ir::Op& op, ir::Builder& b) {
  Value *x = op.operand(0), *y = op.operand(1);
  if (x->type != op.result()->type || y->type != x->type) return nullptr;
  bool isInt = x->type.isInt(), isFloat = x->type.isFloat();
  Opcode o = op.opcode;
  if (o == Opcode::Add) {
    if ((isInt && isIntConstant(y, 0)) || (isFloat && isFloatConstant(y, -0.0))) return x;
  } else if (o == Opcode::Sub) {
    if ((isInt && isIntConstant(y, 0)) || (isFloat && isFloatConstant(y, 0.0))) return x;
    if (isInt && x == y) return zero(op, b);
  } else if (o == Opcode::Mul) {
    if ((isInt && isIntConstant(y, 1)) || (isFloat && isFloatConstant(y, 1.0))) return x;
    if (isInt && isIntConstant(y, 0)) return y;  // not for floats: inf*0 and NaN*0 are NaN, -1*0 is -0
  } else if (o == Opcode::Div) {
    if (isInt && isIntConstant(y, 1)) return x;
  } else if (o == Opcode::Rem) {
    if (isInt && isIntConstant(y, 1)) return zero(op, b);
  } else if (o == Opcode::And) {
    if (isInt && isIntConstant(y, 0)) return y;
    if (isInt && (isAllOnesConstant(y) || x == y)) return x;
  } else if (o == Opcode::Or) {
    if (isInt && (isIntConstant(y, 0) || x == y)) return x;
    if (isInt && isAllOnesConstant(y)) return y;
  } else if (o == Opcode::Xor) {
    if (isInt && isIntConstant(y, 0)) return x;
    if (isInt && x == y) return zero(op, b);
  } else if (o == Opcode::Shl || o == Opcode::Shr) {
    if (isInt && isIntConstant(y, 0)) return x;
  } else if (o == Opcode::Min || o == Opcode::Max) {
    if (x == y) return x;
  } else if (o == Opcode::UMulHi) {
    if (isInt && isIntConstant(y, 0)) return y;
  }
  return nullptr;
}

}  // namespace

Value* simplify(ir::Op& op, ir::Builder& b, bool& modified) {
  modified = false;
  int n = int(op.numOperands());
  if (op.numResults() != 1 || n < op.info().minOperands || (op.info().maxOperands >= 0 && n > op.info().maxOperands))
    return nullptr;
  switch (op.opcode) {
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Div: case Opcode::Rem:
    case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Shl: case Opcode::Shr:
    case Opcode::Min: case Opcode::Max: case Opcode::UMulHi:
      if (constantToRight(op)) {
        modified = true;
        return nullptr;
      }
      return simplifyBinary(op, b);
    case Opcode::Neg: case Opcode::Not: {
      // neg(neg x) = x (exact for floats, and wraps back for integers); not(not x) = x.
      Value* x = op.operand(0);
      if (definedBy(x, op.opcode) && x->def->operand(0)->type == op.result()->type) return x->def->operand(0);
      return nullptr;
    }
    case Opcode::Cmp:
      return simplifyCmp(op, b, modified);
    case Opcode::Select:
      return simplifySelect(op, b);
    case Opcode::Cast:
      return op.operand(0)->type == op.result()->type ? op.operand(0) : nullptr;
    case Opcode::Bitcast: {
      Value* x = op.operand(0);
      if (x->type == op.result()->type) return x;
      if (!definedBy(x, Opcode::Bitcast)) return nullptr;
      // bitcast(bitcast(y)) = bitcast(y): the bits pass through. Pointers only when it cancels out,
      // so that no ptr<->ptr or ptr<->float bitcast appears that was not there.
      Value* y = x->def->operand(0);
      if (y->type == op.result()->type) return y;
      if (!y->type.isPtr() && !x->type.isPtr() && !op.result()->type.isPtr()) {
        op.operands[0] = y;
        modified = true;
      }
      return nullptr;
    }
    case Opcode::Broadcast: case Opcode::Reshape: case Opcode::ExpandDims:
      return simplifyShape(op, b, modified);
    case Opcode::Permute:
      return simplifyPermute(op, b, modified);
    case Opcode::PtrAdd:
      return isIntConstant(op.operand(1), 0) && op.operand(0)->type == op.result()->type ? op.operand(0) : nullptr;
    default:  // the rules are a partial list: every other op has none
      return nullptr;
  }
  return nullptr;
}

}  // namespace kiln::passes
