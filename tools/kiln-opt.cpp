// kiln-opt: reads Tile IR or GPU IR text, verifies it, runs the named passes in order and prints the
// result, or the PTX of GPU IR (--emit=ptx). It is the driver of the golden tests (tests/lit): errors go to
// stderr as rendered diagnostics.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/axis_info.h"
#include "ir/text.h"
#include "assign/assign_layouts.h"
#include "lower/codegen.h"
#include "passes/passes.h"
#include "schedule/schedule.h"
#include "ptx/builder.h"
#include "support/diagnostic.h"

namespace {

constexpr const char* kUsage =
    "usage: kiln-opt [FILE.tir|-] [--pass=NAME[,NAME...]]... [--verify-each] [-o OUT]\n"
    "                [--print-axis-info] [--assign-layouts[=NUM_WARPS]] [--arch=sm_80|sm_86|sm_90a|...]\n"
    "                [--emit=ptx [--num-warps=N] [--num-stages=N]]\n"
    "  Parses Tile IR text (stdin when FILE is '-' or absent), verifies it, runs the passes in\n"
    "  the order given, verifies the result and prints it (to OUT, or stdout).\n"
    "  --pass=a,b     run passes a then b on every function (the flag may repeat): Tile IR passes\n"
    "                 first, then layout assignment, then GPU passes (overlap_dots, pipeline,\n"
    "                 defer_mma_waits, warp_specialize, split_mma, stage_operands, tma_stores,\n"
    "                 allocate_shared, insert_barriers)\n"
    "  --verify-each  verify after every pass, naming the pass that broke the IR\n"
    "  --print-axis-info  after the passes, print each integer and pointer value's contiguity,\n"
    "                 divisibility and constancy as a comment on the line defining it\n"
    "  --assign-layouts[=NUM_WARPS]  after the passes, run axis info and layout assignment\n"
    "                 (NUM_WARPS warps, default 4) and print the GPU IR\n"
    "  --arch=ARCH    the target of --assign-layouts and --emit=ptx: sm_80 (default), sm_86, sm_90a, ...\n"
    "  --emit=ptx     after the passes (and layout assignment), print the PTX of each GPU IR function\n"
    "  --num-warps=N  the warps of --emit=ptx (default: --assign-layouts', else 4)\n"
    "  --num-stages=N the pipelining depth of --pass=pipeline for loops without num_stages (default 1: none)\n"
    "  --no-tma-pointer-tiles  --pass=pipeline copies pointer-built wgmma tiles with cp.async only, and\n"
    "                      --pass=tma_stores leaves pointer stores as they are\n"
    "  -o OUT         write the output to OUT\n"
    "  --help         show this text\n";

struct Options {
  std::string input = "-";
  std::string output;  // empty: stdout
  std::vector<std::string> passes;
  bool verifyEach = false;
  bool printAxisInfo = false;
  int assignLayoutsWarps = 0;  // 0: no layout assignment
  std::string arch = "sm_80";
  bool emitPtx = false;
  int numWarps = 0;  // 0: assignLayoutsWarps, else 4
  int numStages = 1;
  bool tmaPointerTiles = true;
};

// A positive number from `text` (at most `max`), or 0.
int smallNumber(const std::string& text, int max) {
  int n = 0;
  for (char c : text) n = (c >= '0' && c <= '9' && n <= max) ? n * 10 + (c - '0') : max + 1;
  return text.empty() || n > max ? 0 : n;
}

std::string knownPasses() {
  std::string s;
  for (const std::string& n : kiln::passes::passNames()) s += (s.empty() ? "" : ", ") + n;
  for (const std::string& n : kiln::schedule::gpuPassNames()) s += ", " + n;
  return s;
}

bool isGpuPass(const std::string& name) {
  std::vector<std::string> gpu = kiln::schedule::gpuPassNames();
  return std::find(gpu.begin(), gpu.end(), name) != gpu.end();
}

// Returns 0 to continue, or the exit code to stop with (usage errors print the usage).
int parseArgs(int argc, char** argv, Options& o) {
  bool sawInput = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return -1;
    } else if (a == "--verify-each") {
      o.verifyEach = true;
    } else if (a == "--print-axis-info") {
      o.printAxisInfo = true;
    } else if (a == "--assign-layouts") {
      o.assignLayoutsWarps = 4;
    } else if (a.rfind("--assign-layouts=", 0) == 0) {
      std::string n = a.substr(17);
      int w = smallNumber(n, 32);
      if (!w || (w & (w - 1))) {
        std::cerr << "kiln-opt: error: --assign-layouts needs a number of warps that is a power of two from 1 to 32, got '"
                  << n << "'\n";
        return 1;
      }
      o.assignLayoutsWarps = w;
    } else if (a == "--emit=ptx") {
      o.emitPtx = true;
    } else if (a.rfind("--num-warps=", 0) == 0) {
      o.numWarps = smallNumber(a.substr(12), 32);
      if (!o.numWarps || (o.numWarps & (o.numWarps - 1))) {
        std::cerr << "kiln-opt: error: --num-warps needs a power of two from 1 to 32, got '" << a.substr(12) << "'\n";
        return 1;
      }
    } else if (a.rfind("--num-stages=", 0) == 0) {
      o.numStages = smallNumber(a.substr(13), 16);
      if (!o.numStages) {
        std::cerr << "kiln-opt: error: --num-stages needs a number from 1 to 16, got '" << a.substr(13) << "'\n";
        return 1;
      }
    } else if (a == "--no-tma-pointer-tiles") {
      o.tmaPointerTiles = false;
    } else if (a.rfind("--emit=", 0) == 0) {
      std::cerr << "kiln-opt: error: unknown --emit kind '" << a.substr(7) << "' (expected ptx)\n";
      return 1;
    } else if (a.rfind("--arch=", 0) == 0) {
      o.arch = a.substr(7);
      if (!kiln::ptx::Target::parse(o.arch)) {
        std::cerr << "kiln-opt: error: unknown target '" << o.arch << "' (expected sm_<capability>[a] from sm_80)\n";
        return 1;
      }
    } else if (a.rfind("--pass=", 0) == 0) {
      std::string list = a.substr(7);
      size_t start = 0;
      for (;;) {
        size_t comma = list.find(',', start);
        std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (name.empty()) {
          std::cerr << "kiln-opt: error: empty pass name in '" << a << "'\n";
          return 1;
        }
        o.passes.push_back(name);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (a == "-o") {
      if (i + 1 >= argc) {
        std::cerr << "kiln-opt: error: -o needs a file name\n" << kUsage;
        return 1;
      }
      o.output = argv[++i];
    } else if (a == "-" || a.empty() || a[0] != '-') {
      if (sawInput) {
        std::cerr << "kiln-opt: error: more than one input file ('" << o.input << "' and '" << a << "')\n" << kUsage;
        return 1;
      }
      sawInput = true;
      o.input = a;
    } else {
      std::cerr << "kiln-opt: error: unknown option '" << a << "'\n" << kUsage;
      return 1;
    }
  }
  std::vector<std::string> known = kiln::passes::passNames();
  for (const std::string& p : kiln::schedule::gpuPassNames()) known.push_back(p);
  for (const std::string& p : o.passes)
    if (std::find(known.begin(), known.end(), p) == known.end()) {
      std::cerr << "kiln-opt: error: unknown pass '" << p << "'; known passes: " << knownPasses() << "\n";
      return 1;
    }
  return 0;
}

bool readInput(const std::string& path, std::string& text) {
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return !std::cin.bad();
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return !in.bad();
}

// A verifier failure after a pass is a kiln bug, not the user's: report it as an internal error.
int brokenByPass(kiln::Diagnostic d, const std::string& when) {
  d.kind = kiln::Diagnostic::Kind::Internal;
  d.message = "IR is invalid " + when + ": " + d.message;
  std::cerr << d.render();
  return 1;
}

int run(int argc, char** argv) {
  Options o;
  if (int rc = parseArgs(argc, argv, o)) return rc < 0 ? 0 : rc;

  std::string text;
  if (!readInput(o.input, text)) {
    std::cerr << "kiln-opt: error: cannot read '" << o.input << "'\n";
    return 1;
  }
  auto module = kiln::ir::parseModule(kiln::makeSource(o.input == "-" ? "<stdin>" : o.input, std::move(text)));
  for (const auto& f : module->functions)
    if (auto d = kiln::ir::verify(*f)) {
      std::cerr << d->render();
      return 1;
    }

  // Tile IR passes first, then layout assignment, then the GPU passes (the schedule), each in order.
  const kiln::ptx::Target target = *kiln::ptx::Target::parse(o.arch);
  const int warps = o.numWarps ? o.numWarps : o.assignLayoutsWarps ? o.assignLayoutsWarps : 4;
  auto runPasses = [&](bool gpu) -> int {
    for (const std::string& pass : o.passes) {
      if (isGpuPass(pass) != gpu) continue;
      for (const auto& f : module->functions) {
        if (gpu) kiln::schedule::runGpuPass(pass, *f, kiln::schedule::GpuContext{target, warps, o.numStages, false, o.tmaPointerTiles});
        else kiln::passes::runPass(pass, *f);
        if (o.verifyEach)
          if (auto d = kiln::ir::verify(*f)) return brokenByPass(*d, "after pass '" + pass + "' on @" + f->name);
      }
    }
    if (!o.passes.empty() && !o.verifyEach)  // the final IR is always checked; --verify-each says which pass
      for (const auto& f : module->functions)
        if (auto d = kiln::ir::verify(*f)) return brokenByPass(*d, "after the passes (use --verify-each to find which)");
    return 0;
  };
  if (int rc = runPasses(false)) return rc;

  if (o.assignLayoutsWarps > 0) {
    for (const auto& f : module->functions) {
      {
        kiln::analysis::AxisInfoAnalysis axis(*f);
        kiln::lower::assignLayouts(*f, axis, o.assignLayoutsWarps, target);
      }
      if (auto d = kiln::ir::verify(*f)) return brokenByPass(*d, "after layout assignment on @" + f->name);
    }
  }

  if (int rc = runPasses(true)) return rc;

  std::string out;
  if (o.emitPtx) {
    for (const auto& f : module->functions) {
      kiln::lower::EntryInfo info;
      out += kiln::lower::emitPtx(*f, target, warps, info);
    }
  } else if (o.printAxisInfo) {
    for (size_t i = 0; i < module->functions.size(); ++i) {
      const kiln::ir::Function& f = *module->functions[i];
      out += (i ? "\n" : "") + kiln::analysis::printWithAxisInfo(f, kiln::analysis::AxisInfoAnalysis(f));
    }
  } else {
    out = kiln::ir::print(*module);
  }
  if (o.output.empty()) {
    std::cout << out;
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "kiln-opt: error: cannot write to stdout\n";
      return 1;
    }
    return 0;
  }
  std::ofstream f(o.output, std::ios::binary);
  f << out;
  f.close();
  if (!f) {
    std::cerr << "kiln-opt: error: cannot write '" << o.output << "'\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const kiln::CompileError& e) {
    std::cerr << e.diag().render();
  } catch (const kiln::InternalError& e) {
    std::cerr << e.diag().render();
  } catch (const std::bad_alloc&) {
    std::cerr << "kiln-opt: internal compiler error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "kiln-opt: internal compiler error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "kiln-opt: internal compiler error: unknown exception\n";
  }
  return 1;
}
