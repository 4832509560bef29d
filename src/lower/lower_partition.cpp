// warp_partition: region i runs on its own warps (after those of the regions before it), so the code
// differs between warps but stays uniform inside each one; a branch on the warp index skips the regions
// of other partitions. Inside a region the thread and warp indices count from the partition's first
// warp, and its barriers are a named barrier of its own threads (id 1 + i); allocate_shared put its
// scratch above every byte placed before, so concurrent partitions never share it. A CTA barrier follows
// the op.
#include <numeric>

#include "lower/codegen.h"
#include "ptx/sync.h"
#include "support/diagnostic.h"

namespace kiln::lower {

namespace {

// The register budget ptxas gives every thread of a CTA of `threads` threads when nothing else limits
// it: the 64K registers of an SM shared by one CTA, in multiples of 8, at most 255 (PTX-NOTES §12: 168 at
// 384 threads). setmaxnreg may only raise (inc) or lower (dec) the budget from there.
int64_t launchBudget(int threads) { return std::min<int64_t>(255 / 8 * 8, 65536 / threads / 8 * 8); }

}  // namespace

void lowerPartition(Codegen& cg, const ir::Op& op) {
  ptx::Entry& e = cg.e;
  const std::vector<int64_t>& warps = op.listAttr("warps");
  const int64_t total = std::accumulate(warps.begin(), warps.end(), int64_t(0));
  if (total != cg.numWarps)
    throw CompileError(op.loc, "warp_partition: the partitions have " + std::to_string(total) +
                                   " warps, but the code runs on " + std::to_string(cg.numWarps));
  if (warps.size() > 15) throw CompileError(op.loc, "warp_partition: at most 15 partitions (named barriers 1..15)");
  const std::vector<int64_t>* registers = nullptr;
  if (op.hasAttr("registers")) {
    registers = &op.listAttr("registers");
    if (!e.target().archSpecific || e.target().sm < 90)
      throw CompileError(op.loc, "warp_partition: register budgets (setmaxnreg) need an arch-specific target from sm_90a "
                                 "(sm_90a, sm_100a, sm_120a, ...), not " + e.target().name());
    // ptxas ignores setmaxnreg unless it knows the budget at entry (C7508): .maxntid alone does not say it
    // below 384 threads, .maxnreg does. A maxnreg the user asked for would contradict the budgets.
    const int budget = int(launchBudget(32 * cg.numWarps));
    if (e.maxNReg() != 0 && e.maxNReg() != budget)
      throw CompileError(op.loc, "warp_partition: register budgets (setmaxnreg) start from the launch budget of " +
                                     std::to_string(budget) + " registers, which the entry declares as its .maxnreg: "
                                     "maxnreg=" + std::to_string(e.maxNReg()) + " cannot be used with them");
    e.setMaxNReg(budget);
  }
  int64_t first = 0;
  for (size_t i = 0; i < warps.size(); ++i) {
    const int w = int(warps[i]);
    if (w & (w - 1)) throw CompileError(op.loc, "warp_partition: partition " + std::to_string(i) + " has " +
                                                    std::to_string(w) + " warps; layouts need a power of two");
    ptx::Label skip = e.newLabel("partition_end");
    if (w < cg.numWarps) {  // warps outside [first, first + w) skip the region: uniform in each warp
      ptx::Reg rel = cg.warp(), in = e.reg(ptx::RegClass::Pred);
      if (first > 0) {
        rel = e.reg(ptx::RegClass::B32);
        e.inst("sub.u32", {rel, cg.warp(), first});
      }
      e.inst("setp.lt.u32", {in, rel, w});
      e.inst("bra.uni", {ptx::sym(skip.name)}, ptx::unless(in));
    }
    if (registers) {
      const int64_t want = (*registers)[i], budget = launchBudget(32 * cg.numWarps);
      if (first % 4 || w % 4)
        throw CompileError(op.loc, "warp_partition: a partition with a register budget must be whole warpgroups "
                                   "(4 warps from a multiple of 4); partition " + std::to_string(i) + " is not");
      if (want != budget) ptx::setMaxRegisters(e, want > budget, want);
    }
    // lead_warp: the region runs on the partition's first warp; the others, done with the warpgroup's
    // setmaxnreg, go to its end (a producer of copies that one thread issues: its other warps would only
    // follow the mbarrier phases, and one falling two phases behind would wait forever on a parity).
    const bool lead = op.hasAttr("lead_warp") && op.listAttr("lead_warp").at(i) == 1;
    if (lead && w > 1) {
      const ptx::Reg others = e.reg(ptx::RegClass::Pred);
      e.inst("setp.ne.u32", {others, cg.warp(), first});
      e.inst("bra.uni", {ptx::sym(skip.name)}, ptx::when(others));
    }
    cg.lowerPartitionBlock(op.region(unsigned(i)), int(first), lead ? 1 : w, int(i) + 1);
    e.label(skip);
    first += w;
  }
  cg.barrier();  // the partitions' shared-memory writes are visible to the code after the op
}

}  // namespace kiln::lower
