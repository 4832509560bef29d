// CudaError's message: "kernel 'NAME': " when a kernel is involved, the message, then the JIT log.
#include "runtime/cuda_error.h"

#include <utility>

namespace kiln::runtime {

CudaError::CudaError(Kind kind, std::string message, std::string kernel, std::string call, int code,
                     std::string codeName, std::string log)
    : kind_(kind),
      kernel_(std::move(kernel)),
      call_(std::move(call)),
      code_(code),
      codeName_(std::move(codeName)),
      log_(std::move(log)) {
  if (!kernel_.empty()) what_ = "kernel '" + kernel_ + "': ";
  what_ += message;
  std::string trimmed = log_;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ' || trimmed.back() == '\0'))
    trimmed.pop_back();
  if (!trimmed.empty()) what_ += "\n" + trimmed;
}

CudaError CudaError::callFailed(std::string call, int code, std::string codeName, std::string description,
                                std::string kernel, std::string log) {
  std::string message = call + " failed: " + codeName + " (" + description + ")";
  return CudaError(Kind::CallFailed, std::move(message), std::move(kernel), std::move(call), code,
                   std::move(codeName), std::move(log));
}

}  // namespace kiln::runtime
