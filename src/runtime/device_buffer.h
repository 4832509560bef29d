// DeviceBuffer: an RAII allocation of device memory (cuMemAlloc / cuMemFree) with synchronous
// upload, download and byte fill; for tests, the demo and the host API's argument staging.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/cuda_driver.h"

namespace kiln::runtime {

class DeviceBuffer {
 public:
  DeviceBuffer(std::shared_ptr<CudaDriver> driver, int device, size_t bytes);  // bytes may be 0
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  cu::DevicePtr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  // For a kernel's argument list: the address of the device pointer (valid while this buffer lives
  // and is not moved from).
  void* argument() { return &ptr_; }

  // Copies are synchronous and bounds-checked (CudaError kind InvalidArgument past the end).
  void upload(const void* host, size_t bytes, size_t offset = 0);
  void download(void* host, size_t bytes, size_t offset = 0) const;
  void fill(std::uint8_t value);  // cuMemsetD8 over the whole buffer

  template <class T>
  void upload(const std::vector<T>& values) {
    upload(values.data(), values.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> download(size_t count) const {
    std::vector<T> out(count);
    download(out.data(), count * sizeof(T));
    return out;
  }

 private:
  void checkRange(const char* what, size_t bytes, size_t offset) const;
  void release() noexcept;

  std::shared_ptr<CudaDriver> driver_;
  int device_ = 0;
  cu::DevicePtr ptr_ = 0;
  size_t bytes_ = 0;
};

}  // namespace kiln::runtime
