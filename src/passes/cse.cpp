// cse: common subexpression elimination of pure ops (effects.h). Two ops are the same when opcode,
// operands (either order for commutative ops), attributes and result types agree. Scoped: an op in
// an enclosing block replaces a duplicate inside a nested region, never the reverse, and
// duplicates in sibling regions stay apart.
#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "passes/effects.h"
#include "passes/passes.h"

namespace kiln::passes {

using ir::Value;

namespace {

// Attribute values compared bit for bit: 0.0 and -0.0 are different constants, and a NaN equals
// itself.
bool sameAttrValue(const ir::AttrValue& a, const ir::AttrValue& b) {
  if (std::holds_alternative<double>(a) && std::holds_alternative<double>(b)) {
    double x = std::get<double>(a), y = std::get<double>(b);
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  return a == b;
}

bool sameAttrs(const ir::Op& a, const ir::Op& b) {
  if (a.attrs.size() != b.attrs.size()) return false;
  for (const ir::Attr& x : a.attrs) {
    const ir::AttrValue* y = b.findAttr(x.name);
    if (!y || !sameAttrValue(x.value, *y)) return false;
  }
  return true;
}

std::vector<Value*> keyOperands(const ir::Op& op) {
  std::vector<Value*> ops = op.operands;
  if (isCommutative(op)) std::sort(ops.begin(), ops.end(), std::less<Value*>());
  return ops;
}

bool equivalent(const ir::Op& a, const ir::Op& b) {
  if (a.opcode != b.opcode || a.numResults() != b.numResults() || keyOperands(a) != keyOperands(b)) return false;
  for (unsigned k = 0; k < a.numResults(); ++k)
    if (a.result(k)->type != b.result(k)->type) return false;
  return sameAttrs(a, b);
}

// Hash of what `equivalent` compares; attributes contribute their names only (order-free).
size_t hashOf(const ir::Op& op) {
  size_t h = std::hash<int>()(int(op.opcode));
  auto mix = [&](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  for (Value* v : keyOperands(op)) mix(std::hash<const void*>()(v));
  for (const auto& r : op.results) mix(std::hash<std::string>()(r->type.str()));
  size_t names = 0;
  for (const ir::Attr& a : op.attrs) names += std::hash<std::string>()(a.name);
  mix(names);
  return h;
}

class Cse {
 public:
  void run(ir::Block& body) {
    runBlock(body);
    map_.clear();
    graveyard_.clear();
  }

 private:
  using Scope = std::unordered_multimap<size_t, ir::Op*>;
  std::vector<Scope> scopes_;
  std::unordered_map<const Value*, Value*> map_;
  std::vector<std::unique_ptr<ir::Op>> graveyard_;  // kept alive while map_ may name their results

  ir::Op* lookup(const ir::Op& op, size_t h) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto [first, last] = s->equal_range(h);
      for (auto it = first; it != last; ++it)
        if (equivalent(*it->second, op)) return it->second;
    }
    return nullptr;
  }

  void runBlock(ir::Block& b) {
    scopes_.emplace_back();
    std::vector<bool> merged(b.ops.size(), false);
    for (size_t i = 0; i < b.ops.size(); ++i) {
      ir::Op* op = b.ops[i].get();
      for (Value*& v : op->operands) {
        auto it = map_.find(v);
        if (it != map_.end()) v = it->second;
      }
      if (isPure(*op) && op->regions.empty()) {
        size_t h = hashOf(*op);
        if (ir::Op* same = lookup(*op, h)) {
          for (unsigned k = 0; k < op->numResults(); ++k) map_[op->result(k)] = same->result(k);
          merged[i] = true;
          continue;
        }
        scopes_.back().emplace(h, op);
      }
      for (auto& r : op->regions) runBlock(*r);
    }
    scopes_.pop_back();
    for (size_t i = 0; i < b.ops.size(); ++i)
      if (merged[i]) graveyard_.push_back(std::move(b.ops[i]));
    eraseOps(b, merged);
  }
};

}  // namespace

void cse(ir::Function& fn) { Cse().run(fn.body); }

}  // namespace kiln::passes
