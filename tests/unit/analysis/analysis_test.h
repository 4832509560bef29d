// Test helpers for the axis-info analysis: parse IR text, run the analysis on its first function,
// and look values up by the `%name` the text gives them.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "analysis/axis_info.h"
#include "ir/text.h"
#include "support/diagnostic.h"

namespace kiln::analysis::test {

// The names the text defines, in definition order (parameters, then op results and region
// arguments in the order they appear), which is the order of a pre-order walk of the function.
inline std::vector<std::string> definitionNames(const std::string& text) {
  std::vector<std::string> names;
  std::istringstream in(text);
  auto collect = [&](const std::string& s) {
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '%') continue;
      size_t j = i + 1;
      while (j < s.size() && s[j] != ',' && s[j] != ':' && s[j] != ' ' && s[j] != ')') ++j;
      names.push_back(s.substr(i + 1, j - i - 1));
      i = j;
    }
  };
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find("//"));
    size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    std::string s = line.substr(first);
    if (s.rfind("func ", 0) == 0) collect(s.substr(0, s.find(')')));
    else if (s.rfind("^(", 0) == 0) collect(s);
    else if (s[0] == '%' && s.find(" = ") != std::string::npos) collect(s.substr(0, s.find(" = ")));
  }
  return names;
}

inline void definedValues(const ir::Block& b, std::vector<const ir::Value*>& out) {
  for (const auto& op : b.ops) {
    for (const auto& r : op->results) out.push_back(r.get());
    for (const auto& region : op->regions) {
      for (const auto& a : region->args) out.push_back(a.get());
      definedValues(*region, out);
    }
  }
}

struct Analyzed {
  std::unique_ptr<ir::Module> module;
  std::unique_ptr<AxisInfoAnalysis> analysis;
  std::map<std::string, const ir::Value*> named;

  const ir::Function& fn() const { return *module->functions.at(0); }
  const ir::Value* v(const std::string& name) const {
    auto it = named.find(name);
    if (it == named.end()) throw std::runtime_error("no value %" + name + " in the test IR");
    return it->second;
  }
  const AxisInfo& operator[](const std::string& name) const { return analysis->get(v(name)); }
  std::string facts(const std::string& name) const { return (*this)[name].str(); }
};

inline Analyzed analyze(const std::string& text) {
  Analyzed a;
  a.module = ir::parseModule(makeSource("test.tir", text));
  const ir::Function& f = *a.module->functions.at(0);
  if (auto d = ir::verify(f)) throw std::runtime_error("test IR does not verify: " + d->render());
  a.analysis = std::make_unique<AxisInfoAnalysis>(f);
  std::vector<const ir::Value*> values;
  for (const auto& p : f.body.args) values.push_back(p.get());
  definedValues(f.body, values);
  std::vector<std::string> names = definitionNames(text.substr(0, text.find("\nfunc ", 1)));
  if (names.size() != values.size()) throw std::runtime_error("test IR: could not match value names");
  for (size_t i = 0; i < names.size(); ++i) a.named[names[i]] = values[i];
  return a;
}

}  // namespace kiln::analysis::test
