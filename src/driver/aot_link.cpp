// kiln::aot::linkVariants: several variants of one kernel behind one launch function. Variants are
// tried from the most specialised down (conditionRank), so the one the JIT would have built for the
// arguments runs when it is among them, and otherwise the most specialised one whose conditions hold.
#include <algorithm>
#include <cctype>

#include "driver/aot_metadata.h"
#include "kiln/aot.h"

namespace kiln::aot {

namespace {

Error linkError(const std::string& message) {
  Error e;
  e.message = message;
  e.text = "kiln: error: aot link: " + message + "\n";
  return e;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

int rank(const Variant& v) {
  int r = 0;
  for (const CParam& p : v.params) r += conditionRank(p.condition);
  return r;
}

std::string conditionsOf(const Variant& v) {
  std::string out;
  for (const CParam& p : v.params)
    if (p.condition != Condition::None) out += (out.empty() ? "" : " && ") + conditionText(p);
  return out.empty() ? "1" : out;
}

// Why `b` cannot share a launch function with `a`, or "".
std::string incompatible(const Variant& a, const Variant& b) {
  if (a.kernel != b.kernel) return "it holds kernel '" + b.kernel + "', not '" + a.kernel + "'";
  if (a.grid.empty() != b.grid.empty())
    return std::string("its grid is ") + (b.grid.empty() ? "an argument" : "computed") + " and " + a.name +
           "'s is " + (a.grid.empty() ? "an argument" : "computed");
  if (a.params.size() != b.params.size())
    return "it takes " + std::to_string(b.params.size()) + " arguments and " + a.name + " takes " +
           std::to_string(a.params.size());
  for (size_t i = 0; i < a.params.size(); ++i)
    if (a.params[i].name != b.params[i].name || a.params[i].ctype != b.params[i].ctype)
      return "its argument " + std::to_string(i + 1) + " is " + b.params[i].ctype + " " + b.params[i].name + " and " +
             a.name + "'s is " + a.params[i].ctype + " " + a.params[i].name;
  return "";
}

}  // namespace

Result<std::vector<File>> linkVariants(const std::vector<File>& headers, const std::string& name) {
  if (headers.empty()) return linkError("no variant headers given");
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || cIdentifier(name) != name ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos)
    return linkError("--name '" + name + "' is not a C identifier that C and C++ leave free (letters, digits, _)");
  std::vector<Variant> variants;
  std::vector<std::string> files;
  for (const File& h : headers) {
    Variant v;
    if (std::string why = readMetadata(h.text, v); !why.empty()) return linkError(h.name + ": " + why);
    for (size_t i = 0; i < variants.size(); ++i) {
      if (variants[i].name == v.name)
        return linkError(h.name + ": its variant is called '" + v.name + "' as " + files[i] +
                         "'s is (give each variant its own --name)");
      if (std::string why = incompatible(variants[0], v); !why.empty())
        return linkError(h.name + " cannot be linked with " + files[0] + ": " + why);
      if (conditionsOf(variants[i]) == conditionsOf(v))
        return linkError(h.name + " and " + files[i] + " apply to the same arguments (" + conditionsOf(v) +
                         "): link one of them");
    }
    if (v.name == name)
      return linkError(h.name + ": its variant is already called '" + name + "' (give the dispatcher another --name)");
    variants.push_back(v);
    files.push_back(h.name);
  }
  std::vector<size_t> order(variants.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank(variants[a]) > rank(variants[b]); });

  const Variant& first = variants[0];
  std::string list;
  for (size_t i : order) {
    std::string cond = conditionsOf(variants[i]);
    list += "     " + variants[i].name + " (" + variants[i].arch + "): " +
            (cond == "1" ? std::string("always") : commentSafe(cond)) + "\n";
  }

  std::string h = "/* " + name + ".h: kernel '" + first.kernel + "', " + std::to_string(variants.size()) +
                  " variants behind one launch function, written by kiln aot link.\n"
                  "   The launch function calls the first variant, in this order, whose conditions hold:\n" + list +
                  (conditionsOf(variants[order.back()]) == "1"
                       ? std::string("   (the last applies to any arguments).\n")
                       : std::string("   and returns CUDA_ERROR_NOT_FOUND, launching nothing, when none does.\n")) +
                  "   Compile " + name + ".c with the variants' .c files and link with -lcuda. */\n";
  h += "#ifndef KILN_AOT_" + upper(name) + "_H\n#define KILN_AOT_" + upper(name) + "_H\n\n";
  h += "#include <cuda.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h += "/* Loads every variant into the current context (each launch loads the one it needs). */\n";
  h += "CUresult " + name + "_load(void);\n";
  h += "/* Unloads every variant from the current context. */\n";
  h += "CUresult " + name + "_unload(void);\n";
  h += launchPrototype(first, name) + ";\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";

  std::string c = "/* " + name + ".c: the dispatcher of kernel '" + first.kernel + "' (see " + name + ".h). */\n";
  c += "#include \"" + name + ".h\"\n\n";
  c += "/* The variants, from their own .c files. */\n";
  for (const Variant& v : variants) {
    c += "CUresult " + v.name + "_load(void);\n";
    c += "CUresult " + v.name + "_unload(void);\n";
    c += launchPrototype(v, v.name) + ";\n";
  }
  c += "\nCUresult " + name + "_load(void) {\n  CUresult status;\n";
  for (const Variant& v : variants)
    c += "  if ((status = " + v.name + "_load()) != CUDA_SUCCESS) return status;\n";
  c += "  return CUDA_SUCCESS;\n}\n\n";
  c += "CUresult " + name + "_unload(void) {\n  CUresult status, first = CUDA_SUCCESS;\n";
  for (const Variant& v : variants)
    c += "  if ((status = " + v.name + "_unload()) != CUDA_SUCCESS && first == CUDA_SUCCESS) first = status;\n";
  c += "  return first;\n}\n\n";
  c += launchPrototype(first, name) + " {\n";
  // A variant without conditions ranks 0 and comes last (two such would apply to the same arguments).
  for (size_t i : order) {
    const Variant& v = variants[i];
    std::string cond = conditionsOf(v);
    if (cond == "1") c += "  return " + v.name + "_launch(" + launchArguments(v) + ");\n";
    else c += "  if (" + cond + ")\n    return " + v.name + "_launch(" + launchArguments(v) + ");\n";
  }
  if (conditionsOf(variants[order.back()]) != "1") c += "  return CUDA_ERROR_NOT_FOUND;\n";
  c += "}\n";
  return std::vector<File>{File{name + ".h", h}, File{name + ".c", c}};
}

}  // namespace kiln::aot
