// A loaded kernel's TMA tensor maps as launch arguments: the kernel's specs bound to its parameters
// (TensorMapReader), read from each launch's packed values, encoded through the driver or reused from the
// last launch that passed the same values (runtime::TensorMapEncoder). The maps follow the kernel's
// runtime parameters, one 128-byte CUtensorMap each, in index order (docs/runtime.md). A guarded map
// (TensorMapSpec::guarded) that cannot be encoded travels as zeros: its kernel does not copy through it.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "driver/tensor_map_values.h"
#include "runtime/tensor_map.h"

namespace kiln {

class TensorMapArgs {
 public:
  // The maps of a kernel with runtime parameters `params`; null when `specs` is empty (the launch path
  // then does nothing more), or why a spec cannot be launched (whyNot set, null returned).
  static std::unique_ptr<TensorMapArgs> bind(const std::vector<TensorMapSpec>& specs, std::span<const Param> params,
                                             std::string& whyNot);

  size_t size() const { return readers_.size(); }

  using Encode = std::function<runtime::cu::TensorMap(const runtime::TensorMapValues&)>;

  // Writes map i of this launch to out[i] for every map: kernelParams[k] points at runtime parameter k's
  // value; where[k] names it in messages. A map whose values differ from the last launch's is encoded
  // with `encode` (encodeOn below; tests pass their own). Returns why the arguments cannot make a map:
  // the reader's checks, or the driver refusing the encode (a CudaError of kind CallFailed, reported with
  // the map's base argument and the values). A guarded map that either refuses gets 128 zero bytes
  // instead and the other maps are filled as usual; no encoding is kept for values that failed, so a
  // later launch with the same values gets zeros again and one with good values its map. Other
  // CudaErrors (no entry point to encode with) propagate, guarded or not.
  std::optional<std::string> fill(void* const* kernelParams, std::span<const std::string> where,
                                  const Encode& encode, runtime::cu::TensorMap* out);

  // The encode of a launch on `device` through `driver` (runtime::encodeTensorMap).
  static Encode encodeOn(runtime::CudaDriver& driver, int device) {
    return [&driver, device](const runtime::TensorMapValues& v) {
      return runtime::encodeTensorMap(driver, device, v, {});
    };
  }

  // Driver encodes so far (the rest were reused).
  size_t encodes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return encoder_.encodes();
  }

 private:
  TensorMapArgs(std::vector<TensorMapReader> readers, std::vector<bool> guarded)
      : readers_(std::move(readers)), guarded_(std::move(guarded)), encoder_(readers_.size()) {}
  std::vector<TensorMapReader> readers_;
  std::vector<bool> guarded_;  // per map: TensorMapSpec::guarded
  mutable std::mutex mutex_;  // launches from several threads share the encoder: one lock per fill
  runtime::TensorMapEncoder encoder_;
};

}  // namespace kiln
