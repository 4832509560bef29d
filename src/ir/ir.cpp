// Op table lookup, attribute access, block editing, the Builder, walks and cloning.
#include "ir/ir.h"

#include <algorithm>
#include <unordered_map>

#include "support/diagnostic.h"

namespace kiln::ir {

static const OpInfo kOpInfos[] = {
#define OP(Name, spelling, minOps, maxOps, nres, nreg, family, effect, stage, attrs) \
  {spelling, minOps, maxOps, nres, nreg, Family::family, Effect::effect, Stage::stage, attrs},
#include "ir/ops.def"
#undef OP
};

const OpInfo& info(Opcode op) { return kOpInfos[size_t(op)]; }
int numOpcodes() { return int(sizeof(kOpInfos) / sizeof(kOpInfos[0])); }

bool opcodeFromName(std::string_view spelling, Opcode& out) {
  for (int i = 0; i < numOpcodes(); ++i)
    if (spelling == kOpInfos[i].spelling) {
      out = Opcode(i);
      return true;
    }
  return false;
}

bool isElementwise(Opcode op) {
  switch (familyOf(op)) {
    case Family::Arith: case Family::Bitwise: case Family::Math: case Family::Compare:
      return true;
    case Family::Constant: case Family::Index: case Family::Shape: case Family::Cast: case Family::Pointer:
    case Family::Memory: case Family::Reduce: case Family::Dot: case Family::Exchange: case Family::Hint: case Family::Control:
    case Family::Terminator: case Family::Assert: case Family::Asm: case Family::Layout: case Family::Shared:
    case Family::Async: case Family::Sync: case Family::Mma: case Family::Partition:
      return false;
  }
  return false;
}

bool allowedInCombineRegion(Opcode op) {
  switch (familyOf(op)) {
    case Family::Constant: case Family::Cast: case Family::Arith: case Family::Bitwise: case Family::Math:
    case Family::Compare:
      return true;
    case Family::Assert: return op == Opcode::Assert;  // a print's lines follow no order inside a combine
    case Family::Index: return op != Opcode::Arange;
    case Family::Terminator: return op == Opcode::Yield;
    case Family::Shape: case Family::Pointer: case Family::Memory: case Family::Reduce: case Family::Dot: case Family::Exchange:
    case Family::Hint: case Family::Control: case Family::Asm: case Family::Layout: case Family::Shared:
    case Family::Async: case Family::Sync: case Family::Mma: case Family::Partition:
      return false;
  }
  return false;
}

// ---- Op

const AttrValue* Op::findAttr(std::string_view n) const {
  for (const Attr& a : attrs)
    if (a.name == n) return &a.value;
  return nullptr;
}
bool Op::hasAttr(std::string_view n) const { return findAttr(n) != nullptr; }

template <class T>
static const T& getAttr(const Op& op, std::string_view n) {
  const AttrValue* v = op.findAttr(n);
  if (!v || !std::holds_alternative<T>(*v))
    throw InternalError(op.loc, std::string("op '") + op.name() + "' lacks attribute '" + std::string(n) + "' of the expected kind");
  return std::get<T>(*v);
}

int64_t Op::intAttr(std::string_view n) const { return getAttr<int64_t>(*this, n); }
double Op::floatAttr(std::string_view n) const { return getAttr<double>(*this, n); }
const std::string& Op::strAttr(std::string_view n) const { return getAttr<std::string>(*this, n); }
const std::vector<int64_t>& Op::listAttr(std::string_view n) const { return getAttr<std::vector<int64_t>>(*this, n); }

int64_t Op::intAttrOr(std::string_view n, int64_t dflt) const {
  const AttrValue* v = findAttr(n);
  return v && std::holds_alternative<int64_t>(*v) ? std::get<int64_t>(*v) : dflt;
}
std::string Op::strAttrOr(std::string_view n, std::string dflt) const {
  const AttrValue* v = findAttr(n);
  return v && std::holds_alternative<std::string>(*v) ? std::get<std::string>(*v) : dflt;
}

void Op::setAttr(std::string n, AttrValue v) {
  for (Attr& a : attrs)
    if (a.name == n) {
      a.value = std::move(v);
      return;
    }
  attrs.push_back(Attr{std::move(n), std::move(v)});
}

Value* Op::addResult(Type t) {
  auto v = std::make_unique<Value>();
  v->type = std::move(t);
  v->def = this;
  v->index = unsigned(results.size());
  results.push_back(std::move(v));
  return results.back().get();
}

Block& Op::addRegion() {
  auto b = std::make_unique<Block>();
  b->parentOp = this;
  regions.push_back(std::move(b));
  return *regions.back();
}

Op* Op::parentOp() const { return parent ? parent->parentOp : nullptr; }

// ---- Block

Function* Block::function() const {
  const Block* b = this;
  while (b && !b->parentFunc) b = b->parentOp ? b->parentOp->parent : nullptr;
  return b ? b->parentFunc : nullptr;
}

Value* Block::addArg(Type t, std::string name) {
  auto v = std::make_unique<Value>();
  v->type = std::move(t);
  v->owner = this;
  v->index = unsigned(args.size());
  v->name = std::move(name);
  args.push_back(std::move(v));
  return args.back().get();
}

Op* Block::append(std::unique_ptr<Op> op) { return insert(ops.size(), std::move(op)); }

Op* Block::insert(size_t index, std::unique_ptr<Op> op) {
  op->parent = this;
  Op* raw = op.get();
  ops.insert(ops.begin() + std::ptrdiff_t(index), std::move(op));
  return raw;
}

size_t Block::indexOf(const Op* op) const {
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].get() == op) return i;
  throw InternalError(op ? op->loc : SourceLoc{}, "op is not in this block");
}

std::unique_ptr<Op> Block::remove(Op* op) {
  size_t i = indexOf(op);
  std::unique_ptr<Op> owned = std::move(ops[i]);
  ops.erase(ops.begin() + std::ptrdiff_t(i));
  owned->parent = nullptr;
  return owned;
}

// ---- Module

Function* Module::lookup(std::string_view name) const {
  for (const auto& f : functions)
    if (f->name == name) return f.get();
  return nullptr;
}

Function& Module::addFunction(std::string name, SourceLoc loc) {
  functions.push_back(std::make_unique<Function>());
  functions.back()->name = std::move(name);
  functions.back()->loc = std::move(loc);
  return *functions.back();
}

// ---- Builder

void Builder::setInsertionPointBefore(Op* op) { setInsertionPoint(*op->parent, op->parent->indexOf(op)); }
void Builder::setInsertionPointAfter(Op* op) { setInsertionPoint(*op->parent, op->parent->indexOf(op) + 1); }

Op* Builder::create(Opcode opcode, const std::vector<Value*>& operands, const std::vector<Type>& resultTypes,
                    std::vector<Attr> attrs, SourceLoc loc) {
  auto op = std::make_unique<Op>(opcode, std::move(loc));
  op->operands = operands;
  for (const Type& t : resultTypes) op->addResult(t);
  op->attrs = std::move(attrs);
  for (int i = 0; i < op->info().numRegions; ++i) op->addRegion();  // variadic (-1): the caller adds them
  if (!block_) throw InternalError(op->loc, "builder has no insertion point");
  Op* raw = block_->insert(pos_, std::move(op));
  ++pos_;
  return raw;
}

Value* Builder::create1(Opcode opcode, const std::vector<Value*>& operands, const Type& resultType,
                        std::vector<Attr> attrs, SourceLoc loc) {
  return create(opcode, operands, {resultType}, std::move(attrs), std::move(loc))->result(0);
}

Value* Builder::intConst(int64_t v, const Type& t, SourceLoc loc) {
  return create1(Opcode::Constant, {}, t, {Attr{"value", v}}, std::move(loc));
}
Value* Builder::floatConst(double v, const Type& t, SourceLoc loc) {
  return create1(Opcode::Constant, {}, t, {Attr{"value", v}}, std::move(loc));
}

// ---- walks

void walk(Block& b, const std::function<void(Op&)>& fn) {
  for (auto& op : b.ops) {
    fn(*op);
    for (auto& r : op->regions) walk(*r, fn);
  }
}
void walk(Function& f, const std::function<void(Op&)>& fn) { walk(f.body, fn); }

void replaceAllUses(Block& scope, Value* from, Value* to) {
  walk(scope, [&](Op& op) {
    for (Value*& v : op.operands)
      if (v == from) v = to;
  });
}

// ---- clone

Op* cloneOpInto(const Op& op, Block& dst, size_t pos, std::unordered_map<const Value*, Value*>& map) {
  auto c = std::make_unique<Op>(op.opcode, op.loc);
  for (Value* v : op.operands) {
    auto it = map.find(v);
    c->operands.push_back(it == map.end() ? v : it->second);
  }
  c->attrs = op.attrs;
  for (const auto& r : op.results) map[r.get()] = c->addResult(r->type);
  for (const auto& reg : op.regions) cloneBlockInto(*reg, c->addRegion(), map);
  return dst.insert(std::min(pos, dst.ops.size()), std::move(c));
}

void cloneBlockInto(const Block& src, Block& dst, std::unordered_map<const Value*, Value*>& map) {
  for (const auto& a : src.args) map[a.get()] = dst.addArg(a->type, a->name);
  for (const auto& op : src.ops) cloneOpInto(*op, dst, dst.ops.size(), map);
}

std::unique_ptr<Function> clone(const Function& f) {
  auto out = std::make_unique<Function>();
  out->name = f.name;
  out->loc = f.loc;
  std::unordered_map<const Value*, Value*> map;
  cloneBlockInto(f.body, out->body, map);
  return out;
}

}  // namespace kiln::ir
