// parsePtxasTargets: the real-GPU targets of ptxas's --help text, ordered, without virtual, LTO or
// family targets; and the installed ptxas's list, when there is one.
#include "support/ptxas_targets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/ptxas.h"

namespace kiln::support {
namespace {

using Targets = std::vector<std::string>;

TEST(PtxasTargets, ReadsTheQuotedSmNamesInCapabilityOrder) {
  const char* help =
      "--gpu-name <gpu name>  (-arch)\n"
      "        Allowed values for this option:  'compute_100','compute_90a','lto_100','sm_100',\n"
      "        'sm_100a','sm_100f','sm_120','sm_75','sm_80',\n"
      "        'sm_86','sm_90','sm_90a'.\n"
      "        Default value:  'sm_75'.\n";
  EXPECT_EQ(parsePtxasTargets(help),
            (Targets{"sm_75", "sm_80", "sm_86", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120"}));
}

TEST(PtxasTargets, IgnoresOtherQuotedWordsAndMalformedNames) {
  EXPECT_EQ(parsePtxasTargets("use 'ptxas' with 'sm_' or 'sm_8x' or 'sm_80b' and 'sm_89'"), (Targets{"sm_89"}));
  EXPECT_EQ(parsePtxasTargets(""), Targets{});
  EXPECT_EQ(parsePtxasTargets("'sm_80"), Targets{});  // unterminated
}

TEST(PtxasTargets, TheInstalledPtxasKnowsAmpereAndHopper) {
  if (!findPtxas().found()) GTEST_SKIP() << "no ptxas";
  const Targets t = ptxasTargets();
  for (const char* want : {"sm_80", "sm_90a"})
    EXPECT_NE(std::find(t.begin(), t.end(), want), t.end()) << want;
  EXPECT_EQ(ptxasTargets(), t);  // asked once, the same answer
}

}  // namespace
}  // namespace kiln::support
