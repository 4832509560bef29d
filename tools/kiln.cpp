// The kiln command line: `kiln compile FILE --kernel NAME --signature SIG --emit STAGE`, `kiln archs`,
// `kiln aot` (tools/kiln_aot.cpp).
// Exit 0 on success, 1 on an error in the input (diagnostic on stderr), 2 on a usage error.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.h"
#include "kiln/kiln.h"

int aotCommand(const std::vector<std::string>& args);  // kiln_aot.cpp

namespace {

const char* const kUsage =
    "usage: kiln compile FILE --kernel NAME --signature SIG [options]\n"
    "       kiln aot ...    (C and C++ launchers compiled ahead of time: `kiln aot --help`)\n"
    "       kiln archs      (the GPU targets --arch accepts here, one a line)\n"
    "\n"
    "Compiles the @jit kernel NAME of the Python file FILE for the signature SIG, written in\n"
    "Triton's AOT syntax (e.g. \"*fp32:16, *fp32:16, i32, 1024\"), and prints one stage.\n"
    "Warnings (file:line:col: warning: ...) are printed to stderr; they do not change the exit status.\n"
    "\n"
    "options:\n"
    "  --emit STAGE        ast | ir-before-passes | ir | gpu-ir | ptx | cubin (default: ir)\n"
    "  --arch ARCH         GPU target for gpu-ir, ptx and cubin: sm_80 and later, as the installed\n"
    "                      ptxas knows them (sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, ...;\n"
    "                      `kiln archs` lists them; default sm_90a)\n"
    "  --num-warps N       warps per program (default 4)\n"
    "  --num-stages S      software pipelining depth (default 3)\n"
    "  --maxnreg N         at most N registers per thread, 24 to 255 (PTX .maxnreg; default: no limit)\n"
    "  --warp-specialize   warp-specialize the first loop nest that can take it (sm_90a TMA matmul loops), as\n"
    "                      if it said tl.range(..., warp_specialize=True)\n"
    "  --persistent        run persistently: each launched program loops over the logical grid's programs\n"
    "                      (the launcher passes the grid after the kernel's parameters)\n"
    "  --no-tma-pointer-tiles  load pointer-built wgmma tiles with cp.async and store pointer-built results\n"
    "                      with st.global only (as AOT launchers do)\n"
    "  --dump-after PASSES print the IR after each named pass to stderr (comma separated)\n"
    "  --no-opt            skip the Tile IR passes\n"
    "  --no-fp-fusion      keep float mul and add apart (no fma contraction)\n"
    "  --time-passes       print the wall and CPU time of each stage and pass to stderr\n"
    "  -o OUT              write the output to OUT instead of stdout\n";

int usageError(const std::string& message) {
  std::fprintf(stderr, "kiln: error: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

int compileCommand(const std::vector<std::string>& args) {
  std::string file, kernel, signature, emit = "ir", output, arch = "sm_90a";
  bool haveSignature = false, archGiven = false;
  kiln::CompileOptions options;
  kiln::cli::ArgReader reader(args);
  for (std::string arg; reader.next(arg);) {
    auto takeValue = [&](std::string& into) { return reader.value(into); };
    if (arg == "--kernel") {
      if (!takeValue(kernel)) return usageError("--kernel needs a name");
    } else if (arg == "--signature") {
      if (!takeValue(signature)) return usageError("--signature needs a value");
      haveSignature = true;
    } else if (arg == "--emit") {
      if (!takeValue(emit)) return usageError("--emit needs a stage");
    } else if (arg == "--arch") {
      if (!takeValue(arch)) return usageError("--arch needs a target (e.g. sm_80, sm_90a; `kiln archs` lists them)");
      archGiven = true;
    } else if (arg == "-o") {
      if (!takeValue(output)) return usageError("-o needs a file name");
    } else if (arg == "--num-warps" || arg == "--num-stages") {
      std::string v;
      int n = 0;
      if (!takeValue(v) || !kiln::cli::parsePositiveInt(v, n)) return usageError(arg + " needs a positive integer");
      (arg == "--num-warps" ? options.num_warps : options.num_stages) = n;
    } else if (arg == "--maxnreg") {
      std::string v;
      int n = 0;
      if (!takeValue(v) || !kiln::cli::parsePositiveInt(v, n)) return usageError("--maxnreg needs a positive integer");
      if (std::optional<std::string> why = kiln::checkMaxNReg(n)) return usageError("--maxnreg: " + *why);
      options.maxnreg = n;
    } else if (arg == "--warp-specialize") {
      options.warp_specialize = true;
    } else if (arg == "--persistent") {
      options.persistent = true;
    } else if (arg == "--no-tma-pointer-tiles") {
      options.tma_pointer_tiles = false;
    } else if (arg == "--dump-after") {
      std::string v;
      if (!takeValue(v)) return usageError("--dump-after needs pass names");
      for (const std::string& p : splitCommas(v)) options.dump_after.push_back(p);
    } else if (arg == "--no-opt") {
      options.optimize = false;
    } else if (arg == "--no-fp-fusion") {
      options.enable_fp_fusion = false;
    } else if (arg == "--time-passes") {
      options.time_passes = true;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return usageError("unknown option '" + arg + "'");
    } else if (file.empty()) {
      file = arg;
    } else {
      return usageError("unexpected argument '" + arg + "'");
    }
  }
  // Checking --arch asks the installed ptxas (a child process or two, several milliseconds), so it runs
  // beside the compile; its answer is awaited before anything else is reported or written, and a bad
  // --arch is reported ahead of every later error.
  std::future<std::optional<std::string>> archCheck;
  if (archGiven) archCheck = std::async(std::launch::async, [arch] { return kiln::checkArch(arch); });
  auto archError = [&]() -> std::optional<std::string> {
    if (!archCheck.valid()) return std::nullopt;
    std::optional<std::string> why = archCheck.get();
    return why ? std::optional<std::string>("--arch: " + *why) : std::nullopt;
  };
  auto usageErrorUnlessArch = [&](const std::string& message) {
    std::optional<std::string> why = archError();
    return usageError(why ? *why : message);
  };
  if (file.empty()) return usageErrorUnlessArch("no input file");
  if (kernel.empty()) return usageErrorUnlessArch("--kernel is required");
  if (!haveSignature) return usageErrorUnlessArch("--signature is required");
  const bool gpuStage = emit == "gpu-ir" || emit == "ptx" || emit == "cubin";
  if (emit != "ast" && emit != "ir" && emit != "ir-before-passes" && !gpuStage)
    return usageErrorUnlessArch("unknown stage '" + emit + "' for --emit (ast, ir-before-passes, ir, gpu-ir, ptx, cubin)");
  if (emit == "cubin" && output.empty())
    return usageErrorUnlessArch("--emit cubin writes a binary: name the file with -o");
  if (gpuStage) options.arch = arch;
  if (std::optional<std::string> why = kiln::checkNumWarps(options.num_warps))
    return usageErrorUnlessArch("--num-warps: " + *why);

  kiln::Result<kiln::Source> source = kiln::Source::fromFile(file);
  std::optional<kiln::Result<kiln::Kernel>> compiledIfRead;
  if (source.ok()) compiledIfRead.emplace(kiln::compile(source.value(), kernel, signature, options));
  if (std::optional<std::string> why = archError()) return usageError(*why);
  if (!source.ok()) {
    std::fprintf(stderr, "kiln: error: %s\n", source.error().message.c_str());
    return 1;
  }
  kiln::Result<kiln::Kernel>& compiled = *compiledIfRead;
  if (!compiled.ok()) {
    const std::string& text = compiled.error().text;  // may hold a NUL byte from the source line
    std::fwrite(text.data(), 1, text.size(), stderr);
    return 1;
  }
  // Warnings (file:line:col: warning: ...) go to stderr and do not change the exit status.
  for (const kiln::Warning& w : compiled->warnings()) std::fwrite(w.text.data(), 1, w.text.size(), stderr);
  for (const std::string& pass : options.dump_after) {
    std::string text = compiled->stage("after-" + pass);
    if (text.empty()) std::fprintf(stderr, "kiln: warning: no pass named '%s' ran\n", pass.c_str());
    else std::fprintf(stderr, "// ----- IR after %s -----\n%s", pass.c_str(), text.c_str());
  }
  std::string text;
  if (emit == "cubin") {
    kiln::Result<std::vector<uint8_t>> cubin = kiln::assembleCubin(compiled.value(), arch);
    if (!cubin.ok()) {
      std::fputs(cubin.error().text.c_str(), stderr);
      return 1;
    }
    text.assign(cubin.value().begin(), cubin.value().end());
  } else {
    text = compiled->stage(emit);
  }
  if (output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::ofstream out(output, std::ios::binary);
  out << text;
  if (!out) {
    std::fprintf(stderr, "kiln: error: cannot write '%s'\n", output.c_str());
    return 1;
  }
  return 0;
}

// The targets --arch accepts: those of the installed ptxas from sm_80 up. Without ptxas, PTX can still
// be emitted for any sm_<capability>[a] from sm_80; the list is then empty and the exit status 1.
int archsCommand() {
  const std::vector<std::string> archs = kiln::supportedArchs();
  if (archs.empty()) {
    std::fputs("kiln: error: no ptxas found: --arch takes any sm_<capability>[a] from sm_80, unchecked\n", stderr);
    return 1;
  }
  for (const std::string& a : archs) std::printf("%s\n", a.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "compile") return compileCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  if (args[0] == "archs") return archsCommand();
  if (args[0] == "aot") return aotCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  return usageError("unknown command '" + args[0] + "'");
}
