// The local names of one function being lowered (the kernel or an inlined helper): what each
// name is bound to, and the names that went out of view (defined in one branch of an `if`, or
// inside a loop) together with a note saying why, for the "not defined" error at a later use.
#pragma once
#include <map>
#include <string>

#include "sema/value.h"
#include "support/diagnostic.h"

namespace kiln::sema {

class Scope {
 public:
  const SValue* find(const std::string& name) const {
    auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : &it->second;
  }
  // The note explaining why `name` is not visible here, or null when it was never hidden.
  const Diagnostic* whyHidden(const std::string& name) const {
    auto it = hidden_.find(name);
    return it == hidden_.end() ? nullptr : &it->second;
  }
  void set(const std::string& name, SValue v) {
    vars_[name] = std::move(v);
    hidden_.erase(name);
  }
  void hide(const std::string& name, SourceLoc loc, std::string why) {
    vars_.erase(name);
    hidden_[name] = Diagnostic{Diagnostic::Kind::Note, std::move(loc), std::move(why), {}};
  }
  const std::map<std::string, SValue>& vars() const { return vars_; }
  const std::map<std::string, Diagnostic>& hidden() const { return hidden_; }

 private:
  std::map<std::string, SValue> vars_;
  std::map<std::string, Diagnostic> hidden_;
};

}  // namespace kiln::sema
