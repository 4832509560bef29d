// The constraint and pack rules of inline_asm (see inline_asm.h and docs/language.md).
#include "ir/inline_asm.h"

#include <algorithm>

namespace kiln::ir {

int asmConstraintBits(char letter) {
  switch (letter) {
    case 'r': case 'f': return 32;
    case 'l': case 'd': return 64;
    case 'h': return 16;
    default: return 0;
  }
}

int asmElemBits(const Type& t) {
  if (t.isPtr()) return 64;
  if (t.isBool()) return 8;
  return bitWidth(t.elem);
}

int asmElemsPerReg(const Type& t, int64_t pack) {
  int bits = asmElemBits(t);
  if (bits >= 32) return 1;
  return int(std::min<int64_t>(32 / bits, pack));
}

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The constraint entry `c` fits a register holding `elems` elements of `t`: integer kinds hold packed
// or narrower integers (extended), float kinds exactly their width.
std::string checkFit(const AsmConstraint& c, const Type& t, int elems, const std::string& what) {
  int payload = asmElemBits(t) * elems, bits = asmConstraintBits(c.letter);
  bool floatKind = c.letter == 'f' || c.letter == 'd';
  if (payload > bits || (floatKind && payload != bits))
    return "constraint '" + std::string(c.output ? "=" : "") + c.letter + "' (" + std::to_string(bits) +
           "-bit register) cannot hold " + what + " (" + std::to_string(elems) + " x " + t.withShape({}).str() + ")";
  return "";
}

}  // namespace

std::string parseInlineAsm(const std::string& asmText, const std::string& constraints, int64_t pack,
                           const std::vector<Type>& operands, const std::vector<Type>& results,
                           std::vector<AsmConstraint>& out) {
  out.clear();
  if (pack < 1 || pack > 32) return "pack must be from 1 to 32, got " + std::to_string(pack);
  for (const std::vector<Type>* ts : {&results, &operands})
    for (const Type& t : *ts)
      if (pack % asmElemsPerReg(t, pack) != 0)
        return "pack " + std::to_string(pack) + " is not a whole number of registers of " + t.withShape({}).str();
  size_t start = 0;
  while (start <= constraints.size()) {
    size_t comma = constraints.find(',', start);
    if (comma == std::string::npos) comma = constraints.size();
    std::string c = trim(constraints.substr(start, comma - start));
    start = comma + 1;
    if (out.empty() && comma == constraints.size() && c.empty()) break;  // "" names no operands
    AsmConstraint k;
    if (!c.empty() && c[0] == '=') {
      k.output = true;
      c = c.substr(1);
    }
    if (c.size() != 1 || !asmConstraintBits(c[0])) {
      if (c.size() == 1 && c[0] >= '0' && c[0] <= '9')
        return "tied constraint '" + c + "' is not supported by kiln; give the output its own register";
      return "unknown constraint '" + c + "' (kiln knows r, l, h, f, d, with '=' for outputs)";
    }
    if (k.output && !out.empty() && !out.back().output) return "output constraints must come before the inputs";
    k.letter = c[0];
    out.push_back(k);
  }
  // Outputs: each result's registers in turn; then each operand's, per invocation.
  size_t i = 0;
  auto take = [&](const Type& t, bool output, const std::string& what) -> std::string {
    int per = asmElemsPerReg(t, pack);
    for (int64_t q = 0; q < pack / per; ++q, ++i) {
      if (i >= out.size() || out[i].output != output) return "";
      if (std::string m = checkFit(out[i], t, per, what); !m.empty()) return m;
    }
    return "";
  };
  size_t outputs = 0, inputs = 0;
  for (const Type& t : results) outputs += size_t(pack / asmElemsPerReg(t, pack));
  for (const Type& t : operands) inputs += size_t(pack / asmElemsPerReg(t, pack));
  const size_t want = outputs + inputs;
  size_t haveOut = size_t(std::count_if(out.begin(), out.end(), [](const AsmConstraint& c) { return c.output; }));
  if (haveOut != outputs || out.size() - haveOut != inputs)
    return "constraints name " + std::to_string(haveOut) + " outputs and " + std::to_string(out.size() - haveOut) +
           " inputs, but " + std::to_string(results.size()) + " results and " + std::to_string(operands.size()) +
           " arguments with pack " + std::to_string(pack) + " need " + std::to_string(outputs) + " and " +
           std::to_string(inputs);
  for (size_t r = 0; r < results.size(); ++r)
    if (std::string m = take(results[r], true, "result " + std::to_string(r)); !m.empty()) return m;
  for (size_t a = 0; a < operands.size(); ++a)
    if (std::string m = take(operands[a], false, "argument " + std::to_string(a)); !m.empty()) return m;
  for (size_t p = asmText.find('$'); p != std::string::npos; p = asmText.find('$', p + 1)) {
    if (p + 1 < asmText.size() && asmText[p + 1] == '$') {  // "$$" is a literal "$"
      ++p;
      continue;
    }
    size_t q = p + 1;
    uint64_t n = 0;
    while (q < asmText.size() && asmText[q] >= '0' && asmText[q] <= '9' && n <= want)  // stop once past
      n = n * 10 + uint64_t(asmText[q++] - '0');
    if (q > p + 1 && n >= want)
      return "the asm names $" + std::to_string(n) + " but has only " + std::to_string(want) + " operands ($0..$" +
             std::to_string(want ? want - 1 : 0) + ")";
  }
  return "";
}

}  // namespace kiln::ir
