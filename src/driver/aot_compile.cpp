// kiln::aot::compileVariant: one specialization compiled exactly as the JIT compiles it (kiln::compile on
// the same signature), assembled for the target, and described as C: each signature entry's hint becomes
// the condition the launch function checks, so a variant never runs on arguments it was not built for.
#include <cctype>
#include <set>

#include "driver/aot_emit.h"
#include "driver/aot_grid.h"
#include "driver/aot_tensor_maps.h"
#include "driver/compile.h"
#include "driver/errors.h"
#include "kiln/aot.h"
#include "kiln/launcher.h"
#include "sema/signature.h"

namespace kiln::aot {

namespace {

Error aotError(const std::string& message) {
  Error e;
  e.message = message;
  e.text = "kiln: error: " + message + "\n";
  return e;
}

// The C type a runtime scalar is passed as, and the type of the bytes its .param holds. Half-precision
// and fp8 scalars are passed as their bit patterns: C has no portable type for them.
bool cTypes(ir::Scalar s, std::string& ctype, std::string& slot) {
  switch (s) {
    case ir::Scalar::I1: ctype = "int", slot = "uint8_t"; return true;
    case ir::Scalar::I8: ctype = slot = "int8_t"; return true;
    case ir::Scalar::I16: ctype = slot = "int16_t"; return true;
    case ir::Scalar::I32: ctype = slot = "int32_t"; return true;
    case ir::Scalar::I64: ctype = slot = "int64_t"; return true;
    case ir::Scalar::U8: ctype = slot = "uint8_t"; return true;
    case ir::Scalar::U16: ctype = slot = "uint16_t"; return true;
    case ir::Scalar::U32: ctype = slot = "uint32_t"; return true;
    case ir::Scalar::U64: ctype = slot = "uint64_t"; return true;
    case ir::Scalar::F8E4M3:
    case ir::Scalar::F8E5M2:
    case ir::Scalar::F8E4B15: case ir::Scalar::F8E4B8: case ir::Scalar::F8E5B16: ctype = slot = "uint8_t"; return true;
    case ir::Scalar::F16:
    case ir::Scalar::BF16: ctype = slot = "uint16_t"; return true;
    case ir::Scalar::F32: ctype = slot = "float"; return true;
    case ir::Scalar::F64: ctype = slot = "double"; return true;
    case ir::Scalar::Ptr: ctype = slot = "CUdeviceptr"; return true;
  }
  return false;
}

bool isIntegerScalar(ir::Scalar s) {
  return s == ir::Scalar::I8 || s == ir::Scalar::I16 || s == ir::Scalar::I32 || s == ir::Scalar::I64 ||
         s == ir::Scalar::U8 || s == ir::Scalar::U16 || s == ir::Scalar::U32 || s == ir::Scalar::U64 ||
         s == ir::Scalar::I1;
}

// Builds the variant's parameters and grid names from the kernel's parameters and the signature's
// entries. Returns an error message, or "".
std::string describeParameters(const std::vector<KernelParameter>& params, const sema::Signature& sig,
                               Variant& v, std::vector<GridName>& names) {
  using K = sema::SigEntry::Kind;
  for (size_t i = 0; i < params.size(); ++i) {
    const KernelParameter& p = params[i];
    GridName g{p.name, "", std::nullopt, ""};
    if (i >= sig.entries.size()) {  // an omitted constexpr with a default: compile checked it
      g.whyNot = "is a constexpr left to its default, which the grid cannot read (give its value in the signature)";
      names.push_back(g);
      continue;
    }
    const sema::SigEntry& e = sig.entries[i];
    if (e.kind == K::Tuple)
      return "parameter '" + p.name + "' takes a tuple ('" + e.text + "'): kiln aot launches pointers and scalars only";
    if (p.isConstexpr) {
      if (e.kind == K::Literal && e.litKind == sema::SigEntry::LitKind::Int) g.value = e.intValue;
      else if (e.kind == K::Literal && e.litKind == sema::SigEntry::LitKind::Bool) g.value = e.intValue;
      else g.whyNot = "is the constexpr " + e.text + ", not an integer";
      names.push_back(g);
      continue;
    }
    if (e.kind == K::Literal && e.litKind == sema::SigEntry::LitKind::None) {
      g.whyNot = "is None in this signature (no argument of the launch function)";
      names.push_back(g);
      continue;
    }
    CParam c;
    c.name = cIdentifier(p.name);
    if (e.kind == K::Literal) {  // compile accepted it: the integer 1
      c.ctype = c.slotType = "int32_t";
      c.condition = Condition::EqualsOne;
    } else if (e.kind == K::Pointer) {
      c.ctype = c.slotType = "CUdeviceptr";
      c.condition = e.divisibility >= 16 ? Condition::Align16 : e.divisibility >= 8 ? Condition::Align8 : Condition::None;
      g.whyNot = "is a pointer";
    } else {
      cTypes(e.type, c.ctype, c.slotType);
      const bool integer = isIntegerScalar(e.type) && e.type != ir::Scalar::I1;
      if (integer) c.condition = e.divisibility >= 16 ? Condition::Div16 : e.divisibility >= 8 ? Condition::Div8 : Condition::None;
      if (!isIntegerScalar(e.type)) g.whyNot = "is a float (" + e.text + ")";
    }
    g.cName = c.name;
    names.push_back(g);
    v.params.push_back(c);
  }
  std::set<std::string> seen = {v.name + "_launch"};
  for (const CParam& c : v.params)
    if (!seen.insert(c.name).second)
      return "two parameters are both called '" + c.name + "' in C (rename one in the kernel)";
  return "";
}

bool validName(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return cIdentifier(s) == s;
}

}  // namespace

Result<std::vector<File>> compileVariant(const Source& source, const Options& o) {
  Variant v;
  v.kernel = o.kernel;
  v.name = o.name.empty() ? o.kernel : o.name;
  v.signature = o.signature;
  v.arch = o.arch;
  v.numWarps = o.num_warps;
  v.numStages = o.num_stages;
  v.maxNReg = o.maxnreg;
  v.gridText = o.grid;
  if (!validName(v.name))
    return aotError("--name '" + v.name + "' is not a C identifier that C and C++ leave free (letters, digits, _)");
  if (std::optional<std::string> why = checkNumWarps(o.num_warps)) return aotError("--num-warps: " + *why);
  if (std::optional<std::string> why = checkArch(o.arch)) return aotError("--arch: " + *why);
  if (std::optional<std::string> why = checkMaxNReg(o.maxnreg)) return aotError("--maxnreg: " + *why);

  // The variant itself: exactly what the JIT builds for arguments with these properties, less the TMA
  // copies of pointer-built tiles, whose tensor maps an AOT launcher does not encode.
  CompileOptions options;
  options.arch = o.arch;
  options.num_warps = o.num_warps;
  options.num_stages = o.num_stages;
  options.maxnreg = o.maxnreg;
  options.tma_pointer_tiles = false;
  Result<Kernel> kernel = compile(source, o.kernel, o.signature, options);
  if (!kernel.ok()) return kernel.error();
  Result<std::vector<KernelParameter>> params = kernelParameters(source, o.kernel);
  if (!params.ok()) return params.error();
  Result<sema::Signature> sig = guarded<sema::Signature>([&] { return sema::parseSignature(o.signature); });
  if (!sig.ok()) return sig.error();

  std::vector<GridName> names;
  if (std::string why = describeParameters(params.value(), sig.value(), v, names); !why.empty())
    return aotError("kernel '" + o.kernel + "': " + why);
  const std::vector<Param>& runtime = kernel->params();
  bool same = runtime.size() == v.params.size();
  for (size_t i = 0; same && i < runtime.size(); ++i) same = cIdentifier(runtime[i].name) == v.params[i].name;
  if (!same) {
    Error e = aotError("kernel '" + o.kernel + "': the compiled parameters differ from the signature's (internal error)");
    e.internal = true;
    return e;
  }
  if (!o.grid.empty()) {
    std::string why;
    std::optional<std::vector<std::string>> grid = parseGrid(o.grid, names, v.name, why);
    if (!grid) return aotError(why);
    v.grid = *grid;
  }

  Result<std::shared_ptr<const GpuCode>> code =
      guarded<std::shared_ptr<const GpuCode>>([&] { return kernel->impl().gpuCode(o.arch); });
  if (!code.ok()) return code.error();
  if (std::optional<Error> refused = refuseTensorMaps(kernel.value(), *code.value())) return *refused;
  v.entry = code.value()->entry.name;
  v.numWarps = code.value()->entry.numWarps;
  v.sharedBytes = code.value()->entry.sharedBytes;
  Result<std::vector<uint8_t>> cubin = assembleCubin(kernel.value(), o.arch);
  if (!cubin.ok()) return cubin.error();
  return emitVariant(v, cubin.value(), code.value()->ptx, source.name);
}

}  // namespace kiln::aot
