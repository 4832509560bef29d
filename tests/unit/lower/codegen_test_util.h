// Helpers for the codegen tests: GPU IR from text whose tile types name layouts (`#L` is replaced
// by a layout's text), emitPtx on it, the instructions of the entry, and ptxas checks (errors and
// spills) for sm_80 and sm_90a.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "ir/text.h"
#include "layout/named_layouts.h"
#include "lower/codegen.h"
#include "ptx/ptxas.h"
#include "schedule/schedule.h"
#include "support/diagnostic.h"

namespace kiln::lower::test {

using Layouts = std::map<std::string, layout::LinearLayout>;

// Parses `text` after replacing each `#NAME` by layouts[NAME]'s text; the IR must verify.
inline std::unique_ptr<ir::Module> parseGpu(std::string text, const Layouts& layouts = {}) {
  for (const auto& [name, l] : layouts) {
    std::string key = "#" + name, repl = l.str();
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + repl.size())) {
      size_t end = at + key.size();
      if (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) {
        at += 1;  // a longer name that starts with this one
        continue;
      }
      text.replace(at, key.size(), repl);
    }
  }
  auto m = ir::parseModule(makeSource("test.tir", text));
  if (auto d = ir::verify(*m->functions.at(0))) throw std::runtime_error("test IR does not verify: " + d->render());
  return m;
}

struct Emitted {
  std::string ptx;
  EntryInfo info;
};

// Places shared memory (buffers and the scratch of reductions, conversions, ...) and its barriers, as the
// driver does after the other GPU passes, then emits.
inline Emitted emit(ir::Function& f, const ptx::Target& target = ptx::kSm80, int numWarps = 4) {
  const schedule::GpuContext ctx{target, numWarps};
  schedule::allocateShared(f, ctx);
  schedule::insertBarriers(f, ctx);
  Emitted out;
  out.ptx = emitPtx(f, target, numWarps, out.info);
  return out;
}

inline Emitted emit(const std::string& text, const Layouts& layouts = {}, const ptx::Target& target = ptx::kSm80,
                    int numWarps = 4) {
  auto m = parseGpu(text, layouts);
  return emit(*m->functions.at(0), target, numWarps);
}

// The instructions of the (only) entry, one per line, without declarations and indentation.
inline std::string body(const std::string& ptx) {
  std::string out;
  std::istringstream in(ptx.substr(ptx.find("{\n") + 2));
  for (std::string l; std::getline(in, l);) {
    size_t a = l.find_first_not_of(' ');
    if (a == std::string::npos || l[a] == '.' || l == "}") continue;
    out += l.substr(a) + "\n";
  }
  return out;
}

// Occurrences of `needle` in `hay`.
inline int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + needle.size())) ++n;
  return n;
}

// Lines of `hay` matching the regular expression.
inline int countMatching(const std::string& hay, const std::string& re) {
  std::regex r(re);
  int n = 0;
  std::istringstream in(hay);
  for (std::string l; std::getline(in, l);)
    if (std::regex_search(l, r)) ++n;
  return n;
}

inline bool havePtxas() { return ptx::findPtxas().has_value(); }

// "" when `ptx` assembles for `arch` without spills, else ptxas's complaint (and the PTX).
inline std::string assembleProblems(const std::string& ptx, const std::string& arch) {
  ptx::AssembleResult r = ptx::assemble(ptx, arch);
  if (!r.found) return "ptxas not found";
  if (!r.ok) return "ptxas -arch=" + arch + " failed:\n" + r.log + "\n" + ptx;
  for (const ptx::EntryUsage& u : r.entries)
    if (u.spillStoreBytes || u.spillLoadBytes || u.stackBytes)
      return "ptxas -arch=" + arch + ": entry " + u.name + " spills (" + std::to_string(u.spillStoreBytes) +
             " bytes stored, " + std::to_string(u.stackBytes) + " bytes of stack):\n" + r.log;
  return "";
}

// Emits `f` for sm_80 and for sm_90a and assembles each (skipped where there is no ptxas).
inline void expectAssembles(ir::Function& f, int numWarps = 4) {
  if (!havePtxas()) GTEST_SKIP() << "no ptxas";
  EXPECT_EQ(assembleProblems(emit(f, ptx::kSm80, numWarps).ptx, "sm_80"), "");
  EXPECT_EQ(assembleProblems(emit(f, ptx::kSm90a, numWarps).ptx, "sm_90a"), "");
}
inline void expectAssembles(const std::string& text, const Layouts& layouts = {}, int numWarps = 4) {
  auto m = parseGpu(text, layouts);
  expectAssembles(*m->functions.at(0), numWarps);
}

// Common layouts: a 1-D blocked layout of n elements, `vec` per thread, over numWarps warps.
inline layout::LinearLayout blocked1d(int64_t n, int32_t vec, int numWarps = 4) {
  return layout::defaultBlocked({n}, numWarps, vec, {0});
}

// The GPU IR contract's relatives of a layout: `l` with out dim d's basis components zeroed and its
// size 1 (the operand of a broadcast along d), and `l` without out dim d (the operand of expand_dims).
inline layout::LinearLayout zeroDim(const layout::LinearLayout& l, int d) {
  std::vector<layout::InDim> ins = l.ins();
  for (layout::InDim& in : ins)
    for (layout::Basis& b : in.bases) b[size_t(d)] = 0;
  std::vector<layout::OutDim> outs = l.outs();
  outs[size_t(d)].size = 1;
  return layout::LinearLayout(ins, outs);
}
inline layout::LinearLayout removeDim(const layout::LinearLayout& l, int d) {
  std::vector<std::string> keep;
  for (int k = 0; k < int(l.outs().size()); ++k)
    if (k != d) keep.push_back(l.outs()[size_t(k)].name);
  return l.sublayout(l.inDimNames(), keep).renameOuts(layout::standardOutDims(int(keep.size())));
}

}  // namespace kiln::lower::test
