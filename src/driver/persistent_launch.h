// How the launchers (JitFunction, Gpu::run) start a persistent entry (CompileOptions::persistent,
// schedule/persistent.cpp): the logical grid goes in kGridParams parameters after the kernel's own, and
// the launch starts at most one wave of programs, which walk it.
#pragma once
#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

#include "kiln/kiln.h"
#include "runtime/launch.h"
#include "schedule/schedule.h"

namespace kiln {

// The grid parameters a persistent entry takes (none otherwise).
constexpr size_t kGridParams = std::size(schedule::kPersistentGridNames);

// One wave of the device for `kernel`: its multiprocessors times the CTAs of this block size and dynamic
// shared memory that fit on one at once (occupancy, asked of the driver once at load). Throws CudaError.
inline unsigned persistentWave(runtime::LoadedKernel& kernel, unsigned blockThreads, size_t dynamicShared,
                               int smCount) {
  return unsigned(kernel.residentBlocksPerSm(blockThreads, dynamicShared) * smCount);
}

// The grid a persistent launch of `grid` starts on at most `wave` programs, with the logical grid in
// `dims`; or why it cannot (more programs than the kernel's i32 loop counts).
inline std::optional<std::string> persistentGrid(Grid grid, unsigned wave, uint32_t dims[kGridParams], Grid& launch) {
  const uint64_t programs = uint64_t(grid.x) * grid.y * grid.z;
  if (programs > uint64_t(INT32_MAX))
    return "the grid has " + std::to_string(programs) + " programs, but a persistent kernel takes at most 2^31 - 1";
  dims[0] = grid.x, dims[1] = grid.y, dims[2] = grid.z;
  launch = Grid{uint32_t(std::min<uint64_t>(programs, wave)), 1, 1};
  return std::nullopt;
}

}  // namespace kiln
