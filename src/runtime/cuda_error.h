// CudaError: every failure of the runtime (no driver, no device, a failing CUDA or nvJitLink call, a
// launch that cannot be valid) as one exception naming the kernel and the call; the public API layer
// converts it to kiln::Error.
#pragma once
#include <exception>
#include <string>

namespace kiln::runtime {

class CudaError : public std::exception {
 public:
  enum class Kind {
    NoDriver,         // libcuda.so.1 missing or unusable (stub library, missing entry points)
    NoDevice,         // the driver loaded but there is no usable GPU
    CallFailed,       // a CUDA driver call returned an error
    InvalidArgument,  // kiln refused a request the device or kernel cannot honour (checked before any call)
    CompileFailed,    // PTX -> cubin failed (nvJitLink or driver JIT); log() holds the assembler's log
  };

  // message: the whole text after the optional "kernel 'NAME': " prefix.
  CudaError(Kind kind, std::string message, std::string kernel = {}, std::string call = {}, int code = 0,
            std::string codeName = {}, std::string log = {});

  // The error of a failing call: "kernel 'NAME': CALL failed: CODE_NAME (description)".
  static CudaError callFailed(std::string call, int code, std::string codeName, std::string description,
                              std::string kernel = {}, std::string log = {});

  Kind kind() const { return kind_; }
  const std::string& kernel() const { return kernel_; }      // empty when no kernel is involved
  const std::string& call() const { return call_; }          // e.g. "cuLaunchKernelEx"; may be empty
  int code() const { return code_; }                         // CUresult / nvJitLinkResult; 0 if none
  const std::string& codeName() const { return codeName_; }  // e.g. "CUDA_ERROR_INVALID_VALUE"
  const std::string& log() const { return log_; }            // JIT/linker error log, if any
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  Kind kind_;
  std::string kernel_, call_;
  int code_;
  std::string codeName_, log_, what_;
};

}  // namespace kiln::runtime
