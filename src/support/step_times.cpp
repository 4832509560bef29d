// StepTimes: the --time-passes table (step_times.h).
#include "support/step_times.h"

#include <time.h>

#include <cstdio>

namespace kiln {

namespace {

double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

}  // namespace

void StepTimes::add(std::string_view stage, std::string_view pass, double wallMs, double cpuMs) {
  for (Step& s : steps_)
    if (s.stage == stage && s.pass == pass) {
      s.wallMs += wallMs;
      s.cpuMs += cpuMs;
      ++s.runs;
      return;
    }
  steps_.push_back(Step{std::string(stage), std::string(pass), wallMs, cpuMs, 1});
}

std::string StepTimes::render(std::string_view title) const {
  auto line = [](std::string& out, double wall, double cpu, int indent, const std::string& name, int runs) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%10.3f %9.3f  %*s", wall, cpu, indent, "");
    out += buf;
    out += name;
    if (runs > 1) out += " (" + std::to_string(runs) + " runs)";
    out += '\n';
  };
  std::string out = "===== time per step: " + std::string(title) + " =====\n   wall ms    cpu ms  step\n";
  std::vector<std::string> stages;
  for (const Step& s : steps_) {
    bool seen = false;
    for (const std::string& st : stages) seen = seen || st == s.stage;
    if (!seen) stages.push_back(s.stage);
  }
  double totalWall = 0, totalCpu = 0;
  for (const std::string& stage : stages) {
    double wall = 0, cpu = 0;
    for (const Step& s : steps_)
      if (s.stage == stage) wall += s.wallMs, cpu += s.cpuMs;
    totalWall += wall;
    totalCpu += cpu;
    line(out, wall, cpu, 0, stage, 1);
    for (const Step& s : steps_)
      if (s.stage == stage && !s.pass.empty()) line(out, s.wallMs, s.cpuMs, 2, s.pass, s.runs);
  }
  line(out, totalWall, totalCpu, 0, "total", 1);
  return out;
}

StepTimes::Scope::Scope(StepTimes* times, std::string_view stage, std::string_view pass)
    : times_(times), stage_(stage), pass_(pass) {
  if (!times_) return;
  start_ = std::chrono::steady_clock::now();
  startCpuMs_ = threadCpuMs();
}

StepTimes::Scope::~Scope() {
  if (!times_) return;
  std::chrono::duration<double, std::milli> wall = std::chrono::steady_clock::now() - start_;
  times_->add(stage_, pass_, wall.count(), threadCpuMs() - startCpuMs_);
}

}  // namespace kiln
