// Runtime tests on a real GPU: device query, buffers, cubin and PTX loads, launches with a tail, more
// than 48 KB of dynamic shared memory, streams, several host threads, the cache end to end, prepared
// launches (and contexts switched behind kiln's back), and the error paths. Each test skips with
// "no CUDA device" where there is no driver or GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <random>
#include <thread>

#include "runtime/cache.h"
#include "runtime/cubin.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_buffer.h"
#include "runtime/launch.h"
#include "test_ptx.h"
#include "expect_error.h"

namespace kiln::runtime {
namespace {

using testing::sharedReversePtx;
using testing::vectorAddPtx;

using testing::thrown;

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::uint32_t bitsOf(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    driver_ = CudaDriver::tryOpen(&why);
    if (!driver_) GTEST_SKIP() << "no CUDA device (" << why << ")";
    arch_ = driver_->device(0).arch();
  }

  // The vector add compiled for this device through nvJitLink when present, else the driver's JIT.
  std::unique_ptr<LoadedKernel> loadVectorAdd(const std::string& maxntid = "") {
    Cubin cubin = compileToCubin(vectorAddPtx("sm_80", maxntid), arch_, {}, driver_.get(), 0);
    return LoadedKernel::fromImage(driver_, 0, cubin.image, "vector_add");
  }

  // Runs vector add over n elements (blocks of `block` threads) on stream and checks every element
  // bit for bit, and that nothing past n was written. Through `prepared` when given (its block size),
  // calling `beforeLaunch` right before the launch.
  void runVectorAdd(LoadedKernel& kernel, unsigned n, unsigned block, cu::Stream stream = nullptr,
                    unsigned seed = 1, const PreparedLaunch* prepared = nullptr,
                    const std::function<void()>& beforeLaunch = {}) {
    const unsigned slack = 64;
    std::vector<float> a = randomFloats(n, seed), b = randomFloats(n, seed + 1000);
    DeviceBuffer da(driver_, 0, n * sizeof(float)), db(driver_, 0, n * sizeof(float));
    DeviceBuffer dc(driver_, 0, (n + slack) * sizeof(float));
    da.upload(a);
    db.upload(b);
    dc.fill(0xff);  // poison: an unwritten element stays a NaN with all bits set
    unsigned count = n;
    const unsigned grid = (n + block - 1) / block;
    std::vector<void*> args = {da.argument(), db.argument(), dc.argument(), &count};
    if (beforeLaunch) beforeLaunch();
    if (prepared) {
      prepared->launch({grid, 1, 1}, stream, args.data());
    } else {
      launch(kernel, {grid, 1, 1}, block, 0, stream, args);
    }
    if (stream) {
      driver_->check(driver_->api().streamSynchronize(stream), "cuStreamSynchronize");
    } else {
      driver_->synchronize(0);
    }
    std::vector<float> c = dc.download<float>(n + slack);
    for (unsigned i = 0; i < n; ++i) ASSERT_EQ(bitsOf(c[i]), bitsOf(a[i] + b[i])) << "element " << i;
    for (unsigned i = n; i < n + slack; ++i)
      ASSERT_EQ(bitsOf(c[i]), 0xffffffffu) << "written past the end: " << i;
  }

  std::shared_ptr<CudaDriver> driver_;
  std::string arch_;
};

TEST_F(Gpu, DeviceQuery) {
  const DeviceInfo& d = driver_->device(0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.computeMajor, 7);
  EXPECT_GT(d.smCount, 0);
  EXPECT_EQ(d.warpSize, 32);
  EXPECT_EQ(d.maxThreadsPerBlock, 1024);
  EXPECT_GE(d.maxGridDim[0], 65535);
  EXPECT_GE(d.maxGridDim[1], 65535);
  EXPECT_EQ(d.maxSharedPerBlock, 48 * 1024);
  EXPECT_GT(d.maxSharedPerBlockOptin, 48 * 1024);
  EXPECT_GE(d.maxSharedPerSm, d.maxSharedPerBlockOptin);
  EXPECT_GT(d.totalMemoryBytes, size_t(1) << 30);
  EXPECT_GE(driver_->driverVersion(), 12000);
  std::cout << "[ device   ] " << d.name << ", sm_" << d.computeMajor << d.computeMinor << " (" << d.arch()
            << "), " << d.smCount << " SMs, shared " << d.maxSharedPerBlockOptin << " B/block opt-in, driver "
            << driver_->driverVersion() << "\n";
}

TEST_F(Gpu, DeviceBufferRoundTrip) {
  DeviceBuffer buf(driver_, 0, 4096);
  buf.fill(0xab);
  std::vector<std::uint8_t> all = buf.download<std::uint8_t>(4096);
  for (std::uint8_t v : all) ASSERT_EQ(v, 0xab);
  std::vector<std::uint8_t> part = {1, 2, 3, 4, 5};
  buf.upload(part.data(), part.size(), 1000);
  std::vector<std::uint8_t> back(7);
  buf.download(back.data(), back.size(), 999);
  EXPECT_EQ(back, (std::vector<std::uint8_t>{0xab, 1, 2, 3, 4, 5, 0xab}));
  CudaError e = thrown([&] { buf.upload(part.data(), part.size(), 4092); });
  EXPECT_EQ(e.kind(), CudaError::Kind::InvalidArgument);
  DeviceBuffer moved = std::move(buf);
  EXPECT_EQ(buf.ptr(), 0u);
  EXPECT_EQ(moved.download<std::uint8_t>(1)[0], 0xab);
  DeviceBuffer empty(driver_, 0, 0);
  EXPECT_NO_THROW(empty.fill(0));
}

TEST_F(Gpu, VectorAddWithTail) {
  std::unique_ptr<LoadedKernel> kernel = loadVectorAdd();
  const KernelAttributes& attrs = kernel->attributes();
  EXPECT_GT(attrs.numRegs, 0);
  EXPECT_EQ(attrs.localBytes, 0);
  EXPECT_EQ(attrs.staticSharedBytes, 0);
  EXPECT_EQ(attrs.maxThreadsPerBlock, 1024);
  if (driver_->api().funcGetParamInfo) {
    EXPECT_EQ(attrs.paramCount, 4);
  }
  runVectorAdd(*kernel, 1000003, 256);  // 3907 blocks, the last one partly idle
  runVectorAdd(*kernel, 1, 128);
  runVectorAdd(*kernel, 1024, 1024);
}

TEST_F(Gpu, PtxLoadedThroughTheDriverJit) {
  std::unique_ptr<LoadedKernel> kernel =
      LoadedKernel::fromPtx(driver_, 0, vectorAddPtx("sm_80"), "vector_add");
  runVectorAdd(*kernel, 5000, 128);
}

TEST_F(Gpu, CubinThroughTheDriverLinker) {
  CubinOptions options;
  options.backend = CubinOptions::Backend::Driver;
  Cubin cubin = compileToCubin(vectorAddPtx("sm_80"), arch_, options, driver_.get(), 0);
  EXPECT_EQ(cubin.backend, "driver");
  ASSERT_GT(cubin.image.size(), 4u);
  EXPECT_EQ(std::memcmp(cubin.image.data(),
                        "\x7f"
                        "ELF",
                        4),
            0);
  std::cout << "[ jit log  ] " << cubin.infoLog << "\n";
  std::unique_ptr<LoadedKernel> kernel = LoadedKernel::fromImage(driver_, 0, cubin.image, "vector_add");
  runVectorAdd(*kernel, 3000, 256);

  std::string bad = vectorAddPtx("sm_80");
  bad.replace(bad.find("ret;"), 4, "ret bogus;");
  CudaError e = thrown([&] { compileToCubin(bad, arch_, options, driver_.get(), 0); });
  EXPECT_EQ(e.kind(), CudaError::Kind::CompileFailed);
  EXPECT_FALSE(e.log().empty()) << e.what();
}

TEST_F(Gpu, SharedMemoryOver48KB) {
  const DeviceInfo& d = driver_->device(0);
  Cubin cubin = compileToCubin(sharedReversePtx("sm_80"), arch_, {}, driver_.get(), 0);
  std::unique_ptr<LoadedKernel> kernel = LoadedKernel::fromImage(driver_, 0, cubin.image, "shared_reverse");
  EXPECT_EQ(kernel->attributes().staticSharedBytes, 0);
  EXPECT_LE(kernel->attributes().maxDynamicSharedBytes, 48 * 1024);
  // Nearly all the opt-in shared memory, rounded down to a multiple of 1 KB.
  const unsigned bytes = unsigned(d.maxSharedPerBlockOptin) / 1024 * 1024;
  ASSERT_GT(bytes, 48u * 1024);
  unsigned words = bytes / 4;
  const unsigned blocks = 3;
  DeviceBuffer out(driver_, 0, size_t(blocks) * words * 4);
  out.fill(0xff);
  launch(*kernel, {blocks, 1, 1}, 256, bytes, nullptr, {out.argument(), &words});
  driver_->synchronize(0);
  std::vector<std::uint32_t> got = out.download<std::uint32_t>(size_t(blocks) * words);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned i = 0; i < words; ++i)
      ASSERT_EQ(got[size_t(b) * words + i], 3 * (words - 1 - i) + b) << "block " << b << " word " << i;
  // A second, smaller launch needs no new limit and still works.
  words = 16 * 1024;
  launch(*kernel, {1, 1, 1}, 128, words * 4, nullptr, {out.argument(), &words});
  driver_->synchronize(0);
  EXPECT_EQ(out.download<std::uint32_t>(1)[0], 3 * (words - 1));
}

TEST_F(Gpu, LaunchValidation) {
  const DeviceInfo& d = driver_->device(0);
  std::unique_ptr<LoadedKernel> kernel = loadVectorAdd();
  DeviceBuffer buf(driver_, 0, 1024);
  unsigned n = 0;
  std::vector<void*> args = {buf.argument(), buf.argument(), buf.argument(), &n};

  CudaError big = thrown([&] { launch(*kernel, {1, 1, 1}, 2048, 0, nullptr, args); });
  EXPECT_EQ(big.kind(), CudaError::Kind::InvalidArgument);
  EXPECT_EQ(std::string(big.what()),
            "kernel 'vector_add': a block of 2048 threads exceeds the limit of 1024 "
            "threads per block on device 0 (" +
                d.name + ")");

  CudaError zero = thrown([&] { launch(*kernel, {1, 0, 1}, 128, 0, nullptr, args); });
  EXPECT_NE(std::string(zero.what()).find("grid dimension y is 0"), std::string::npos) << zero.what();
  CudaError tall = thrown([&] {
    launch(*kernel, {1, unsigned(d.maxGridDim[1]) + 1, 1}, 128, 0, nullptr, args);
  });
  EXPECT_NE(std::string(tall.what()).find("grid dimension y = "), std::string::npos) << tall.what();

  const size_t tooMuch = size_t(d.maxSharedPerBlockOptin) + 1;
  CudaError smem = thrown([&] { launch(*kernel, {1, 1, 1}, 128, tooMuch, nullptr, args); });
  EXPECT_EQ(smem.kind(), CudaError::Kind::InvalidArgument);
  const std::string smemWhat = smem.what();
  EXPECT_NE(smemWhat.find("asks for " + std::to_string(tooMuch) + " bytes of dynamic shared memory"),
            std::string::npos)
      << smemWhat;
  EXPECT_NE(smemWhat.find("allows at most " + std::to_string(d.maxSharedPerBlockOptin) + " bytes per block"),
            std::string::npos)
      << smemWhat;

  if (kernel->attributes().paramCount >= 0) {
    CudaError count = thrown([&] {
      launch(*kernel, {1, 1, 1}, 128, 0, nullptr, {args[0], args[1], args[2]});
    });
    EXPECT_EQ(std::string(count.what()), "kernel 'vector_add': takes 4 arguments, but 3 were given");
  }
  CudaError null = thrown([&] {
    launch(*kernel, {1, 1, 1}, 128, 0, nullptr, {args[0], nullptr, args[2], &n});
  });
  EXPECT_NE(std::string(null.what()).find("argument 1 is a null pointer"), std::string::npos) << null.what();

  // Nothing above reached the GPU; the kernel still works.
  runVectorAdd(*kernel, 777, 128);
}

TEST_F(Gpu, KernelLaunchBound) {
  std::unique_ptr<LoadedKernel> kernel = loadVectorAdd(".maxntid 128, 1, 1");
  EXPECT_EQ(kernel->attributes().maxThreadsPerBlock, 128);
  DeviceBuffer buf(driver_, 0, 1024);
  unsigned n = 0;
  CudaError e = thrown([&] {
    launch(*kernel, {1, 1, 1}, 256, 0, nullptr, {buf.argument(), buf.argument(), buf.argument(), &n});
  });
  EXPECT_NE(std::string(e.what()).find("a block of 256 threads exceeds this kernel's limit of 128"),
            std::string::npos)
      << e.what();
  runVectorAdd(*kernel, 1000, 128);
}

TEST_F(Gpu, DriverErrorsNameKernelAndCall) {
  Cubin cubin = compileToCubin(vectorAddPtx("sm_80"), arch_, {}, driver_.get(), 0);
  CudaError missing = thrown([&] { LoadedKernel::fromImage(driver_, 0, cubin.image, "no_such_kernel"); });
  EXPECT_EQ(missing.kind(), CudaError::Kind::CallFailed);
  EXPECT_EQ(missing.code(), cu::kErrorNotFound);
  EXPECT_EQ(std::string(missing.what())
                .rfind("kernel 'no_such_kernel': cuModuleGetFunction failed: "
                       "CUDA_ERROR_NOT_FOUND (",
                       0),
            0u)
      << missing.what();

  Bytes garbage(4096, 0x5a);  // not an ELF or fatbin, so the driver reads it as PTX text: end it
  garbage.back() = 0;
  CudaError bad = thrown([&] { LoadedKernel::fromImage(driver_, 0, garbage, "vector_add"); });
  EXPECT_EQ(bad.kind(), CudaError::Kind::CallFailed);
  EXPECT_EQ(bad.call(), "cuModuleLoadDataEx");
  std::cout << "[ garbage  ] " << bad.what() << "\n";

  // A cubin for another major architecture cannot run here.
  const std::string other = driver_->device(0).computeMajor == 8 ? "sm_90a" : "sm_80";
  Cubin foreign = compileToCubin(vectorAddPtx("sm_80"), other, {}, driver_.get(), 0);
  CudaError wrongArch = thrown([&] { LoadedKernel::fromImage(driver_, 0, foreign.image, "vector_add"); });
  EXPECT_EQ(wrongArch.call(), "cuModuleLoadDataEx");
  EXPECT_EQ(wrongArch.code(), cu::kErrorNoBinaryForGpu) << wrongArch.what();
}

TEST_F(Gpu, StreamsAndHostThreads) {
  std::unique_ptr<LoadedKernel> kernel = loadVectorAdd();
  Stream stream(driver_, 0);
  runVectorAdd(*kernel, 100000, 256, stream.handle());
  stream.synchronize();
  // Contexts are per host thread: each thread must find the primary context current on its own.
  std::vector<std::thread> threads;
  std::vector<std::string> failures(4);
  for (unsigned t = 0; t < failures.size(); ++t)
    threads.emplace_back([&, t] {
      try {
        Stream own(driver_, 0);
        runVectorAdd(*kernel, 20000 + t, 128, own.handle(), 10 + t);
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
}

TEST_F(Gpu, CompileCacheLoadLaunch) {
  std::string pattern = (std::filesystem::temp_directory_path() / "kiln-gpu-cache-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::string ptx = vectorAddPtx("sm_80");
  const CacheKey key = CacheKey::of({ptx, "vector_add", arch_});
  int compiles = 0;
  auto build = [&] {
    ++compiles;
    return compileToCubin(ptx, arch_, {}, driver_.get(), 0).image;
  };
  {
    Cache cache(pattern);
    std::unique_ptr<LoadedKernel> k =
        LoadedKernel::fromImage(driver_, 0, cache.getOrBuild(key, build), "vector_add");
    runVectorAdd(*k, 4097, 256);
  }
  Cache again(pattern);  // as a second process would: from disk, no compile
  std::unique_ptr<LoadedKernel> k =
      LoadedKernel::fromImage(driver_, 0, again.getOrBuild(key, build), "vector_add");
  runVectorAdd(*k, 4097, 256);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(again.stats().diskHits, 1u);
  std::filesystem::remove_all(pattern);
}

}  // namespace
}  // namespace kiln::runtime

namespace kiln::runtime {
namespace {

TEST_F(Gpu, LaunchKernelResolved) {
  EXPECT_NE(driver_->api().launchKernel, nullptr);
  EXPECT_NE(driver_->api().launchKernelEx, nullptr);
}

TEST_F(Gpu, PreparedLaunchChecksOnceThenOnlyTheGrid) {
  const DeviceInfo& d = driver_->device(0);
  std::unique_ptr<LoadedKernel> kernel = loadVectorAdd();
  // The configuration's errors are launch's, raised when it is prepared.
  CudaError big = thrown([&] { PreparedLaunch(*kernel, 2048, 0, 4); });
  EXPECT_EQ(big.kind(), CudaError::Kind::InvalidArgument);
  EXPECT_EQ(std::string(big.what()), "kernel 'vector_add': a block of 2048 threads exceeds the limit of 1024 "
                                     "threads per block on device 0 (" + d.name + ")");
  CudaError smem = thrown([&] { PreparedLaunch(*kernel, 128, size_t(d.maxSharedPerBlockOptin) + 1, 4); });
  EXPECT_NE(std::string(smem.what()).find("bytes of dynamic shared memory"), std::string::npos) << smem.what();
  if (kernel->attributes().paramCount >= 0) {
    CudaError count = thrown([&] { PreparedLaunch(*kernel, 128, 0, 3); });
    EXPECT_EQ(std::string(count.what()), "kernel 'vector_add': takes 4 arguments, but 3 were given");
  }

  PreparedLaunch prepared(*kernel, 128, 0, 4);
  EXPECT_EQ(prepared.blockThreads(), 128u);
  DeviceBuffer buf(driver_, 0, 1024);
  unsigned n = 0;
  std::vector<void*> args = {buf.argument(), buf.argument(), buf.argument(), &n};
  CudaError zero = thrown([&] { prepared.launch({1, 1, 0}, nullptr, args.data()); });
  EXPECT_EQ(zero.kind(), CudaError::Kind::InvalidArgument);
  EXPECT_NE(std::string(zero.what()).find("grid dimension z is 0"), std::string::npos) << zero.what();
  CudaError wide = thrown([&] { prepared.launch({unsigned(d.maxGridDim[0]) + 1u, 1, 1}, nullptr, args.data()); });
  EXPECT_NE(std::string(wide.what()).find("grid dimension x = "), std::string::npos) << wide.what();
  CudaError tall = thrown([&] { prepared.launch({1, unsigned(d.maxGridDim[1]) + 1u, 1}, nullptr, args.data()); });
  EXPECT_NE(std::string(tall.what()).find("grid dimension y = "), std::string::npos) << tall.what();

  runVectorAdd(*kernel, 4097, 128, nullptr, 3, &prepared);
  Stream stream(driver_, 0);
  runVectorAdd(*kernel, 100, 128, stream.handle(), 4, &prepared);
}

// Launches skip asking the driver for the current context; when code outside kiln changed it, the
// launch fails, finds out, makes kiln's context current and launches again.
TEST_F(Gpu, PreparedLaunchSurvivesContextChangedBehindItsBack) {
  std::unique_ptr<LoadedKernel> kernel = loadVectorAdd();
  PreparedLaunch prepared(*kernel, 256, 0, 4);
  runVectorAdd(*kernel, 1000, 256, nullptr, 5, &prepared);
  cu::Context kilns = nullptr;
  driver_->check(driver_->api().ctxGetCurrent(&kilns), "cuCtxGetCurrent");
  ASSERT_NE(kilns, nullptr);
  // Another library leaves no context current on this thread, right before the launch.
  int launches = 0;
  runVectorAdd(*kernel, 1001, 256, nullptr, 6, &prepared, [&] {
    driver_->check(driver_->api().ctxSetCurrent(nullptr), "cuCtxSetCurrent");
    ++launches;
  });
  EXPECT_EQ(launches, 1);
  cu::Context current = nullptr;
  driver_->check(driver_->api().ctxGetCurrent(&current), "cuCtxGetCurrent");
  EXPECT_EQ(current, kilns);
  // A thread on which kiln never made a context current.
  std::string failure;
  std::thread([&] {
    try {
      runVectorAdd(*kernel, 1003, 256, nullptr, 8, &prepared);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }).join();
  EXPECT_EQ(failure, "");
}

// makeCurrentAssumed trusts what this driver made current on the calling thread and nothing else:
// another thread's makeCurrent does not count for this one. Then several threads launch through one
// PreparedLaunch at once, each finding the context current on its own.
TEST_F(Gpu, CurrentContextCacheIsPerThreadAndOwnedByTheDriver) {
  cu::Context kilns = nullptr;
  driver_->makeCurrent(0);
  driver_->check(driver_->api().ctxGetCurrent(&kilns), "cuCtxGetCurrent");
  auto current = [&] {
    cu::Context c = nullptr;
    driver_->check(driver_->api().ctxGetCurrent(&c), "cuCtxGetCurrent");
    return c;
  };
  std::thread([&] {
    driver_->makeCurrentAssumed(0);  // this thread has no note: the context is made current
    EXPECT_EQ(current(), kilns);
    driver_->check(driver_->api().ctxSetCurrent(nullptr), "cuCtxSetCurrent");
    driver_->makeCurrentAssumed(0);  // its note says current: no driver call, so still none
    EXPECT_EQ(current(), nullptr);
    EXPECT_TRUE(driver_->makeCurrent(0));  // makeCurrent asks the driver and switches
    EXPECT_EQ(current(), kilns);
  }).join();
  driver_->makeCurrent(0);

  std::unique_ptr<LoadedKernel> kernel = loadVectorAdd();
  PreparedLaunch prepared(*kernel, 128, 0, 4);
  std::vector<std::string> failures(6);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < failures.size(); ++t)
    threads.emplace_back([&, t] {
      try {
        for (unsigned r = 0; r < 20; ++r) runVectorAdd(*kernel, 999 + unsigned(t) * 7 + r, 128, nullptr, r, &prepared);
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
}

}  // namespace
}  // namespace kiln::runtime
