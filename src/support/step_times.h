// Time per compiler step, for `kiln compile --time-passes` (CompileOptions::time_passes): each pipeline
// stage and each pass inside it, summed over its runs, and rendered as a table. Wall time, and the
// calling thread's CPU time next to it (which other work on a busy machine inflates far less).
#pragma once
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

class StepTimes {
 public:
  // Adds wall and CPU milliseconds to step `pass` of `stage` (a stage's own time when `pass` is empty).
  void add(std::string_view stage, std::string_view pass, double wallMs, double cpuMs);
  bool empty() const { return steps_.empty(); }
  // The table, stages in the order they first ran and each stage's passes under it:
  //   "   12.345    11.902  stage" then "    1.234     1.201    pass" (wall ms, CPU ms; " (N runs)" when
  //   a pass ran more than once).
  // A stage's figure is its own time plus its passes'; the last line is the total of all stages.
  std::string render(std::string_view title) const;

  // Times the enclosing scope as step `pass` of `stage`; a null `times` times nothing.
  class Scope {
   public:
    Scope(StepTimes* times, std::string_view stage, std::string_view pass);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    StepTimes* times_;
    std::string_view stage_, pass_;
    std::chrono::steady_clock::time_point start_;
    double startCpuMs_ = 0;
  };

 private:
  struct Step {
    std::string stage, pass;
    double wallMs = 0, cpuMs = 0;
    int runs = 0;
  };
  std::vector<Step> steps_;
};

}  // namespace kiln
