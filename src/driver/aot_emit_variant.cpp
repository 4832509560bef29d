// The C of one ahead-of-time variant (aot_emit.h): a header with the launch function's prototype and
// the metadata block, and a source with the cubin and PTX as arrays, a per-context module table and the
// launch function. The C is C99 and C++ at once and needs <cuda.h> (12.0 or later) and libcuda alone.
#include <algorithm>
#include <cctype>

#include "driver/aot_emit.h"
#include "driver/aot_grid.h"
#include "driver/aot_metadata.h"

namespace kiln::aot {

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string describe(const CParam& p) {
  switch (p.condition) {
    case Condition::None: return "";
    case Condition::Align8: return p.name + " 8-byte aligned";
    case Condition::Align16: return p.name + " 16-byte aligned";
    case Condition::Div8: return p.name + " divisible by 8";
    case Condition::Div16: return p.name + " divisible by 16";
    case Condition::EqualsOne: return p.name + " equal to 1";
  }
  return "";
}

std::string header(const Variant& v, const std::string& origin) {
  const std::string& n = v.name;
  std::string assumes;
  for (const CParam& p : v.params)
    if (p.condition != Condition::None) assumes += (assumes.empty() ? "" : ", ") + describe(p);
  std::string h;
  h += "/* " + n + ".h: kernel '" + v.kernel + "' of " + commentSafe(origin) + ", compiled ahead of time by kiln.\n";
  h += "   signature: " + commentSafe(v.signature) + "\n";
  h += "   " + v.arch + ", " + std::to_string(v.numWarps) + " warps, " + std::to_string(v.numStages) + " stages, " +
       (v.maxNReg ? "at most " + std::to_string(v.maxNReg) + " registers per thread, " : std::string()) +
       std::to_string(v.sharedBytes) + " bytes of dynamic shared memory\n";
  h += "   grid: " + (v.grid.empty() ? std::string("given to the launch function") : commentSafe(v.gridText)) + "\n";
  h += "   It needs only the CUDA driver: compile " + n + ".c with this header and link with -lcuda. */\n";
  h += "#ifndef KILN_AOT_" + upper(n) + "_H\n#define KILN_AOT_" + upper(n) + "_H\n\n";
  h += "#include <cuda.h>\n#include <stdint.h>\n\n";
  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h += "/* Loads the kernel into the current context (the first launch there does it too). */\n";
  h += "CUresult " + n + "_load(void);\n";
  h += "/* Unloads it from the current context; not while a launch of it runs on another thread. */\n";
  h += "CUresult " + n + "_unload(void);\n";
  h += "/* Launches the kernel on `stream` in the current context, asynchronously.\n";
  if (!assumes.empty())
    h += "   CUDA_ERROR_INVALID_VALUE, without launching, unless " + assumes + ".\n";
  h += "   A grid with a zero dimension launches nothing and returns CUDA_SUCCESS. */\n";
  h += launchPrototype(v, n) + ";\n\n";
  h += "#ifdef __cplusplus\n}\n#endif\n\n";
  h += metadataBlock(v);
  h += "#endif\n";
  return h;
}

// The module table and the loads, which are the same code for every variant but for the names.
std::string loader(const Variant& v) {
  const std::string& n = v.name;
  const std::string shared = std::to_string(v.sharedBytes);
  std::string c;
  c += "/* One module per context, found by the context's unique id (cuCtxGetId: a destroyed context's id\n"
       "   never comes back, unlike its handle). Slots are filled under a spin lock and published with a\n"
       "   release store, so the launch path reads them without the lock. */\n";
  c += "#define " + upper(n) + "_CONTEXTS_ 32\n";
  c += "typedef struct { unsigned long long key; CUmodule module; CUfunction function; } " + n + "_slot_t_;\n";
  c += "static " + n + "_slot_t_ " + n + "_slots_[" + upper(n) + "_CONTEXTS_];\n";
  c += "static int " + n + "_lock_;\n\n";
  c += "static CUresult " + n + "_context_key_(unsigned long long *key) {\n"
       "  CUcontext context = NULL;\n"
       "  unsigned long long id = 0;\n"
       "  CUresult status = cuCtxGetCurrent(&context);\n"
       "  if (status != CUDA_SUCCESS) return status;\n"
       "  if (context == NULL) return CUDA_ERROR_INVALID_CONTEXT;\n"
       "  status = cuCtxGetId(context, &id);\n"
       "  *key = id + 1; /* 0 marks a free slot */\n"
       "  return status;\n"
       "}\n\n";
  c += "static CUresult " + n + "_load_locked_(unsigned long long key, CUfunction *out) {\n"
       "  CUmodule module = NULL;\n"
       "  CUfunction function = NULL;\n"
       "  CUresult status, cubin_status;\n"
       "  int i, free_slot = -1;\n"
       "  for (i = 0; i < " + upper(n) + "_CONTEXTS_; ++i) {\n"
       "    if (" + n + "_slots_[i].key == key) { *out = " + n + "_slots_[i].function; return CUDA_SUCCESS; }\n"
       "    if (" + n + "_slots_[i].key == 0 && free_slot < 0) free_slot = i;\n"
       "  }\n"
       "  if (free_slot < 0) return CUDA_ERROR_OUT_OF_MEMORY;\n"
       "  cubin_status = status = cuModuleLoadData(&module, " + n + "_cubin_.bytes);\n"
       "  /* Another GPU than the cubin's: the driver compiles the PTX, where its target allows. */\n"
       "  if (status == CUDA_ERROR_NO_BINARY_FOR_GPU || status == CUDA_ERROR_INVALID_IMAGE) {\n"
       "    status = cuModuleLoadData(&module, " + n + "_ptx_.text);\n"
       "    if (status != CUDA_SUCCESS) return cubin_status;\n"
       "  }\n"
       "  if (status == CUDA_SUCCESS) status = cuModuleGetFunction(&function, module, \"" + v.entry + "\");\n";
  if (v.sharedBytes > 48 * 1024)
    c += "  /* Over 48 KB of dynamic shared memory must be asked for, once per function. */\n"
         "  if (status == CUDA_SUCCESS)\n"
         "    status = cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, " + shared + ");\n";
  c += "  if (status != CUDA_SUCCESS) {\n"
       "    if (module != NULL) cuModuleUnload(module);\n"
       "    return status;\n"
       "  }\n"
       "  " + n + "_slots_[free_slot].module = module;\n"
       "  " + n + "_slots_[free_slot].function = function;\n"
       "  KILN_AOT_STORE_(&" + n + "_slots_[free_slot].key, key);\n"
       "  *out = function;\n"
       "  return CUDA_SUCCESS;\n"
       "}\n\n";
  c += "static CUresult " + n + "_function_(CUfunction *out) {\n"
       "  unsigned long long key = 0;\n"
       "  CUresult status = " + n + "_context_key_(&key);\n"
       "  int i;\n"
       "  if (status != CUDA_SUCCESS) return status;\n"
       "  for (i = 0; i < " + upper(n) + "_CONTEXTS_; ++i)\n"
       "    if (KILN_AOT_LOAD_(&" + n + "_slots_[i].key) == key) { *out = " + n + "_slots_[i].function; return CUDA_SUCCESS; }\n"
       "  while (KILN_AOT_SWAP_(&" + n + "_lock_, 1)) {\n"
       "  }\n"
       "  status = " + n + "_load_locked_(key, out);\n"
       "  KILN_AOT_STORE_(&" + n + "_lock_, 0);\n"
       "  return status;\n"
       "}\n\n";
  c += "CUresult " + n + "_load(void) {\n"
       "  CUfunction function;\n"
       "  return " + n + "_function_(&function);\n"
       "}\n\n";
  c += "CUresult " + n + "_unload(void) {\n"
       "  unsigned long long key = 0;\n"
       "  CUmodule module = NULL;\n"
       "  CUresult status = " + n + "_context_key_(&key);\n"
       "  int i;\n"
       "  if (status != CUDA_SUCCESS) return status;\n"
       "  while (KILN_AOT_SWAP_(&" + n + "_lock_, 1)) {\n"
       "  }\n"
       "  for (i = 0; i < " + upper(n) + "_CONTEXTS_; ++i)\n"
       "    if (" + n + "_slots_[i].key == key) {\n"
       "      module = " + n + "_slots_[i].module;\n"
       "      KILN_AOT_STORE_(&" + n + "_slots_[i].key, 0ULL);\n"
       "      " + n + "_slots_[i].module = NULL;\n"
       "      " + n + "_slots_[i].function = NULL;\n"
       "    }\n"
       "  KILN_AOT_STORE_(&" + n + "_lock_, 0);\n"
       "  return module != NULL ? cuModuleUnload(module) : CUDA_SUCCESS;\n"
       "}\n\n";
  return c;
}

std::string launcher(const Variant& v) {
  const std::string& n = v.name;
  std::string c = launchPrototype(v, n) + " {\n";
  c += "  int kiln_aot_ok = 1;\n  int64_t kiln_aot_grid[3];\n  CUfunction kiln_aot_function = NULL;\n";
  c += "  CUresult kiln_aot_status;\n";
  c += "  void *kiln_aot_args[" + std::to_string(std::max<size_t>(1, v.params.size())) + "];\n";
  std::string conditions;
  for (const CParam& p : v.params)
    if (p.condition != Condition::None) conditions += (conditions.empty() ? "" : " &&\n        ") + conditionText(p);
  // The bytes the kernel reads for each parameter; an i1 is one byte while C passes an int.
  for (size_t i = 0; i < v.params.size(); ++i)
    if (v.params[i].slotType != v.params[i].ctype)
      c += "  " + v.params[i].slotType + " kiln_aot_slot" + std::to_string(i) + " = (" + v.params[i].slotType +
           ")(" + v.params[i].name + " != 0);\n";
  if (!conditions.empty())
    c += "  /* What this variant was compiled to assume of its arguments. */\n  if (!(" + conditions +
         "))\n    return CUDA_ERROR_INVALID_VALUE;\n";
  for (int d = 0; d < 3; ++d)
    c += "  kiln_aot_grid[" + std::to_string(d) + "] = " +
         (v.grid.empty() ? std::string("(int64_t)grid_") + "xyz"[d] : v.grid[size_t(d)]) + ";\n";
  c += "  if (!kiln_aot_ok || kiln_aot_grid[0] < 0 || kiln_aot_grid[1] < 0 || kiln_aot_grid[2] < 0)\n"
       "    return CUDA_ERROR_INVALID_VALUE;\n"
       "  if (kiln_aot_grid[0] == 0 || kiln_aot_grid[1] == 0 || kiln_aot_grid[2] == 0) return CUDA_SUCCESS;\n"
       "  if (kiln_aot_grid[0] > 2147483647 || kiln_aot_grid[1] > 65535 || kiln_aot_grid[2] > 65535)\n"
       "    return CUDA_ERROR_INVALID_VALUE;\n";
  c += "  kiln_aot_status = " + n + "_function_(&kiln_aot_function);\n"
       "  if (kiln_aot_status != CUDA_SUCCESS) return kiln_aot_status;\n";
  for (size_t i = 0; i < v.params.size(); ++i) {
    const CParam& p = v.params[i];
    c += "  kiln_aot_args[" + std::to_string(i) + "] = &" +
         (p.slotType != p.ctype ? "kiln_aot_slot" + std::to_string(i) : p.name) + ";\n";
  }
  if (v.params.empty()) c += "  kiln_aot_args[0] = NULL;\n";
  c += "  return cuLaunchKernel(kiln_aot_function, (unsigned int)kiln_aot_grid[0], (unsigned int)kiln_aot_grid[1],\n"
       "                        (unsigned int)kiln_aot_grid[2], " + std::to_string(v.numWarps * 32) + ", 1, 1, " +
       std::to_string(v.sharedBytes) + ", stream, kiln_aot_args, NULL);\n}\n";
  return c;
}

const char* kAtomics =
    "#if CUDA_VERSION < 12000\n"
    "#error \"kiln's generated launchers need cuda.h from CUDA 12.0 or later (cuCtxGetId)\"\n"
    "#endif\n\n"
    "#ifndef KILN_AOT_LOAD_\n"
    "#if defined(__GNUC__) || defined(__clang__)\n"
    "#define KILN_AOT_LOAD_(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)\n"
    "#define KILN_AOT_STORE_(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)\n"
    "#define KILN_AOT_SWAP_(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQUIRE)\n"
    "#else\n"
    "/* No GCC/Clang atomics: call NAME_load() once in each context before launching from several threads. */\n"
    "#define KILN_AOT_LOAD_(p) (*(p))\n"
    "#define KILN_AOT_STORE_(p, v) (*(p) = (v))\n"
    "#define KILN_AOT_SWAP_(p, v) (*(p) ? 1 : (*(p) = (v), 0))\n"
    "#endif\n"
    "#endif\n\n";

}  // namespace

std::vector<File> emitVariant(const Variant& v, const std::vector<uint8_t>& cubin, const std::string& ptx,
                              const std::string& origin) {
  const std::string& n = v.name;
  std::string c = "/* " + n + ".c: kernel '" + v.kernel + "' of " + commentSafe(origin) +
                  ", compiled ahead of time by kiln (see " + n + ".h). */\n";
  c += "#include \"" + n + ".h\"\n\n#include <stddef.h>\n\n";
  c += kAtomics;
  // In a union with an 8-byte integer so the ELF image is 8-byte aligned, as the driver reads it.
  c += "/* The cubin for " + v.arch + " (" + std::to_string(cubin.size()) + " bytes). */\n";
  c += "static const union { unsigned char bytes[" + std::to_string(cubin.size()) +
       "]; unsigned long long align_; } " + n + "_cubin_ = {" + byteInitializer(cubin.data(), cubin.size()) + "};\n\n";
  std::vector<uint8_t> text(ptx.begin(), ptx.end());
  text.push_back(0);
  c += "/* The PTX, for the driver to compile where the cubin does not load. */\n";
  c += "static const union { unsigned char text[" + std::to_string(text.size()) + "]; unsigned long long align_; } " +
       n + "_ptx_ = {" + byteInitializer(text.data(), text.size()) + "};\n\n";
  if (!v.grid.empty()) c += gridHelpers(n, v.grid) + "\n";
  c += loader(v);
  c += launcher(v);
  return {File{n + ".h", header(v, origin)}, File{n + ".c", c}};
}

}  // namespace kiln::aot
