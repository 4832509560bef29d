// dce: not implemented yet (the pass is a no-op until it is written).
#include "passes/passes.h"

namespace kiln::passes {

void dce(ir::Function&) {}

}  // namespace kiln::passes
