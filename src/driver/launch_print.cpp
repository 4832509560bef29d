// Launch-argument prints (driver/launch_print.h).
#include "driver/launch_print.h"

#include <cstring>

namespace kiln {

uint64_t ArgPrint::dtypeWord() const {
  uint64_t w = 0;
  std::memcpy(&w, dtype, sizeof w);
  return w;
}

bool printArgs(std::span<const LaunchArg> args, ArgPrint* out) {
  using K = LaunchArg::Kind;
  for (size_t i = 0; i < args.size(); ++i) {
    const LaunchArg& a = args[i];
    ArgPrint& p = out[i];
    p = ArgPrint{};
    p.kind = uint64_t(a.kind);
    if (a.dtype.size() > sizeof p.dtype) return false;
    std::memcpy(p.dtype, a.dtype.data(), a.dtype.size());
    switch (a.kind) {
      case K::Pointer:
        // The key reads the address only through its divisibility hint (":16", ":8" or none).
        p.bits = (a.address % 16 == 0 ? 16 : a.address % 8 == 0 ? 8 : 0) | (a.host ? 1 : 0);
        break;
      case K::Int: case K::UInt: case K::Bool: p.bits = uint64_t(a.i); break;
      case K::Float: std::memcpy(&p.bits, &a.f, sizeof p.bits); break;
      case K::None: break;
      case K::String: case K::Signature: return false;
    }
  }
  return true;
}

}  // namespace kiln
