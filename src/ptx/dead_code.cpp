// Dead-code removal over an entry's body: Entry::removeDeadCode (builder.h).
//
// The code generator lowers a tile op for every register of its layout, and some of those values are
// never read: a loop-carried pointer tile advances every element each iteration although the copies
// read only each vector's first address. ptxas deletes a dead instruction, but not a dead cycle
// through a loop's back edge (the advanced value feeds only the next iteration's copy of itself), and
// those cycles held up to a hundred registers in nested matmul loops. So the body is swept here:
//
// - Roots are the instructions with an effect: stores, copies, barriers, branches, MMAs, calls, loads
//   (kept even when unused: removing them is not worth a rule), and every line this file does not
//   recognise as one of the pure opcodes below.
// - A register is live when a live instruction reads it (operands after the first, guards, address
//   brackets); every instruction that writes a live register is live (registers are not SSA: all of
//   a register's writers count).
// - Pure instructions that write no live register go.
//
// Entries with user PTX (inline asm, which may declare and use registers of its own) are left as they
// are.
#include <cctype>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptx/builder.h"

namespace kiln::ptx {

namespace {

// Opcodes (the text before the first '.') whose only effect is writing their first operand.
bool isPure(std::string_view op) {
  static constexpr std::string_view kPure[] = {
      "add",  "sub",  "mul",  "mad",  "fma",  "neg",  "abs",   "min",  "max",  "div",  "rem",  "and",   "or",
      "xor",  "not",  "cnot", "shl",  "shr",  "shf",  "bfe",   "bfi",  "prmt", "selp", "setp", "mov",   "cvt",
      "cvta", "popc", "clz",  "brev", "lop3", "copysign", "sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos",
      "tanh", "testp", "mul24", "mad24", "sad", "dp4a", "dp2a", "slct", "set", "madc", "addc", "subc"};
  for (std::string_view p : kPure)
    if (op == p) return true;
  return false;
}

// The registers named in `text` (%r12, %rd3, %p1, %h7, %f2, %fd9), as "prefix+number" strings.
void registersIn(std::string_view text, std::vector<std::string>& out) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    size_t j = i + 1;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
    std::string_view prefix = text.substr(i + 1, j - i - 1);
    size_t k = j;
    while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
    const bool reg = k > j && (prefix == "r" || prefix == "rd" || prefix == "p" || prefix == "h" || prefix == "f" ||
                               prefix == "fd");
    if (reg) out.emplace_back(text.substr(i, k - i));
    i = k - 1;
  }
}

struct Line {
  bool pure = false;
  std::vector<std::string> defs, uses;  // for a pure line; a root uses every register it names
};

Line parse(std::string_view line) {
  Line out;
  size_t s = line.find_first_not_of(" \t");
  if (s == std::string_view::npos) return out;
  std::string_view t = line.substr(s);
  if (t.starts_with("//") || t.ends_with(":")) return out;  // comments and labels name no registers
  std::string_view guard;
  if (t.starts_with("@")) {
    size_t sp = t.find_first_of(" \t");
    guard = t.substr(0, sp);
    t = sp == std::string_view::npos ? std::string_view{} : t.substr(t.find_first_not_of(" \t", sp));
  }
  size_t sp = t.find_first_of(" \t");
  std::string_view opcode = t.substr(0, std::min(sp, t.find(';')));
  std::string_view base = opcode.substr(0, opcode.find('.'));
  if (!isPure(base) || sp == std::string_view::npos || !t.ends_with(";")) {
    registersIn(line, out.uses);
    return out;
  }
  // The first operand ends at the first top-level comma (a vector {..} keeps its commas).
  std::string_view ops = t.substr(sp, t.size() - sp - 1);
  int depth = 0;
  size_t end = ops.size();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] == '{') ++depth;
    if (ops[i] == '}') --depth;
    if (ops[i] == ',' && depth == 0) {
      end = i;
      break;
    }
  }
  registersIn(ops.substr(0, end), out.defs);
  if (end < ops.size()) registersIn(ops.substr(end + 1), out.uses);
  registersIn(guard, out.uses);
  out.pure = !out.defs.empty();
  if (!out.pure) registersIn(line, out.uses);
  return out;
}

}  // namespace

void Entry::removeDeadCode() {
  if (hasVerbatim_) return;
  std::vector<Line> lines;
  lines.reserve(body_.size());
  std::unordered_map<std::string, std::vector<size_t>> writers;
  for (size_t i = 0; i < body_.size(); ++i) {
    lines.push_back(parse(body_[i]));
    for (const std::string& d : lines.back().defs) writers[d].push_back(i);
  }
  std::vector<bool> live(body_.size(), false);
  std::unordered_map<std::string, bool> liveReg;
  std::vector<std::string> work;
  auto use = [&](const std::string& r) {
    bool& l = liveReg[r];
    if (!l) l = true, work.push_back(r);
  };
  for (size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].pure) {
      live[i] = true;
      for (const std::string& r : lines[i].uses) use(r);
    }
  while (!work.empty()) {
    std::string r = std::move(work.back());
    work.pop_back();
    auto it = writers.find(r);
    if (it == writers.end()) continue;
    for (size_t w : it->second) {
      if (live[w]) continue;
      live[w] = true;
      for (const std::string& u : lines[w].uses) use(u);
    }
  }
  std::vector<std::string> kept;
  kept.reserve(body_.size());
  for (size_t i = 0; i < body_.size(); ++i)
    if (live[i]) kept.push_back(std::move(body_[i]));
  body_ = std::move(kept);
}

}  // namespace kiln::ptx
