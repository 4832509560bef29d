// The IR text annotated with axis info (kiln-opt --print-axis-info, golden tests). It walks the
// function in the printer's order: one line per op header, one per region argument list, one per
// region end; a line that defines integer or pointer values gets their facts as a `//` comment.
#include <sstream>

#include "analysis/axis_info.h"
#include "ir/text.h"
#include "support/diagnostic.h"

namespace kiln::analysis {

namespace {

bool annotated(const ir::Value* v) { return v->type.isInt() || v->type.isPtr(); }

// The `%name`s a printed line defines, in order: before ` = ` for an op, the `^(%a: T, ...)` list
// for region arguments (type text never contains '%').
std::vector<std::string> definedNames(const std::string& line, bool regionArgs) {
  std::vector<std::string> names;
  size_t begin = regionArgs ? line.find("^(") : 0;
  size_t end = regionArgs ? line.size() : line.find(" = ");
  if (begin == std::string::npos || end == std::string::npos) return names;
  for (size_t i = begin; i < end; ++i) {
    if (line[i] != '%') continue;
    size_t j = i + 1;
    while (j < end && line[j] != ',' && line[j] != ':' && line[j] != ' ') ++j;
    names.push_back(line.substr(i, j - i));
    i = j;
  }
  return names;
}

class Annotator {
 public:
  Annotator(std::vector<std::string>& lines, const AxisInfoAnalysis& a) : lines_(lines), a_(a) {}

  void function(const ir::Function& fn) {
    next_ = 1;  // line 0 is `func @name(...) {`; parameters are seeded, not derived
    block(fn.body);
    if (next_ + 1 != lines_.size()) broken();
  }

 private:
  std::vector<std::string>& lines_;
  const AxisInfoAnalysis& a_;
  size_t next_ = 0;

  [[noreturn]] void broken() const {
    throw InternalError({}, "axis info printer: the IR text does not have the expected line structure");
  }

  void annotate(const std::vector<const ir::Value*>& values, bool regionArgs) {
    if (next_ >= lines_.size()) broken();
    std::string& line = lines_[next_++];
    if (values.empty()) return;
    std::vector<std::string> names = definedNames(line, regionArgs);
    if (names.size() != values.size()) broken();
    std::string comment;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!annotated(values[i])) continue;
      if (!comment.empty()) comment += "; ";
      if (values.size() > 1) comment += names[i] + ": ";
      comment += a_.get(values[i]).str();
    }
    if (!comment.empty()) line += "  // " + comment;
  }

  void block(const ir::Block& b) {
    for (const auto& op : b.ops) {
      std::vector<const ir::Value*> results;
      for (const auto& r : op->results) results.push_back(r.get());
      annotate(results, false);
      for (const auto& region : op->regions) {
        if (!region->args.empty()) {
          std::vector<const ir::Value*> args;
          for (const auto& v : region->args) args.push_back(v.get());
          annotate(args, true);
        }
        block(*region);
        ++next_;  // the region's closing `}` (or `} {`)
      }
    }
  }
};

}  // namespace

std::string printWithAxisInfo(const ir::Function& fn, const AxisInfoAnalysis& analysis) {
  std::vector<std::string> lines;
  std::istringstream in(ir::print(fn));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  Annotator(lines, analysis).function(fn);
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

}  // namespace kiln::analysis
