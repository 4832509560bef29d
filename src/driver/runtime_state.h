// Runtime's state (include/kiln/launcher.h): the CUDA driver, loaded once on first use (or why it
// cannot be), and the cubin cache, shared by every JitFunction of a process.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "kiln/launcher.h"
#include "runtime/cache.h"
#include "runtime/cuda_driver.h"

namespace kiln {

struct Runtime::Impl {
  std::mutex mutex;
  std::atomic<bool> tried{false};  // set once driver and whyNot are final
  std::shared_ptr<runtime::CudaDriver> driver;
  std::string whyNot;
  runtime::Cache cache{runtime::defaultCacheDirectory()};

  // The driver, loaded on the first call; null (and whyNot set) without a GPU.
  // Lock-free once settled: every launch with device pointers asks (the binding's stream lookup).
  runtime::CudaDriver* open() {
    if (tried.load(std::memory_order_acquire)) return driver.get();
    std::lock_guard<std::mutex> lock(mutex);
    if (!tried.load(std::memory_order_relaxed)) {
      driver = runtime::CudaDriver::tryOpen(&whyNot);
      tried.store(true, std::memory_order_release);
    }
    return driver.get();
  }
};

}  // namespace kiln
