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
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
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

// A register as a number: its class (r, rd, p, h, f, fd) in the low 3 bits, its index above them.
using RegKey = uint64_t;
constexpr int kRegClasses = 6;

int regClassOf(std::string_view prefix) {
  if (prefix == "r") return 0;
  if (prefix == "rd") return 1;
  if (prefix == "p") return 2;
  if (prefix == "h") return 3;
  if (prefix == "f") return 4;
  if (prefix == "fd") return 5;
  return -1;
}

// The registers named in `text` (%r12, %rd3, %p1, %h7, %f2, %fd9), appended to `out`.
void registersIn(std::string_view text, std::vector<RegKey>& out) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    size_t j = i + 1;
    while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
    const int cls = regClassOf(text.substr(i + 1, j - i - 1));
    size_t k = j;
    uint64_t index = 0;
    while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) index = index * 10 + uint64_t(text[k++] - '0');
    if (k > j && cls >= 0) out.push_back(index << 3 | RegKey(cls));
    i = k - 1;
  }
}

// Every line's defined and used registers, flattened: line i's are [begin[i], begin[i + 1]) of each.
struct Lines {
  std::vector<bool> pure;
  std::vector<RegKey> defs, uses;
  std::vector<uint32_t> defBegin{0}, useBegin{0};
};

// Adds one line: a pure instruction's defs (its first operand) and uses (the other operands and its
// guard); any other line uses every register it names.
void parse(std::string_view line, Lines& out) {
  const size_t defs0 = out.defs.size();
  bool pure = false;
  auto finish = [&] {
    out.pure.push_back(pure);
    out.defBegin.push_back(uint32_t(out.defs.size()));
    out.useBegin.push_back(uint32_t(out.uses.size()));
  };
  size_t s = line.find_first_not_of(" \t");
  if (s == std::string_view::npos) return finish();
  std::string_view t = line.substr(s);
  if (t.starts_with("//") || t.ends_with(":")) return finish();  // comments and labels name no registers
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
    return finish();
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
  pure = out.defs.size() > defs0;
  if (!pure) {
    registersIn(line, out.uses);
    return finish();
  }
  if (end < ops.size()) registersIn(ops.substr(end + 1), out.uses);
  registersIn(guard, out.uses);
  finish();
}

}  // namespace

void Entry::removeDeadCode() {
  if (hasVerbatim_) return;
  const size_t n = body_.size();
  Lines lines;
  lines.pure.reserve(n);
  lines.defBegin.reserve(n + 1);
  lines.useBegin.reserve(n + 1);
  for (const std::string& line : body_) parse(line, lines);

  // Registers numbered densely: class by class, index by index.
  std::vector<uint64_t> classSize(kRegClasses, 0);
  for (const std::vector<RegKey>* keys : {&lines.defs, &lines.uses})
    for (RegKey k : *keys) classSize[k & 7] = std::max(classSize[k & 7], (k >> 3) + 1);
  std::vector<uint64_t> classStart(kRegClasses + 1, 0);
  for (int c = 0; c < kRegClasses; ++c) classStart[size_t(c) + 1] = classStart[size_t(c)] + classSize[size_t(c)];
  auto dense = [&](RegKey k) { return size_t(classStart[k & 7] + (k >> 3)); };
  const size_t numRegs = size_t(classStart[kRegClasses]);

  // The lines writing each register, as one array sliced per register.
  std::vector<uint32_t> writerBegin(numRegs + 1, 0);
  for (RegKey d : lines.defs) ++writerBegin[dense(d) + 1];
  for (size_t r = 0; r < numRegs; ++r) writerBegin[r + 1] += writerBegin[r];
  std::vector<uint32_t> writers(lines.defs.size());
  {
    std::vector<uint32_t> fill(writerBegin.begin(), writerBegin.end() - 1);
    for (size_t i = 0; i < n; ++i)
      for (uint32_t d = lines.defBegin[i]; d < lines.defBegin[i + 1]; ++d) writers[fill[dense(lines.defs[d])]++] = uint32_t(i);
  }

  std::vector<bool> live(n, false), liveReg(numRegs, false);
  std::vector<size_t> work;
  auto useAll = [&](size_t line) {
    for (uint32_t u = lines.useBegin[line]; u < lines.useBegin[line + 1]; ++u) {
      size_t r = dense(lines.uses[u]);
      if (!liveReg[r]) liveReg[r] = true, work.push_back(r);
    }
  };
  for (size_t i = 0; i < n; ++i)
    if (!lines.pure[i]) {
      live[i] = true;
      useAll(i);
    }
  while (!work.empty()) {
    size_t r = work.back();
    work.pop_back();
    for (uint32_t w = writerBegin[r]; w < writerBegin[r + 1]; ++w) {
      const size_t line = writers[w];
      if (live[line]) continue;
      live[line] = true;
      useAll(line);
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i)
    if (live[i]) {
      if (kept != i) body_[kept] = std::move(body_[i]);
      ++kept;
    }
  body_.resize(kept);
}

}  // namespace kiln::ptx
