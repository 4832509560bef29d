// TMA tensor maps on the host: the concrete values a CUtensorMap is encoded from (TensorMapValues, in the
// driver's order, dimension 0 the contiguous one), the encode through the dlopen'd driver, and
// TensorMapEncoder, which keeps the last encoding of each of a kernel's maps with the values it came from
// and reuses it while a launch passes the same values (an encode costs a driver call; launches repeat).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cuda_api.h"
#include "runtime/cuda_error.h"

namespace kiln::runtime {

class CudaDriver;

struct TensorMapValues {
  int dataType = cu::kTensorMapDataTypeUint8;  // CU_TENSOR_MAP_DATA_TYPE_*
  std::uint32_t rank = 0;                      // 1 to 5
  std::uint64_t address = 0;                   // the global address of element (0, ..., 0)
  std::uint64_t dims[cu::kTensorMapMaxRank] = {};         // elements; unused entries stay 0
  std::uint64_t strides[cu::kTensorMapMaxRank - 1] = {};  // bytes, of dims 1..rank-1 (dim 0's is the element)
  std::uint32_t box[cu::kTensorMapMaxRank] = {};          // elements one copy moves
  int swizzle = cu::kTensorMapSwizzleNone;                // CU_TENSOR_MAP_SWIZZLE_*
  bool operator==(const TensorMapValues&) const = default;
};

// "FLOAT16 at 0x7f0000001000, dims [64, 100], byte strides [128], box [64, 32], swizzle 128B": for messages.
std::string describe(const TensorMapValues& v);

// Encodes v (cuTensorMapEncodeTiled) with no interleave, element strides 1, L2 promotion 256B and
// out-of-bounds elements read as zero (OOB fill none), with device's context current. Throws CudaError:
// NoDriver when the driver has no cuTensorMapEncodeTiled (older than CUDA 12.0), CallFailed naming
// `kernel`, the call and the values.
cu::TensorMap encodeTensorMap(CudaDriver& driver, int device, const TensorMapValues& v, const std::string& kernel);

// The last encoding of each of a loaded kernel's `count` maps, with the values it was encoded from. Not
// synchronised: its owner serialises the launches that share it (TensorMapArgs: one lock per launch).
class TensorMapEncoder {
 public:
  explicit TensorMapEncoder(size_t count) : entries_(count) {}
  size_t size() const { return entries_.size(); }

  // Writes map i's encoding of v to out: the kept one when v equals the values it was encoded from, else
  // encode(v) (a callable returning cu::TensorMap, which may throw: nothing is kept then), kept for next time.
  template <class Encode>
  void get(size_t i, const TensorMapValues& v, cu::TensorMap& out, Encode&& encode) {
    Entry& e = entries_[i];
    if (!e.valid || !(e.values == v)) {
      e.valid = false;
      e.map = encode(v);
      e.values = v;
      e.valid = true;
      ++encodes_;
    }
    out = e.map;
  }
  // How many encodes get() has run (the rest reused a kept map).
  size_t encodes() const { return encodes_; }

 private:
  struct Entry {
    cu::TensorMap map{};
    TensorMapValues values;
    bool valid = false;
  };
  std::vector<Entry> entries_;
  size_t encodes_ = 0;
};

}  // namespace kiln::runtime
