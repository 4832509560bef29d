// What an ahead-of-time compiled specialization is, as C sees it: the launch function's arguments,
// the condition each one must meet for this variant (what the JIT's specialization assumed), the grid
// and the launch shape. Written into the generated header (aot_metadata.cpp) so that link reads it back.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::aot {

// What a variant assumes of one argument: the JIT's signature hints, as conditions on the value.
enum class Condition { None, Align8, Align16, Div8, Div16, EqualsOne };

// One argument of the launch function: a runtime parameter of the kernel.
struct CParam {
  std::string name;       // the C name (the Python name, with '_' appended where C or C++ reserves it)
  std::string ctype;      // the prototype's type: CUdeviceptr, int32_t, float, int (for i1), uint16_t (f16 bits)
  std::string slotType;   // the type of the bytes the kernel's .param reads (uint8_t for an i1's int)
  Condition condition = Condition::None;
};

struct Variant {
  std::string kernel;     // the @jit function
  std::string name;       // prefix of the C names
  std::string signature;  // as given
  std::string arch;
  int numWarps = 4, numStages = 3;
  int maxNReg = 0;  // 0: no limit
  int64_t sharedBytes = 0;  // dynamic shared memory
  std::string entry;        // the PTX entry's name
  std::vector<CParam> params;
  // Three C expressions (int64_t) over the parameters' C names, or empty: the launcher takes the grid.
  std::vector<std::string> grid;
  std::string gridText;  // the grid as given
};

// The C condition that `p` meets (e.g. "(x_ptr % 16) == 0"), or "" for Condition::None.
std::string conditionText(const CParam& p);
// How specialised a condition is: the dispatcher tries variants with larger sums first.
int conditionRank(Condition c);
const char* conditionName(Condition c);  // "align16", "div8", "eq1", "none" (the metadata's spelling)
bool conditionFromName(const std::string& text, Condition& out);

// `name` as a C identifier that C and C++ do not reserve and that the generated code does not use.
std::string cIdentifier(const std::string& name);

}  // namespace kiln::aot
