// What of a launch's arguments decides its specialization key (specialize.h), in a form compared
// byte for byte: equal prints give equal keys, so a launch whose arguments print like an earlier
// launch's reuses that launch's variant without writing the key out. Scalars print their exact value
// (integers, bools, a float's bits and dtype), pointers their pointee and the divisibility class of
// their address; strings and signature entries do not print (those launches build the key).
#pragma once
#include <cstdint>
#include <span>

#include "kiln/launcher.h"

namespace kiln {

struct ArgPrint {
  uint64_t bits = 0;   // the value; for a pointer its address's class (16, 8 or 0) and whether it is host memory
  char dtype[8] = {};  // the pointee or the float's type, zero-padded
  uint64_t kind = 0;   // LaunchArg::Kind (a whole word: no padding bytes to compare)
  bool operator==(const ArgPrint& o) const { return bits == o.bits && kind == o.kind && dtypeWord() == o.dtypeWord(); }

 private:
  uint64_t dtypeWord() const;
};

// Prints every argument into out[0..args.size()); false when one does not print.
bool printArgs(std::span<const LaunchArg> args, ArgPrint* out);

}  // namespace kiln
