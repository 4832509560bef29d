// DeviceBuffer: allocation, bounds-checked synchronous copies, fill.
#include "runtime/device_buffer.h"

#include <string>
#include <utility>

namespace kiln::runtime {

DeviceBuffer::DeviceBuffer(std::shared_ptr<CudaDriver> driver, int device, size_t bytes)
    : driver_(std::move(driver)), device_(device), bytes_(bytes) {
  if (bytes_ == 0) return;  // cuMemAlloc rejects 0 bytes; an empty buffer needs no memory
  driver_->makeCurrent(device_);
  driver_->check(driver_->api().memAlloc(&ptr_, bytes_), "cuMemAlloc");
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : driver_(std::move(other.driver_)), device_(other.device_), ptr_(other.ptr_), bytes_(other.bytes_) {
  other.ptr_ = 0;
  other.bytes_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    driver_ = std::move(other.driver_);
    device_ = other.device_;
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() noexcept {
  if (!ptr_ || !driver_) return;
  try {
    driver_->makeCurrent(device_);
  } catch (const CudaError&) {
  }
  driver_->api().memFree(ptr_);
  ptr_ = 0;
}

void DeviceBuffer::checkRange(const char* what, size_t bytes, size_t offset) const {
  if (offset > bytes_ || bytes > bytes_ - offset)
    throw CudaError(CudaError::Kind::InvalidArgument, std::string(what) + " of " + std::to_string(bytes) +
                                                          " bytes at offset " + std::to_string(offset) +
                                                          " runs past the end of a " +
                                                          std::to_string(bytes_) + "-byte device buffer");
}

void DeviceBuffer::upload(const void* host, size_t bytes, size_t offset) {
  checkRange("upload", bytes, offset);
  if (bytes == 0) return;
  driver_->makeCurrent(device_);
  driver_->check(driver_->api().memcpyHtoD(ptr_ + offset, host, bytes), "cuMemcpyHtoD");
}

void DeviceBuffer::download(void* host, size_t bytes, size_t offset) const {
  checkRange("download", bytes, offset);
  if (bytes == 0) return;
  driver_->makeCurrent(device_);
  driver_->check(driver_->api().memcpyDtoH(host, ptr_ + offset, bytes), "cuMemcpyDtoH");
}

void DeviceBuffer::fill(std::uint8_t value) {
  if (bytes_ == 0) return;
  driver_->makeCurrent(device_);
  driver_->check(driver_->api().memsetD8(ptr_, value, bytes_), "cuMemsetD8");
}

}  // namespace kiln::runtime
