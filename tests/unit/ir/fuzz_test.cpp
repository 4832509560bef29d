// Hostile input to the IR parser: every truncation and many random garblings of valid text must
// either parse or throw CompileError (never crash, hang or throw anything else); whatever parses
// must survive the verifier and the printer.
#include <gtest/gtest.h>

#include <random>

#include "ir/text.h"
#include "ir_test_util.h"

namespace kiln::ir {
namespace {

// Parses; on success verifies and prints (round-tripping when it verifies). Returns true if parsed.
bool survives(const std::string& text) {
  std::unique_ptr<Module> m;
  try {
    m = testing::parseString(text, "fuzz.tir");
  } catch (const CompileError& e) {
    const Diagnostic& d = e.diag();
    EXPECT_TRUE(d.loc.known()) << d.message;
    EXPECT_FALSE(d.render().empty());
    return false;
  }
  for (const auto& f : m->functions) {
    auto d = verify(*f);
    std::string p = print(*f);
    if (!d) {
      auto again = testing::parseString(p);  // must not throw: the printer writes valid text
      EXPECT_EQ(print(*again->functions[0]), p);
    }
  }
  return true;
}

TEST(IrFuzz, EveryTruncation) {
  std::string text = print(*testing::buildEverything());
  int parsed = 0;
  for (size_t n = 0; n <= text.size(); ++n) parsed += survives(text.substr(0, n));
  // The whole text and a few cuts right after a function's closing brace parse; most cuts do not.
  EXPECT_GE(parsed, 2);
  EXPECT_LT(parsed, int(text.size()) / 2);
}

TEST(IrFuzz, RandomGarbling) {
  const std::string base = print(*testing::buildEverything());
  const std::string alphabet = "%@{}()[]<>^=,:-\"\\/ \n\tx0123456789.eabcfinprtuvy_$#\x01\xff";
  std::mt19937 rng(12345);  // fixed seed: failures reproduce
  int parsed = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string t = base;
    int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits && !t.empty(); ++e) {
      size_t at = rng() % t.size();
      switch (rng() % 5) {
        case 0: t[at] = alphabet[rng() % alphabet.size()]; break;             // replace a byte
        case 1: t.erase(at, 1 + rng() % 8); break;                              // delete a run
        case 2: t.insert(at, 1, alphabet[rng() % alphabet.size()]); break;      // insert a byte
        case 3: t.insert(at, t.substr(rng() % t.size(), 1 + rng() % 40)); break;  // duplicate a chunk
        case 4: std::swap(t[at], t[rng() % t.size()]); break;                   // swap two bytes
      }
    }
    parsed += survives(t);
  }
  EXPECT_GT(parsed, 0);  // some edits (in a string or a comment) leave valid text
}

TEST(IrFuzz, RandomBytes) {
  std::mt19937 rng(777);
  for (int iter = 0; iter < 500; ++iter) {
    std::string t;
    size_t n = rng() % 200;
    for (size_t i = 0; i < n; ++i) t += char(rng() % 256);
    survives(t);
    survives("func @f(%a: i32) {\n" + t);
  }
}

TEST(IrFuzz, DeepNestingIsAnErrorNotAStackOverflow) {
  std::string t = "func @f(%c: i1) {\n";
  for (int i = 0; i < 100000; ++i) t += "if %c {\n";
  try {
    testing::parseString(t);
    FAIL() << "parsed";
  } catch (const CompileError& e) {
    EXPECT_NE(e.diag().message.find("nested too deeply"), std::string::npos) << e.diag().message;
  }
  // Moderate nesting is fine and round-trips.
  std::string ok = "func @f(%c: i1) {\n";
  for (int i = 0; i < 150; ++i) ok += "if %c {\n";
  for (int i = 0; i < 150; ++i) ok += "yield\n} {\nyield\n}\n";
  ok += "return\n}\n";
  auto m = testing::parseString(ok);
  EXPECT_EQ(verify(*m->functions[0]), std::nullopt);
  EXPECT_EQ(print(*testing::parseString(print(*m))), print(*m));
}

}  // namespace
}  // namespace kiln::ir
