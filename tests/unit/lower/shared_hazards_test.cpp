// SharedHazards (lower/shared_hazards.h): which pending reads a write must wait for, and how branches
// and loop bodies combine what they leave pending.
#include <gtest/gtest.h>

#include "lower/shared_hazards.h"

namespace kiln::lower::test {
namespace {

using Range = SharedHazards::Range;

TEST(SharedHazards, AWriteWaitsOnlyForOverlappingReads) {
  SharedHazards h;
  EXPECT_FALSE(h.conflicts({0, 32}));
  h.read({0, 32});
  EXPECT_TRUE(h.conflicts({16, 48}));
  EXPECT_TRUE(h.conflicts({31, 32}));
  EXPECT_FALSE(h.conflicts({32, 64}));  // [begin, end): touching is not overlapping
  h.barrier();
  EXPECT_FALSE(h.conflicts({0, 32}));
  EXPECT_TRUE(h.pending().empty());
}

TEST(SharedHazards, BranchesLeaveTheUnionOfWhatTheyRead) {
  SharedHazards h;
  h.read({0, 16});
  const SharedHazards::Pending before = h.save();
  h.openRegion();  // then: a barrier, then a read elsewhere
  h.barrier();
  h.read({64, 80});
  h.closeRegion();
  const SharedHazards::Pending afterThen = h.save();
  h.restore(before);
  h.openRegion();  // else: nothing
  h.closeRegion();
  h.merge(afterThen);
  EXPECT_TRUE(h.conflicts({0, 16}));   // the else path never passed the barrier
  EXPECT_TRUE(h.conflicts({64, 80}));  // the then path read these
}

TEST(SharedHazards, ALoopBodyNeedsABarrierWhenItsLastReadsMeetItsFirstWrites) {
  SharedHazards h;
  h.openRegion();  // one reduction per iteration: write, barrier, read the same bytes
  h.wrote({0, 32});
  h.barrier();
  h.read({0, 32});
  EXPECT_TRUE(h.backEdgeNeedsBarrier());
  h.closeRegion();

  SharedHazards two;
  two.openRegion();  // two reductions alternating places: the back edge meets nothing written first
  two.wrote({0, 32});
  two.barrier();
  two.read({0, 32});
  two.wrote({32, 64});
  two.barrier();
  two.read({32, 64});
  EXPECT_FALSE(two.backEdgeNeedsBarrier());
  two.closeRegion();
}

TEST(SharedHazards, ABarrierInANestedRegionProtectsOnlyWhatFollowsItThere) {
  SharedHazards h;
  h.openRegion();  // outer loop body
  h.openRegion();  // a branch with a barrier, then a write: ordered whenever it runs
  h.barrier();
  h.wrote({0, 32});
  h.closeRegion();
  h.wrote({64, 96});  // after the branch: the branch's barrier may not have run
  h.read({64, 96});
  EXPECT_TRUE(h.backEdgeNeedsBarrier());
  h.read({0, 32});
  h.closeRegion();

  SharedHazards g;
  g.openRegion();  // outer loop body
  g.openRegion();
  g.barrier();
  g.wrote({0, 32});
  g.closeRegion();
  g.read({0, 32});
  EXPECT_FALSE(g.backEdgeNeedsBarrier());  // the write in the branch followed a barrier
  g.closeRegion();
}

}  // namespace
}  // namespace kiln::lower::test
