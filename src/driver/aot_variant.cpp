// The conditions of an ahead-of-time variant and the C names of its arguments (aot_variant.h).
#include "driver/aot_variant.h"

#include <set>

namespace kiln::aot {

std::string conditionText(const CParam& p) {
  switch (p.condition) {
    case Condition::None: return "";
    case Condition::Align8: return "(" + p.name + " % 8) == 0";
    case Condition::Align16: return "(" + p.name + " % 16) == 0";
    case Condition::Div8: return "(" + p.name + " % 8) == 0";
    case Condition::Div16: return "(" + p.name + " % 16) == 0";
    case Condition::EqualsOne: return p.name + " == 1";
  }
  return "";
}

// ":16" implies ":8", so it ranks higher; "== 1" never holds together with ":8" or ":16" (1 is not a
// multiple of 8), so its rank only has to beat no condition. With these ranks the variant the JIT would
// build for the arguments, when it is among those linked, has the largest sum of all that apply.
int conditionRank(Condition c) {
  switch (c) {
    case Condition::None: return 0;
    case Condition::Align8:
    case Condition::Div8: return 1;
    case Condition::Align16:
    case Condition::Div16:
    case Condition::EqualsOne: return 2;
  }
  return 0;
}

const char* conditionName(Condition c) {
  switch (c) {
    case Condition::None: return "none";
    case Condition::Align8: return "align8";
    case Condition::Align16: return "align16";
    case Condition::Div8: return "div8";
    case Condition::Div16: return "div16";
    case Condition::EqualsOne: return "eq1";
  }
  return "none";
}

bool conditionFromName(const std::string& text, Condition& out) {
  for (Condition c : {Condition::None, Condition::Align8, Condition::Align16, Condition::Div8, Condition::Div16,
                      Condition::EqualsOne})
    if (text == conditionName(c)) {
      out = c;
      return true;
    }
  return false;
}

std::string cIdentifier(const std::string& name) {
  // C99 and C++ keywords (a Python parameter may be called `int`, `new` or `this`), the names the
  // launch function itself declares, and the C library's macros that a parameter could shadow.
  static const std::set<std::string> kReserved = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
      "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
      "volatile", "while", "_Bool", "_Complex", "_Imaginary", "alignas", "alignof", "and", "and_eq", "asm",
      "bitand", "bitor", "bool", "catch", "char16_t", "char32_t", "char8_t", "class", "compl", "concept",
      "const_cast", "consteval", "constexpr", "constinit", "co_await", "co_return", "co_yield", "decltype",
      "delete", "dynamic_cast", "explicit", "export", "false", "friend", "mutable", "namespace", "new",
      "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
      "reinterpret_cast", "requires", "static_assert", "static_cast", "template", "this", "thread_local",
      "throw", "true", "try", "typeid", "typename", "using", "virtual", "wchar_t", "xor", "xor_eq",
      "stream", "grid_x", "grid_y", "grid_z", "NULL", "errno", "assert", "offsetof", "main"};
  std::string out = name;
  // Names starting with "kiln_aot_" are the generated code's own locals; "__x" and "_X" are the
  // implementation's, so those get a letter in front.
  if (out.size() > 1 && out[0] == '_' && (out[1] == '_' || (out[1] >= 'A' && out[1] <= 'Z'))) out = "p" + out;
  if (kReserved.count(out) || out.rfind("kiln_aot_", 0) == 0) out += "_";
  for (char& c : out)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) c = '_';
  return out;
}

}  // namespace kiln::aot
