// Runtime's state (include/kiln/launcher.h): the CUDA driver, loaded once on first use (or why it
// cannot be), and the cubin cache, shared by every JitFunction of a process.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include "kiln/launcher.h"
#include "runtime/cache.h"
#include "runtime/cuda_driver.h"

namespace kiln {

struct Runtime::Impl {
  std::mutex mutex;
  bool tried = false;
  std::shared_ptr<runtime::CudaDriver> driver;
  std::string whyNot;
  runtime::Cache cache{runtime::defaultCacheDirectory()};

  // The driver, loaded on the first call; null (and whyNot set) without a GPU.
  runtime::CudaDriver* open() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!tried) {
      tried = true;
      driver = runtime::CudaDriver::tryOpen(&whyNot);
    }
    return driver.get();
  }
};

}  // namespace kiln
