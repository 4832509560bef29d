// The line format of `print` (print_format.h), after Triton's PrintOpToLLVM: the same conversion letters
// and index widths, so that lines from kiln's interpreter and from the GPU read alike.
#include "ir/print_format.h"

namespace kiln::ir {

PrintArg printArgOf(const Type& t, bool hex) {
  if (t.isPtr()) return PrintArg::Ptr;
  bool wide = !t.isBool() && bitWidth(t.elem) > 32;
  if (t.isFloat() && !hex) return PrintArg::F64;
  if (t.isFloat()) return wide ? PrintArg::U64 : PrintArg::U32;  // the bits
  bool sign = isSigned(t.elem) && !t.isBool();
  return wide ? (sign ? PrintArg::I64 : PrintArg::U64) : (sign ? PrintArg::I32 : PrintArg::U32);
}

int printArgBytes(PrintArg a) { return a == PrintArg::U32 || a == PrintArg::I32 ? 4 : 8; }

namespace {

// The digits of the largest index below `size`, as Triton counts them: ceil(log10(size)).
int indexWidth(int64_t size) {
  int w = 0;
  for (int64_t p = 1; p < size; p *= 10) ++w;
  return w;
}

std::string valueFormat(const Type& t, bool hex) {
  PrintArg a = printArgOf(t, hex);
  if (a == PrintArg::Ptr) return "%p";
  bool wide = a == PrintArg::U64 || a == PrintArg::I64;
  if (hex) return "0x%0" + std::to_string((t.isBool() ? 8 : bitWidth(t.elem)) / 4) + (wide ? "ll" : "") + "x";
  switch (a) {
    case PrintArg::U32: return "%u";
    case PrintArg::I32: return "%i";
    case PrintArg::U64: return "%llu";
    case PrintArg::I64: return "%lli";
    case PrintArg::F64: return "%f";
    case PrintArg::Ptr: break;
  }
  return "%p";
}

}  // namespace

std::string printFormat(const Type& t, const std::string& prefix, bool hex, size_t operand, size_t numOperands) {
  std::string s = "pid (%u, %u, %u) idx (";
  for (size_t d = 0; d < t.shape.size(); ++d) s += (d ? ", %" : "%") + std::to_string(indexWidth(t.shape[d])) + "u";
  s += ")";
  for (char c : prefix) s += c == '%' ? std::string("%%") : std::string(1, c);
  if (numOperands > 1) s += "(operand " + std::to_string(operand) + ") ";
  return s + valueFormat(t, hex) + "\n";
}

std::string printFormatNoOperands(const std::string& prefix) {
  std::string s = "pid (%u, %u, %u)";
  for (char c : prefix) s += c == '%' ? std::string("%%") : std::string(1, c);
  return s + "\n";
}

}  // namespace kiln::ir
