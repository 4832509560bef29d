// The compilation pipeline behind kiln::compile, as one straight-line function (compile.cpp).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "kiln/kiln.h"

namespace kiln {

// Everything a compiled kernel keeps: the stage texts and the optimised Tile IR module.
struct Kernel::Impl {
  std::string name;
  std::string signature;
  std::vector<Param> params;
  std::string ast;
  std::string irBeforePasses;
  std::string ir;
  std::map<std::string, std::string> dumps;  // "after-<pass>" -> IR text, for --dump-after
  std::unique_ptr<ir::Module> module;
  const ir::Function& function() const { return *module->functions.front(); }
};

}  // namespace kiln
