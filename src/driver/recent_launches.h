// The launch path's shortcut past the specialization key: each JitFunction keeps its few most recent
// launches (from any thread), each as the options and the arguments' prints, with the variant they
// selected. A print is what of an argument decides its key (specialize.h), compared byte for byte:
// equal prints give equal keys, so a launch whose arguments print like a recent launch's reuses its
// variant without writing the key out. Scalars print their exact value (integers, bools, a float's
// bits and dtype), pointers their pointee and the divisibility class of their address; strings and
// signature entries do not print (those launches build the key); a tuple prints as its size and its
// elements' prints (a NamedTuple does not print).
#pragma once
#include <atomic>
#include <cstdint>
#include <span>

#include "kiln/launcher.h"

namespace kiln {

struct ArgPrint {
  uint64_t bits = 0;   // the value; for a pointer its address's class (16, 8 or 0) and whether it is host memory
  char dtype[8] = {};  // the pointee or the float's type, zero-padded
  uint64_t kind = 0;   // LaunchArg::Kind (a whole word: no padding bytes to compare)
  bool operator==(const ArgPrint& o) const { return bits == o.bits && kind == o.kind && dtypeWord() == o.dtypeWord(); }
  uint64_t dtypeWord() const;
};

// Prints every argument into out[0..args.size()); false when one does not print (or is a tuple: a
// tuple prints as a marker of its size followed by its elements, which only printLaunch has room for).
bool printArgs(std::span<const LaunchArg> args, ArgPrint* out);

// One launch's arguments and options as a print; `printed` is false when an argument does not print
// or they take more than kPrintedArgs prints (the launch then builds its key and is not remembered).
constexpr size_t kPrintedArgs = 16;
struct LaunchPrint {
  bool printed = false;
  size_t numArgs = 0;  // prints in args (a tuple takes one more than its elements)
  int numWarps = 0, numStages = 0;
  bool fpFusion = true;
  bool warpSpecialize = false;
  bool persistent = false;
  int maxNReg = 0;
  ArgPrint args[kPrintedArgs];
  bool operator==(const LaunchPrint& o) const;
};
LaunchPrint printLaunch(std::span<const LaunchArg> args, const LaunchOptions& o);

// One function's recent launches, owned by it (JitFunction::Impl) and shared by the threads that launch
// it, which may do so at once (the Python binding releases the GIL around launches). Lookups take no
// lock: each entry is a seqlock (a version that is odd while the entry is written, read before and after
// the entry's words), so a lookup that overlaps a write misses and builds the key, never returns a torn
// entry. A write that finds its entry being written skips it: the table is only a shortcut.
class RecentLaunches {
 public:
  // The variant a recent launch with the same print selected, or null.
  void* find(const LaunchPrint& p) const;
  // Records that the print selected `variant` (replacing the oldest entry); nothing when not printed.
  void remember(const LaunchPrint& p, void* variant);

  static constexpr size_t kEntries = 4;                    // a few configurations launched in turn all hit
  static constexpr size_t kWords = 2 + 3 * kPrintedArgs;  // a LaunchPrint as words (encode in the .cpp)

 private:
  struct Entry {
    std::atomic<uint64_t> version{0};  // odd while a writer fills the entry; 0: never written
    std::atomic<uint64_t> numWords{0};
    std::atomic<uint64_t> words[kWords] = {};
    std::atomic<void*> variant{nullptr};
  };
  Entry entries_[kEntries];
  std::atomic<uint64_t> next_{0};  // round robin over the entries
};

}  // namespace kiln
