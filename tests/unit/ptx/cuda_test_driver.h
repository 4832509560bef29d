// A minimal CUDA driver for the PTX device tests: dlopen("libcuda.so.1"), one context on device 0,
// PTX modules JIT-compiled by the driver, buffers, launches. Tests skip when no GPU is present.
// (The real runtime lives in src/runtime; this keeps test_ptx linked against kiln_ptx alone.)
#pragma once
#include <dlfcn.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::ptx::test {

class CudaDriver {
 public:
  using CUresult = int;
  using CUdeviceptr = unsigned long long;

  // Null when there is no driver or no device.
  static CudaDriver* get() {
    static CudaDriver* d = [] {
      auto* drv = new CudaDriver();
      if (!drv->init()) {
        delete drv;
        return static_cast<CudaDriver*>(nullptr);
      }
      return drv;
    }();
    return d;
  }
  int sm() const { return sm_; }
  const std::string& why() const { return why_; }

  struct Module {
    void* handle = nullptr;
  };
  void* load(const std::string& ptx, std::string& log) {
    char info[8192] = {0}, err[8192] = {0};
    int opts[] = {3 /*INFO_LOG_BUFFER*/, 4 /*INFO_LOG_BUFFER_SIZE_BYTES*/, 5 /*ERROR_LOG_BUFFER*/,
                  6 /*ERROR_LOG_BUFFER_SIZE_BYTES*/};
    void* vals[] = {info, reinterpret_cast<void*>(uintptr_t(sizeof info)), err, reinterpret_cast<void*>(uintptr_t(sizeof err))};
    void* mod = nullptr;
    CUresult r = moduleLoadDataEx_(&mod, ptx.c_str(), 4, opts, vals);
    log = std::string(err) + info;
    if (r) throw std::runtime_error("cuModuleLoadDataEx: " + errorName(r) + "\n" + log);
    return mod;
  }
  void unload(void* mod) { moduleUnload_(mod); }
  void* function(void* mod, const std::string& name) {
    void* f = nullptr;
    check(moduleGetFunction_(&f, mod, name.c_str()), "cuModuleGetFunction " + name);
    return f;
  }
  CUdeviceptr alloc(size_t bytes) {
    CUdeviceptr p = 0;
    check(memAlloc_(&p, bytes ? bytes : 1), "cuMemAlloc");
    return p;
  }
  void free(CUdeviceptr p) { memFree_(p); }
  void upload(CUdeviceptr d, const void* h, size_t n) { check(memcpyHtoD_(d, h, n), "cuMemcpyHtoD"); }
  void download(void* h, CUdeviceptr d, size_t n) { check(memcpyDtoH_(h, d, n), "cuMemcpyDtoH"); }
  // Launches f with 1-D grid/block; params[i] points at the i-th argument value.
  void launch(void* f, unsigned grid, unsigned block, std::vector<void*> params, unsigned smem = 0) {
    check(launchKernel_(f, grid, 1, 1, block, 1, 1, smem, nullptr, params.data(), nullptr), "cuLaunchKernel");
    check(ctxSynchronize_(), "cuCtxSynchronize");
  }

 private:
  template <class F>
  bool sym(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib_, name));
    if (!f) why_ = std::string("missing ") + name;
    return f != nullptr;
  }
  bool init() {
    lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      why_ = "no libcuda.so.1";
      return false;
    }
    bool ok = sym(init_, "cuInit") && sym(deviceGet_, "cuDeviceGet") && sym(attr_, "cuDeviceGetAttribute") &&
              sym(retain_, "cuDevicePrimaryCtxRetain") && sym(setCurrent_, "cuCtxSetCurrent") &&
              sym(moduleLoadDataEx_, "cuModuleLoadDataEx") && sym(moduleUnload_, "cuModuleUnload") &&
              sym(moduleGetFunction_, "cuModuleGetFunction") && sym(memAlloc_, "cuMemAlloc_v2") &&
              sym(memFree_, "cuMemFree_v2") && sym(memcpyHtoD_, "cuMemcpyHtoD_v2") &&
              sym(memcpyDtoH_, "cuMemcpyDtoH_v2") && sym(launchKernel_, "cuLaunchKernel") &&
              sym(ctxSynchronize_, "cuCtxSynchronize") && sym(errorName_, "cuGetErrorName");
    if (!ok) return false;
    int dev = 0, major = 0, minor = 0;
    void* ctx = nullptr;
    if (init_(0) || deviceGet_(&dev, 0) || attr_(&major, 75, dev) || attr_(&minor, 76, dev) ||
        retain_(&ctx, dev) || setCurrent_(ctx)) {
      why_ = "no usable CUDA device";
      return false;
    }
    sm_ = major * 10 + minor;
    return true;
  }
  std::string errorName(CUresult r) {
    const char* s = nullptr;
    errorName_(r, &s);
    return s ? s : std::to_string(r);
  }
  void check(CUresult r, const std::string& what) {
    if (r) throw std::runtime_error(what + ": " + errorName(r));
  }

  void* lib_ = nullptr;
  int sm_ = 0;
  std::string why_;
  CUresult (*init_)(unsigned) = nullptr;
  CUresult (*deviceGet_)(int*, int) = nullptr;
  CUresult (*attr_)(int*, int, int) = nullptr;
  CUresult (*retain_)(void**, int) = nullptr;
  CUresult (*setCurrent_)(void*) = nullptr;
  CUresult (*moduleLoadDataEx_)(void**, const void*, unsigned, int*, void**) = nullptr;
  CUresult (*moduleUnload_)(void*) = nullptr;
  CUresult (*moduleGetFunction_)(void**, void*, const char*) = nullptr;
  CUresult (*memAlloc_)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*memFree_)(CUdeviceptr) = nullptr;
  CUresult (*memcpyHtoD_)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*memcpyDtoH_)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*launchKernel_)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                            void**, void**) = nullptr;
  CUresult (*ctxSynchronize_)() = nullptr;
  CUresult (*errorName_)(CUresult, const char**) = nullptr;
};

}  // namespace kiln::ptx::test
