// The long-run notice's text (interp.h: RunOptions::longRun): the programs, their measured speed and
// the time the whole grid will take at it.
#include <cstdio>

#include "interp/machine.h"

namespace kiln::interp {

namespace {

std::string duration(double seconds) {
  char buf[48];
  if (seconds < 120) std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  else if (seconds < 2 * 3600) std::snprintf(buf, sizeof buf, "%.0f min", seconds / 60);
  else if (seconds < 2 * 86400) std::snprintf(buf, sizeof buf, "%.1f h", seconds / 3600);
  else std::snprintf(buf, sizeof buf, "%.1f days", seconds / 86400);
  return buf;
}

}  // namespace

std::string longRunMessage(const std::string& kernel, uint64_t programs, double perSecond) {
  char rate[32];
  std::snprintf(rate, sizeof rate, perSecond >= 100 ? "%.0f" : "%.2g", perSecond);
  return "kernel '" + kernel + "': the interpreter runs " + std::to_string(programs) + " programs for this launch at about " +
         rate + " programs/s, so it will take about " + duration(double(programs) / perSecond) +
         " (Ctrl-C stops it; a smaller grid, or the GPU, is faster)";
}

}  // namespace kiln::interp
