// TensorMapArgs (tensor_map_args.h): a loaded kernel's tensor maps read, checked and encoded per launch.
#include "driver/tensor_map_args.h"

namespace kiln {

std::unique_ptr<TensorMapArgs> TensorMapArgs::bind(const std::vector<TensorMapSpec>& specs,
                                                   std::span<const Param> params, std::string& whyNot) {
  if (specs.empty()) return nullptr;
  std::vector<TensorMapReader> readers;
  std::vector<bool> guarded;
  for (size_t i = 0; i < specs.size(); ++i) {
    std::optional<TensorMapReader> r = TensorMapReader::bind(specs[i], i, params, whyNot);
    if (!r) return nullptr;
    readers.push_back(std::move(*r));
    guarded.push_back(specs[i].guarded);
  }
  return std::unique_ptr<TensorMapArgs>(new TensorMapArgs(std::move(readers), std::move(guarded)));
}

std::optional<std::string> TensorMapArgs::fill(void* const* kernelParams, std::span<const std::string> where,
                                               const Encode& encode, runtime::cu::TensorMap* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < readers_.size(); ++i) {
    // A guarded map that cannot be encoded goes as zeros: its kernel checks the same values and does not
    // copy through it. A failed read leaves the encoder's kept map as it was (kept for other values), and
    // a throwing encode drops it, so failed values are never taken for encoded ones.
    runtime::TensorMapValues values;
    if (std::optional<std::string> why = readers_[i].read(kernelParams, where, values)) {
      if (!guarded_[i]) return why;
      out[i] = runtime::cu::TensorMap{};
      continue;
    }
    try {
      encoder_.get(i, values, out[i], encode);
    } catch (const runtime::CudaError& e) {
      if (e.kind() != runtime::CudaError::Kind::CallFailed) throw;
      if (!guarded_[i])
        return where[size_t(readers_[i].base())] + ": the driver cannot encode the tensor map over it: " + e.what();
      out[i] = runtime::cu::TensorMap{};
    }
  }
  return std::nullopt;
}

}  // namespace kiln
