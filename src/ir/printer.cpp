// The printer of Tile IR's text form (docs/ir.md). parser.cpp reads this form back, and
// print(parse(print(f))) == print(f) for every function, so the printer must never lose information.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "ir/text.h"
#include "ir/text_syntax.h"

namespace kiln::ir {

std::string formatFloatLiteral(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  // Shortest text that reads back to the same double: 0.1 stays "0.1", 1e-06 stays "1e-06".
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";  // keep it distinguishable from an int
  return s;
}

std::string quoteString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {  // keep the text pure ASCII: control and non-ASCII bytes as \xHH
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", c);
          out += hex;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

bool isValueNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '$';
}

namespace {

// A parameter keeps its name only when the parser reads it back as the same name and it cannot
// collide with the numbers given to other values (so it must not start with a digit).
bool keepsName(const std::string& n) {
  if (n.empty() || (n[0] >= '0' && n[0] <= '9')) return false;
  return std::all_of(n.begin(), n.end(), isValueNameChar);
}

std::string attrValueText(const AttrValue& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) return formatFloatLiteral(*d);
  if (auto* s = std::get_if<std::string>(&v)) return quoteString(*s);
  const auto& list = std::get<std::vector<int64_t>>(v);
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + std::to_string(list[i]);
  return out + "]";
}

class Printer {
 public:
  explicit Printer(const Function& f) {
    std::unordered_set<std::string> taken;
    for (const auto& a : f.body.args) {
      if (keepsName(a->name) && taken.insert(a->name).second)
        names_[a.get()] = a->name;
      else
        number(a.get());
    }
    for (const auto& op : f.body.ops) nameOp(*op);
  }

  void function(const Function& f) {
    out += "func @" + f.name + "(";
    for (size_t i = 0; i < f.body.args.size(); ++i) {
      const Value* a = f.body.args[i].get();
      out += (i ? ", " : "") + ref(a) + ": " + a->type.str();
    }
    out += ") {\n";
    for (const auto& op : f.body.ops) this->op(*op, 1);
    out += "}\n";
  }

  std::string out;

 private:
  // Numbers follow the order in which definitions appear in the text: an op's results, then the
  // arguments and ops of its regions.
  void number(const Value* v) { names_[v] = std::to_string(next_++); }
  void nameOp(const Op& op) {
    for (const auto& r : op.results) number(r.get());
    for (const auto& reg : op.regions) {
      for (const auto& a : reg->args) number(a.get());
      for (const auto& inner : reg->ops) nameOp(*inner);
    }
  }

  // A value that is not defined in the function (broken IR) still prints, as an unparseable name,
  // so dumps of bad IR stay readable.
  std::string ref(const Value* v) const {
    if (!v) return "%<null>";
    auto it = names_.find(v);
    return it == names_.end() ? "%<undefined>" : "%" + it->second;
  }

  void indent(int level) { out.append(size_t(level) * 2, ' '); }

  void op(const Op& op, int level) {
    indent(level);
    for (size_t i = 0; i < op.results.size(); ++i) out += (i ? ", " : "") + ref(op.results[i].get());
    if (!op.results.empty()) out += " = ";
    out += op.name();
    for (size_t i = 0; i < op.operands.size(); ++i) out += (i ? ", " : " ") + ref(op.operands[i]);
    if (!op.attrs.empty()) {
      std::vector<const Attr*> sorted;
      for (const Attr& a : op.attrs) sorted.push_back(&a);
      std::stable_sort(sorted.begin(), sorted.end(), [](const Attr* a, const Attr* b) { return a->name < b->name; });
      out += " {";
      for (size_t i = 0; i < sorted.size(); ++i)
        out += (i ? ", " : "") + sorted[i]->name + " = " + attrValueText(sorted[i]->value);
      out += "}";
    }
    for (size_t i = 0; i < op.results.size(); ++i) out += (i ? ", " : " : ") + op.results[i]->type.str();
    for (const auto& reg : op.regions) {
      out += " {\n";
      if (!reg->args.empty()) {
        indent(level);
        out += "^(";
        for (size_t i = 0; i < reg->args.size(); ++i)
          out += (i ? ", " : "") + ref(reg->args[i].get()) + ": " + reg->args[i]->type.str();
        out += "):\n";
      }
      for (const auto& inner : reg->ops) this->op(*inner, level + 1);
      indent(level);
      out += "}";
    }
    out += "\n";
  }

  std::unordered_map<const Value*, std::string> names_;
  int next_ = 0;
};

}  // namespace

std::string print(const Function& f) {
  Printer p(f);
  p.function(f);
  return std::move(p.out);
}

std::string print(const Module& m) {
  std::string out;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (i) out += "\n";
    out += print(*m.functions[i]);
  }
  return out;
}

}  // namespace kiln::ir
