// A tiny evaluator of emitted PTX for one thread, for the integer and predicate instructions the
// codegen tests exercise (thread indices, coordinates, scalar control flow, address arithmetic and
// stores). It lets the tests check what the code computes without a GPU. Unknown instructions stop
// it with an error naming the line, so a test never passes by skipping what it cannot read.
#pragma once
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::lower::test {

struct Store {
  uint64_t address;
  uint64_t value;  // the stored bits (one element)
  int bytes;
};

struct PtxThread {
  // inputs
  uint32_t tid = 0, ctaid[3] = {0, 0, 0}, nctaid[3] = {1, 1, 1};
  std::map<std::string, uint64_t> params;  // by PTX symbol ("kernel_name")
  std::map<uint64_t, uint32_t> memory;     // 32-bit words a global load reads (absent: 0)
  // outputs
  std::map<std::string, uint64_t> regs;
  std::vector<Store> stores;
  bool trapped = false;
  std::string error;  // set when the evaluator met something it does not model
  int64_t steps = 0;
};

namespace detail {

inline std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

inline std::vector<std::string> splitOperands(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

inline std::vector<std::string> splitDots(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, '.');) out.push_back(p);
  return out;
}

struct Inst {
  std::string guard;  // "" or "%p1" / "!%p1"
  std::string opcode;
  std::vector<std::string> ops;
  std::string line;
};

}  // namespace detail

// Runs the first entry of `ptx` for thread `t` until ret, trap, an error or `maxSteps` instructions.
inline void runThread(const std::string& ptx, PtxThread& t, int64_t maxSteps = 200000) {
  using detail::trim;
  std::vector<detail::Inst> code;
  std::map<std::string, size_t> labels;
  std::istringstream in(ptx.substr(ptx.find("{\n")));
  for (std::string raw; std::getline(in, raw);) {
    std::string l = trim(raw.substr(0, raw.find("//")));
    if (l.empty() || l[0] == '.' || l == "{" || l == "}") continue;
    if (l.back() == ':') {
      labels[l.substr(0, l.size() - 1)] = code.size();
      continue;
    }
    detail::Inst i;
    i.line = l;
    if (l.back() == ';') l.pop_back();
    if (l[0] == '@') {
      size_t sp = l.find(' ');
      i.guard = l.substr(1, sp - 1);
      l = trim(l.substr(sp));
    }
    size_t sp = l.find(' ');
    i.opcode = l.substr(0, sp);
    if (sp != std::string::npos) i.ops = detail::splitOperands(l.substr(sp + 1));
    code.push_back(i);
  }
  auto fail = [&](const detail::Inst& i, const std::string& why) { t.error = why + ": `" + i.line + "`"; };
  auto value = [&](const std::string& s, bool& ok) -> uint64_t {
    ok = true;
    if (s == "%tid.x") return t.tid;
    if (s == "%ntid.x") return 128;
    static const char* kCta[] = {"%ctaid.x", "%ctaid.y", "%ctaid.z"};
    static const char* kNcta[] = {"%nctaid.x", "%nctaid.y", "%nctaid.z"};
    for (int k = 0; k < 3; ++k) {
      if (s == kCta[k]) return t.ctaid[k];
      if (s == kNcta[k]) return t.nctaid[k];
    }
    if (!s.empty() && s[0] == '%') {
      auto it = t.regs.find(s);
      if (it == t.regs.end()) ok = false;
      return it == t.regs.end() ? 0 : it->second;
    }
    if (s.rfind("0f", 0) == 0 || s.rfind("0d", 0) == 0) return std::stoull(s.substr(2), nullptr, 16);
    if (s.rfind("0x", 0) == 0) return std::stoull(s.substr(2), nullptr, 16);
    try {
      return uint64_t(std::stoll(s));
    } catch (...) {
      ok = false;
      return 0;
    }
  };
  // [%rd1+16] -> address
  auto address = [&](const std::string& s, bool& ok) -> uint64_t {
    std::string a = s.substr(1, s.size() - 2);
    size_t plus = a.find('+');
    uint64_t base = value(a.substr(0, plus), ok);
    if (plus != std::string::npos) base += uint64_t(std::stoll(a.substr(plus + 1)));
    return base;
  };
  for (size_t pc = 0; pc < code.size();) {
    if (++t.steps > maxSteps) {
      t.error = "step limit";
      return;
    }
    const detail::Inst& i = code[pc++];
    if (!i.guard.empty()) {
      bool neg = i.guard[0] == '!';
      bool ok;
      uint64_t p = value(neg ? i.guard.substr(1) : i.guard, ok);
      if (!ok) return fail(i, "guard read before it is set");
      if ((p != 0) == neg) continue;
    }
    std::vector<std::string> part = detail::splitDots(i.opcode);
    const std::string& op = part[0];
    const std::string type = part.back();
    const int width = type.size() >= 2 && (type.substr(1) == "64") ? 64 : (type == "pred" ? 1 : 32);
    const bool isSigned = type[0] == 's';
    auto mask = [&](uint64_t v) { return width == 64 ? v : width == 1 ? (v & 1) : (v & 0xFFFFFFFFull); };
    auto sval = [&](uint64_t v) { return width == 64 ? int64_t(v) : int64_t(int32_t(uint32_t(v))); };
    std::vector<uint64_t> v;
    bool ok = true;
    size_t firstSrc = (op == "st" || op == "bra" || op == "trap" || op == "ret") ? 0 : 1;
    if (op == "ret") return;
    if (op == "trap") {
      t.trapped = true;
      return;
    }
    if (op == "bra") {
      auto it = labels.find(i.ops.at(0));
      if (it == labels.end()) return fail(i, "unknown label");
      pc = it->second;
      continue;
    }
    if (op == "ld" && part[1] == "param") {
      std::string sym = i.ops[1].substr(1, i.ops[1].size() - 2);
      auto it = t.params.find(sym);
      if (it == t.params.end()) return fail(i, "parameter without a value");
      uint64_t x = it->second;
      if (type == "s8") x = uint64_t(int64_t(int8_t(x)));
      if (type == "u8") x &= 0xFF;
      t.regs[i.ops[0]] = (type == "s8" || type == "s16" || type == "s32") ? uint64_t(uint32_t(x)) : x;
      continue;
    }
    if (op == "ld" && part[1] == "global") {
      uint64_t a = address(i.ops[1], ok);
      if (!ok) return fail(i, "address read before it is set");
      if (type != "b32" && type != "u32" && type != "s32") return fail(i, "only 32-bit loads are modelled");
      std::vector<std::string> dst{i.ops[0]};
      if (i.ops[0][0] == '{') dst = detail::splitOperands(i.ops[0].substr(1, i.ops[0].size() - 2));
      if (a % (4 * dst.size())) return fail(i, "misaligned vector load");
      for (size_t k = 0; k < dst.size(); ++k) t.regs[dst[k]] = t.memory[a + 4 * k];
      continue;
    }
    if (op == "st") {
      if (part[1] != "global") return fail(i, "only global stores are modelled");
      uint64_t a = address(i.ops[0], ok);
      if (!ok) return fail(i, "address read before it is set");
      int bytes = type == "b64" || type == "u64" || type == "s64" || type == "f64" ? 8 : type == "b16" ? 2 : type == "u8" ? 1 : 4;
      std::vector<std::string> vals{i.ops[1]};
      if (i.ops[1][0] == '{') vals = detail::splitOperands(i.ops[1].substr(1, i.ops[1].size() - 2));
      if (a % (uint64_t(bytes) * vals.size())) return fail(i, "misaligned vector store");
      for (size_t k = 0; k < vals.size(); ++k) {
        uint64_t x = value(vals[k], ok);
        if (!ok) return fail(i, "stored register read before it is set");
        t.stores.push_back({a + k * uint64_t(bytes), x, bytes});
      }
      continue;
    }
    for (size_t k = firstSrc; k < i.ops.size(); ++k) {
      v.push_back(value(i.ops[k], ok));
      if (!ok) return fail(i, "operand " + i.ops[k] + " read before it is set");
    }
    uint64_t r = 0;
    if (op == "mov") r = v.at(0);
    else if (op == "and") r = v.at(0) & v.at(1);
    else if (op == "or") r = v.at(0) | v.at(1);
    else if (op == "xor") r = v.at(0) ^ v.at(1);
    else if (op == "not") r = ~v.at(0);
    else if (op == "add") r = v.at(0) + v.at(1);
    else if (op == "sub") r = v.at(0) - v.at(1);
    else if (op == "mul" && part[1] == "lo") r = v.at(0) * v.at(1);
    else if (op == "div" && isSigned) r = v.at(1) ? uint64_t(sval(v[0]) / sval(v[1])) : 0;
    else if (op == "div") r = v.at(1) ? mask(v[0]) / mask(v[1]) : 0;
    else if (op == "rem" && isSigned) r = v.at(1) ? uint64_t(sval(v[0]) % sval(v[1])) : 0;
    else if (op == "rem") r = v.at(1) ? mask(v[0]) % mask(v[1]) : 0;
    else if (op == "min") r = isSigned ? (sval(v.at(0)) < sval(v.at(1)) ? v[0] : v[1]) : std::min(mask(v.at(0)), mask(v.at(1)));
    else if (op == "max") r = isSigned ? (sval(v.at(0)) > sval(v.at(1)) ? v[0] : v[1]) : std::max(mask(v.at(0)), mask(v.at(1)));
    else if (op == "shl") r = v.at(1) >= uint64_t(width) ? 0 : v.at(0) << v.at(1);
    else if (op == "shr" && isSigned) r = uint64_t(sval(v.at(0)) >> std::min<uint64_t>(v.at(1), width - 1));
    else if (op == "shr") r = v.at(1) >= uint64_t(width) ? 0 : mask(v.at(0)) >> v.at(1);
    else if (op == "bfe" && type == "u32") r = (v.at(0) >> v.at(1)) & ((uint64_t(1) << v.at(2)) - 1);
    else if (op == "selp") r = v.at(2) ? v.at(0) : v.at(1);
    else if (op == "mad" && part[1] == "lo") r = v.at(0) * v.at(1) + v.at(2);
    else if (op == "mad" && part[1] == "wide") {
      int64_t a = type == "s32" ? int64_t(int32_t(uint32_t(v.at(0)))) : int64_t(uint32_t(v.at(0)));
      int64_t b = type == "s32" ? int64_t(int32_t(uint32_t(v.at(1)))) : int64_t(uint32_t(v.at(1)));
      t.regs[i.ops[0]] = uint64_t(a * b) + v.at(2);
      continue;
    } else if (op == "setp") {
      const std::string& c = part[1];
      auto cmp = [&](uint64_t a, uint64_t b) {
        bool lt = isSigned ? sval(a) < sval(b) : mask(a) < mask(b);
        bool eq = mask(a) == mask(b);
        if (c == "eq") return eq;
        if (c == "ne") return !eq;
        if (c == "lt") return lt;
        if (c == "le") return lt || eq;
        if (c == "gt") return !lt && !eq;
        if (c == "ge") return !lt;
        return false;
      };
      if (c != "eq" && c != "ne" && c != "lt" && c != "le" && c != "gt" && c != "ge") return fail(i, "unknown comparison");
      bool res = cmp(v.at(0), v.at(1));
      if (part.size() == 4) {
        if (part[2] == "and") res = res && v.at(2);
        else if (part[2] == "or") res = res || v.at(2);
        else return fail(i, "unknown setp combination");
      }
      t.regs[i.ops[0]] = res;
      continue;
    } else {
      return fail(i, "instruction not modelled");
    }
    t.regs[i.ops[0]] = mask(r);
  }
  t.error = "ran off the end of the entry";
}

}  // namespace kiln::lower::test
