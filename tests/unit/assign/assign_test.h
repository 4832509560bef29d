// Test helpers for layout assignment: parse Tile IR text, assign layouts, and check what every test
// checks (the contract, the verifier, and that the GPU IR text round-trips).
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "analysis/axis_info.h"
#include "assign/assign_layouts.h"
#include "assign/dot_layouts.h"
#include "ir/text.h"
#include "layout/linear_layout.h"
#include "ptx/builder.h"
#include "support/diagnostic.h"

namespace kiln::lower::test {

inline std::unique_ptr<ir::Module> parseIr(const std::string& text, const std::string& name = "test.tir") {
  return ir::parseModule(makeSource(name, text));
}

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void forEachOp(const ir::Block& b, const std::function<void(const ir::Op&)>& fn) {
  for (const auto& op : b.ops) {
    fn(*op);
    for (const auto& r : op->regions) forEachOp(*r, fn);
  }
}

inline int countOps(const ir::Function& f, ir::Opcode code) {
  int n = 0;
  forEachOp(f.body, [&](const ir::Op& op) { n += op.opcode == code; });
  return n;
}

// The first op with this opcode (pre-order), or null.
inline const ir::Op* firstOp(const ir::Function& f, ir::Opcode code) {
  const ir::Op* found = nullptr;
  forEachOp(f.body, [&](const ir::Op& op) {
    if (!found && op.opcode == code) found = &op;
  });
  return found;
}

// Runs axis info and assignLayouts on every function, then checks the contract, the verifier and the
// text round trip. Returns the GPU IR text.
inline std::string assignAndCheck(ir::Module& m, int numWarps, const ptx::Target& target = ptx::kSm80) {
  for (const auto& f : m.functions) {
    {
      analysis::AxisInfoAnalysis axis(*f);
      assignLayouts(*f, axis, numWarps, target);
    }
    EXPECT_NO_THROW(checkGpuContract(*f, numWarps, target));
    auto problem = ir::verify(*f);
    EXPECT_FALSE(problem.has_value()) << (problem ? problem->render() : "") << "\n" << ir::print(*f);
  }
  std::string text = ir::print(m);
  auto again = parseIr(text, "gpu.tir");
  EXPECT_EQ(ir::print(*again), text);
  for (const auto& f : again->functions) EXPECT_NO_THROW(checkGpuContract(*f, numWarps, target));
  return text;
}

inline layout::LinearLayout layoutText(const std::string& s) { return layout::LinearLayout::parse(s); }

}  // namespace kiln::lower::test
