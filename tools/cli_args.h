// Argument parsing the kiln CLI's commands share (tools/kiln.cpp, tools/kiln_aot.cpp).
#pragma once
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

// `text` as a positive int, all of it; false (out untouched) otherwise.
inline bool parsePositiveInt(const std::string& text, int& out) {
  try {
    size_t used = 0;
    int v = std::stoi(text, &used);
    if (used != text.size() || v <= 0) return false;
    out = v;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// A command's arguments one at a time: an option's value follows it (`--name value`) or is attached
// (`--name=value`, split off here so that the option's name compares as it is).
class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}
  // The next argument into `arg` (an attached value taken off); false when none is left.
  bool next(std::string& arg) {
    if (++at_ >= args_.size()) return false;
    arg = args_[at_];
    attached_.reset();
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      attached_ = arg.substr(eq + 1);
      arg.resize(eq);
    }
    return true;
  }
  // The current argument as given (with an attached value).
  const std::string& raw() const { return args_[at_]; }
  // The current option's value: the attached one, else the next argument; false when there is none.
  bool value(std::string& into) {
    if (attached_) {
      into = *attached_;
      return true;
    }
    if (at_ + 1 >= args_.size()) return false;
    into = args_[++at_];
    return true;
  }

 private:
  const std::vector<std::string>& args_;
  size_t at_ = size_t(-1);
  std::optional<std::string> attached_;
};

}  // namespace kiln::cli
