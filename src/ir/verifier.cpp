// The Tile IR verifier: arity, attributes, region shape and terminators from ops.def, dominance of
// operands, and the type rule of every op (one switch with no `default:`: a new op must be handled).
#include <algorithm>
#include <unordered_set>

#include "ir/text.h"
#include "layout/linear_layout.h"
#include "ir/verifier_rules.h"

namespace kiln::ir {

namespace {

enum class AttrKind { Int, Float, String, List, Number };

// The kind of every attribute named in ops.def; `Number` is int or float (a constant's value).
std::optional<AttrKind> attrKind(std::string_view name) {
  static constexpr struct {
    std::string_view name;
    AttrKind kind;
  } kKinds[] = {
      {"value", AttrKind::Number}, {"axis", AttrKind::Int}, {"start", AttrKind::Int}, {"end", AttrKind::Int},
      {"order", AttrKind::List}, {"rounding", AttrKind::String}, {"propagate_nan", AttrKind::Int},
      {"pred", AttrKind::String}, {"cache", AttrKind::String}, {"evict", AttrKind::String},
      {"volatile", AttrKind::Int}, {"kind", AttrKind::String}, {"input_precision", AttrKind::String},
      {"values", AttrKind::List}, {"num_stages", AttrKind::Int}, {"loop_unroll_factor", AttrKind::Int},
      {"disallow_acc_multi_buffer", AttrKind::Int}, {"flatten", AttrKind::Int}, {"warp_specialize", AttrKind::Int},
      {"disable_licm", AttrKind::Int}, {"persistent", AttrKind::Int},
      {"message", AttrKind::String}, {"contract", AttrKind::Int}, {"offset", AttrKind::Int},
      {"pending", AttrKind::Int}, {"id", AttrKind::Int}, {"threads", AttrKind::Int}, {"count", AttrKind::Int},
      {"bytes", AttrKind::Int}, {"warps", AttrKind::List}, {"registers", AttrKind::List}, {"lead_warp", AttrKind::List},
      {"reverse", AttrKind::Int}, {"sem", AttrKind::String}, {"scope", AttrKind::String},
      {"pipelined", AttrKind::Int}, {"scratch", AttrKind::List}, {"align", AttrKind::Int}, {"slice_dim", AttrKind::Int}, {"slice_offset", AttrKind::Int},
      {"dim", AttrKind::Int}, {"descending", AttrKind::Int}, {"block", AttrKind::String}, {"prefix", AttrKind::String},
      {"hex", AttrKind::Int}, {"asm", AttrKind::String}, {"constraints", AttrKind::String}, {"pack", AttrKind::Int},
      {"pure", AttrKind::Int}, {"wgmma", AttrKind::Int}, {"fn", AttrKind::String}, {"mode", AttrKind::String},
      {"index", AttrKind::Int}, {"box", AttrKind::List}, {"swizzle", AttrKind::Int}, {"map", AttrKind::Int}, {"tma", AttrKind::Int},
      {"guarded", AttrKind::Int}, {"predicated", AttrKind::Int},
      {"per_warp", AttrKind::Int}, {"step", AttrKind::String}, {"barrier", AttrKind::Int},
  };
  for (const auto& k : kKinds)
    if (k.name == name) return k.kind;
  return std::nullopt;
}

const char* kindName(AttrKind k) {
  switch (k) {
    case AttrKind::Int: return "an integer";
    case AttrKind::Float: return "a float";
    case AttrKind::String: return "a string";
    case AttrKind::List: return "a list of integers";
    case AttrKind::Number: return "a number";
  }
  return "?";
}

bool hasKind(const AttrValue& v, AttrKind k) {
  switch (k) {
    case AttrKind::Int: return std::holds_alternative<int64_t>(v);
    case AttrKind::Float: return std::holds_alternative<double>(v);
    case AttrKind::String: return std::holds_alternative<std::string>(v);
    case AttrKind::List: return std::holds_alternative<std::vector<int64_t>>(v);
    case AttrKind::Number: return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v);
  }
  return false;
}

class Verifier {
 public:
  void function(const Function& f) {
    if (f.body.parentFunc != &f || f.body.parentOp)
      fail(f.loc, "function '@" + f.name + "' has a stale body link");
    block(f.body);
    const Op* last = f.body.terminator();
    if (!last || last->opcode != Opcode::Return)
      fail(last ? last->loc : f.loc, "function '@" + f.name + "' must end with 'return'");
  }

 private:
  std::unordered_set<const Value*> visible_;

  [[noreturn]] static void fail(const SourceLoc& loc, std::string msg) { verifyFail(loc, std::move(msg)); }
  [[noreturn]] static void fail(const Op& op, const std::string& msg) { verifyFail(op, msg); }

  // Dominance: a value is visible from its definition to the end of its block, inside nested
  // regions included; region arguments inside their region only.
  void block(const Block& b) {
    for (size_t i = 0; i < b.args.size(); ++i) {
      const Value* a = b.args[i].get();
      if (a->owner != &b || a->index != i || a->def) {
        const Op* p = b.parentOp;
        fail(p ? p->loc : SourceLoc{}, "region argument #" + std::to_string(i) + " has stale links");
      }
      checkType(b.parentOp, a->type);
      visible_.insert(a);
    }
    for (size_t i = 0; i < b.ops.size(); ++i) {
      const Op& o = *b.ops[i];
      if (o.parent != &b) fail(o, "has a stale parent link (it is not in the block it points to)");
      op(o, b, i + 1 == b.ops.size());
      for (const auto& r : o.results) visible_.insert(r.get());
    }
    for (const auto& a : b.args) visible_.erase(a.get());
    for (const auto& o : b.ops)
      for (const auto& r : o->results) visible_.erase(r.get());
  }

  void checkType(const Op* op, const Type& t) {
    SourceLoc loc = op ? op->loc : SourceLoc{};
    if (t.isPtr() && t.pointee == Scalar::Ptr) fail(loc, "pointer to pointer type is not supported");
    for (int64_t d : t.shape)
      if (d <= 0) fail(loc, "tensor dimensions must be positive in " + t.str());
    if (t.isShared()) {
      if (t.isPtr()) fail(loc, "a shared buffer cannot hold pointers: " + t.str());
      if (!t.layout) fail(loc, "a shared buffer needs a shared layout: " + t.str());
    }
    if (t.layout) {
      if (!t.isTensor() && !t.isShared()) fail(loc, "a scalar type cannot carry a layout: " + t.str());
      std::string why = layoutMismatch(*t.layout, t.shape, t.isShared());
      if (!why.empty()) fail(loc, "layout does not fit " + t.withoutLayout().str() + ": " + why);
    }
  }

  // A register layout of a tile: in dims register, lane, warp (in that order, each may be absent); a
  // shared layout: the in dim offset alone, one offset per element. Out dims dim0..dimN-1 with exactly
  // the tile's sizes.
  static std::string layoutMismatch(const layout::LinearLayout& l, const std::vector<int64_t>& shape, bool shared) {
    if (shared) {
      int64_t numel = 1;
      for (int64_t d : shape) numel *= d;
      if (l.ins().size() != 1 || l.ins()[0].name != "offset")
        return "a shared layout has the one input dimension 'offset'";
      if (l.ins()[0].size() != numel || l.outs().size() != shape.size())
        return "a shared layout maps the " + std::to_string(numel) + " offsets of a slot onto its elements";
      if (!l.isSurjective()) return "a shared layout must give every element an offset";
    }
    const char* order[] = {"register", "lane", "warp"};
    size_t next = 0;
    for (const auto& in : l.ins()) {
      if (shared) break;
      while (next < 3 && in.name != order[next]) ++next;
      if (next == 3) return "input dimension '" + in.name + "' is not one of register, lane, warp (in that order)";
      ++next;
    }
    if (l.outs().size() != shape.size())
      return std::to_string(l.outs().size()) + " output dimensions for a rank-" + std::to_string(shape.size()) + " tile";
    for (size_t i = 0; i < shape.size(); ++i)
      if (l.outs()[i].name != layout::dimName(int(i)) || l.outs()[i].size != shape[i])
        return "output dimension " + std::to_string(i) + " is " + l.outs()[i].name + "=" +
               std::to_string(l.outs()[i].size) + ", expected " + layout::dimName(int(i)) + "=" + std::to_string(shape[i]);
    return "";
  }

  void op(const Op& op, const Block& parent, bool last) {
    const OpInfo& in = op.info();
    int n = int(op.numOperands());
    if (n < in.minOperands || (in.maxOperands >= 0 && n > in.maxOperands)) {
      std::string want = in.minOperands == in.maxOperands ? std::to_string(in.minOperands)
                         : in.maxOperands < 0 ? "at least " + std::to_string(in.minOperands)
                                              : std::to_string(in.minOperands) + " to " + std::to_string(in.maxOperands);
      fail(op, "takes " + want + " operand(s), got " + std::to_string(n));
    }
    if (in.numResults >= 0 && int(op.numResults()) != in.numResults)
      fail(op, "has " + std::to_string(in.numResults) + " result(s), got " + std::to_string(op.numResults()));
    if (in.numRegions < 0 ? op.regions.empty() : int(op.regions.size()) != in.numRegions)
      fail(op, "has " + (in.numRegions < 0 ? std::string("one or more") : std::to_string(in.numRegions)) +
                   " region(s), got " + std::to_string(op.regions.size()));
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      if (!op.operands[i]) fail(op, "operand #" + std::to_string(i) + " is null");
      if (!visible_.count(op.operands[i]))
        fail(op, "operand #" + std::to_string(i) + " is not defined before this use (or is out of scope)");
    }
    for (unsigned i = 0; i < op.numResults(); ++i) {
      const Value* r = op.results[i].get();
      if (r->def != &op || r->index != i) fail(op, "result #" + std::to_string(i) + " has stale links");
      checkType(&op, r->type);
    }
    for (const auto& r : op.regions)
      if (r->parentOp != &op || r->parentFunc) fail(op, "has a region with a stale parent link");
    attributes(op);
    checkTypeRule(op, parent, last);
    for (const auto& r : op.regions) block(*r);
  }

  void attributes(const Op& op) {
    std::string_view spec = op.info().attrs;
    while (!spec.empty()) {  // "name name? ..."
      size_t sp = spec.find(' ');
      std::string_view word = spec.substr(0, sp);
      spec = sp == std::string_view::npos ? std::string_view() : spec.substr(sp + 1);
      if (word.empty()) continue;
      bool optional = word.back() == '?';
      if (optional) word.remove_suffix(1);
      auto kind = attrKind(word);
      if (!kind) fail(op, "has attribute '" + std::string(word) + "' in ops.def that verifier.cpp does not know");
      const AttrValue* v = op.findAttr(word);
      if (!v && !optional) fail(op, "needs attribute '" + std::string(word) + "'");
      if (v && !hasKind(*v, *kind))
        fail(op, "attribute '" + std::string(word) + "' must be " + kindName(*kind));
    }
    if (const AttrValue* v = op.findAttr("scratch"); v && hasKind(*v, AttrKind::List)) {
      const std::vector<int64_t>& s = op.listAttr("scratch");
      if (s.size() != 2 || s[0] < 0 || s[0] % 16 != 0 || s[1] <= 0)
        fail(op, "attribute 'scratch' must be [offset, bytes]: a multiple of 16 and a positive size");
    }
    for (size_t i = 0; i < op.attrs.size(); ++i) {
      const std::string& name = op.attrs[i].name;
      if (!declared(op, name)) fail(op, "has no attribute '" + name + "'");
      for (size_t j = 0; j < i; ++j)
        if (op.attrs[j].name == name) fail(op, "has attribute '" + name + "' twice");
    }
  }

  static bool declared(const Op& op, const std::string& name) {
    std::string_view spec = op.info().attrs;
    size_t pos = 0;
    while ((pos = spec.find(name, pos)) != std::string_view::npos) {
      size_t end = pos + name.size();
      bool startOk = pos == 0 || spec[pos - 1] == ' ';
      bool endOk = end == spec.size() || spec[end] == ' ' || spec[end] == '?';
      if (startOk && endOk) return true;
      pos = end;
    }
    return false;
  }

};

}  // namespace

void verifyFail(const SourceLoc& loc, std::string msg) {
  throw VerifyFailure{Diagnostic{Diagnostic::Kind::Error, loc, std::move(msg), {}}};
}
void verifyFail(const Op& op, const std::string& msg) { verifyFail(op.loc, "'" + std::string(op.name()) + "' " + msg); }

std::optional<Diagnostic> verify(const Function& f) {
  try {
    Verifier().function(f);
  } catch (VerifyFailure& e) {
    return std::move(e.diag);
  }
  return std::nullopt;
}

}  // namespace kiln::ir
