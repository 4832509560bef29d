// `kiln aot` and `kiln aot link`: ahead-of-time compilation into C for hosts with only the CUDA driver
// (include/kiln/aot.h, docs/aot.md). Exit 0 on success, 1 on an error in the input, 2 on a usage error.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli_args.h"
#include "kiln/aot.h"

namespace {

const char* const kAotUsage =
    "usage: kiln aot FILE --kernel NAME --signature SIG [--grid GRID] [--name CNAME] [options] -o DIR\n"
    "       kiln aot link HEADER_OR_DIR... --name CNAME -o DIR\n"
    "\n"
    "Compiles one specialization of the @jit kernel NAME into DIR/CNAME.h and DIR/CNAME.c: the cubin and\n"
    "PTX embedded, and CUresult CNAME_launch(CUstream stream, args...), which needs only the CUDA driver.\n"
    "`link` puts variants of one kernel behind one CNAME_launch that picks the variant the JIT would.\n"
    "\n"
    "options:\n"
    "  --signature SIG     one entry per parameter: \"*fp32:16, *fp32:16, i32:16, 1024\" (:16 / :8 = aligned\n"
    "                      or divisible, 1 = equal to 1, a value for each tl.constexpr)\n"
    "  --grid GRID         up to three integer expressions over the arguments and constexprs:\n"
    "                      \"cdiv(n, BLOCK)\", \"(M + 127) // 128, N // 64\"; without it the launch function\n"
    "                      takes grid_x, grid_y, grid_z\n"
    "  --name CNAME        prefix of the C names and files (default: the kernel's name)\n"
    "  --arch ARCH         GPU target of the cubin (default sm_90a; `kiln archs` lists them)\n"
    "  --num-warps N       warps per program (default 4)\n"
    "  --num-stages S      software pipelining depth (default 3)\n"
    "  --maxnreg N         at most N registers per thread, 24 to 255 (PTX .maxnreg; default: no limit)\n"
    "  -o DIR              the output directory (created if missing)\n";

int usage(const std::string& message) {
  std::fprintf(stderr, "kiln: error: %s\n\n%s", message.c_str(), kAotUsage);
  return 2;
}

// Writes the files into `dir`; prints why not and returns false on failure.
bool writeFiles(const std::string& dir, const std::vector<kiln::aot::File>& files) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const kiln::aot::File& f : files) {
    std::string path = (std::filesystem::path(dir) / f.name).string();
    std::ofstream out(path, std::ios::binary);
    out << f.text;
    out.close();
    if (!out) {
      std::fprintf(stderr, "kiln: error: cannot write '%s'\n", path.c_str());
      return false;
    }
  }
  return true;
}

int report(const kiln::Error& e) {
  std::fwrite(e.text.data(), 1, e.text.size(), stderr);
  if (!e.text.empty() && e.text.back() != '\n') std::fputc('\n', stderr);
  return 1;
}

bool readText(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return bool(in) || in.eof();
}

int linkCommand(const std::vector<std::string>& args) {
  std::vector<std::string> inputs;
  std::string name, output;
  kiln::cli::ArgReader reader(args);
  for (std::string a; reader.next(a);) {
    if (a == "--name" || a == "-o") {
      if (!reader.value(a == "--name" ? name : output)) return usage(a + " needs a value");
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option '" + reader.raw() + "' for aot link");
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty()) return usage("aot link needs the variants' headers (or the directories holding them)");
  if (name.empty()) return usage("aot link needs --name, the dispatcher's C name");
  if (output.empty()) return usage("aot link needs -o DIR");
  std::vector<kiln::aot::File> headers;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(in, ec)) {
      // Every header there that kiln aot wrote for a variant (a dispatcher's own header is skipped).
      std::vector<std::string> found;
      for (const auto& entry : std::filesystem::directory_iterator(in, ec))
        if (entry.path().extension() == ".h") found.push_back(entry.path().string());
      std::sort(found.begin(), found.end());
      size_t before = headers.size();
      for (const std::string& path : found) {
        std::string text;
        if (readText(path, text) && text.find("kiln-aot-variant") != std::string::npos)
          headers.push_back({path, text});
      }
      if (headers.size() == before) {
        std::fprintf(stderr, "kiln: error: aot link: no variant headers in directory '%s'\n", in.c_str());
        return 1;
      }
      continue;
    }
    std::string text;
    if (!readText(in, text)) {
      std::fprintf(stderr, "kiln: error: aot link: cannot read '%s'\n", in.c_str());
      return 1;
    }
    headers.push_back({in, text});
  }
  kiln::Result<std::vector<kiln::aot::File>> files = kiln::aot::linkVariants(headers, name);
  if (!files.ok()) return report(files.error());
  return writeFiles(output, files.value()) ? 0 : 1;
}

}  // namespace

int aotCommand(const std::vector<std::string>& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kAotUsage, stdout);
    return 0;
  }
  if (!args.empty() && args[0] == "link") return linkCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  kiln::aot::Options o;
  std::string file, output;
  bool haveSignature = false;
  kiln::cli::ArgReader reader(args);
  for (std::string arg; reader.next(arg);) {
    auto take = [&](std::string& into) { return reader.value(into); };
    if (arg == "--kernel") {
      if (!take(o.kernel)) return usage("--kernel needs a name");
    } else if (arg == "--signature") {
      if (!take(o.signature)) return usage("--signature needs a value");
      haveSignature = true;
    } else if (arg == "--grid") {
      if (!take(o.grid) || o.grid.empty()) return usage("--grid needs expressions");
    } else if (arg == "--name") {
      if (!take(o.name)) return usage("--name needs a C name");
    } else if (arg == "--arch") {
      if (!take(o.arch)) return usage("--arch needs a target (e.g. sm_80, sm_90a; `kiln archs` lists them)");
    } else if (arg == "--num-warps" || arg == "--num-stages") {
      std::string v;
      if (!take(v) || !kiln::cli::parsePositiveInt(v, arg == "--num-warps" ? o.num_warps : o.num_stages))
        return usage(arg + " needs a positive integer");
    } else if (arg == "--maxnreg") {
      std::string v;
      if (!take(v) || !kiln::cli::parsePositiveInt(v, o.maxnreg)) return usage("--maxnreg needs a positive integer");
      if (std::optional<std::string> why = kiln::checkMaxNReg(o.maxnreg)) return usage("--maxnreg: " + *why);
    } else if (arg == "-o") {
      if (!take(output)) return usage("-o needs a directory");
    } else if (!arg.empty() && arg[0] == '-') {
      return usage("unknown option '" + arg + "'");
    } else if (file.empty()) {
      file = arg;
    } else {
      return usage("unexpected argument '" + arg + "'");
    }
  }
  if (file.empty()) return usage("no input file");
  if (o.kernel.empty()) return usage("--kernel is required");
  if (!haveSignature) return usage("--signature is required");
  if (output.empty()) return usage("-o DIR is required (the header and source are written there)");
  if (std::optional<std::string> why = kiln::checkArch(o.arch)) return usage("--arch: " + *why);
  if (std::optional<std::string> why = kiln::checkNumWarps(o.num_warps)) return usage("--num-warps: " + *why);
  kiln::Result<kiln::Source> source = kiln::Source::fromFile(file);
  if (!source.ok()) {
    std::fprintf(stderr, "kiln: error: %s\n", source.error().message.c_str());
    return 1;
  }
  kiln::Result<std::vector<kiln::aot::File>> files = kiln::aot::compileVariant(source.value(), o);
  if (!files.ok()) return report(files.error());
  return writeFiles(output, files.value()) ? 0 : 1;
}
