// The GPU pass registry: names to pass functions, for kiln-opt and --dump-after.
#include "schedule/schedule.h"

namespace kiln::schedule {

namespace {
struct Entry {
  const char* name;
  void (*run)(ir::Function&, const GpuContext&);
};
constexpr Entry kPasses[] = {
    {"persistent", makePersistent},
    {"overlap_dots", overlapDots},
    {"pipeline", pipelineLoops},
    {"defer_mma_waits", deferMmaWaits},
    {"warp_specialize", warpSpecialize},
    {"split_mma", splitMma},
    {"stage_operands", stageOperands},
    {"pingpong", pingpong},
    {"tma_stores", tmaStores},
    {"allocate_shared", allocateShared},
    {"insert_barriers", insertBarriers},
};
}  // namespace

bool runGpuPass(std::string_view name, ir::Function& fn, const GpuContext& ctx) {
  for (const Entry& e : kPasses)
    if (name == e.name) {
      e.run(fn, ctx);
      return true;
    }
  return false;
}

std::vector<std::string> gpuPassNames() {
  std::vector<std::string> out;
  for (const Entry& e : kPasses) out.push_back(e.name);
  return out;
}

int64_t maxSharedPerBlock(const ptx::Target& target) {
  // The opt-in limit per block of each compute capability: consumer Blackwell (12.x) has Ada's 99 KB,
  // Hopper and datacenter Blackwell (9.0, 10.x, 11.x) 227 KB, A100 and Orin (8.0, 8.7) 163 KB.
  if (target.sm >= 120) return 99 * 1024;
  if (target.sm >= 90) return 227 * 1024;
  if (target.sm == 80 || target.sm == 87) return 163 * 1024;
  if (target.sm >= 86) return 99 * 1024;
  return 48 * 1024;
}

}  // namespace kiln::schedule
