// The host cost that TMA tensor maps add to a launch that repeats its arguments: TensorMapArgs::fill for a
// matmul's two maps (A and B, f16, 128x64 and 64x64 boxes), both reused from the previous launch (read each
// operand, check, compare with the kept values, copy the kept 128-byte maps). No GPU: the encode is a
// stand-in called only on the first launch. Usage: kiln-bench-tensor-maps [launches (2000000)].
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "driver/tensor_map_args.h"

int main(int argc, char** argv) {
  using namespace kiln;
  const long launches = argc > 1 ? std::atol(argv[1]) : 2000000;
  const std::vector<Param> params = {{"a_ptr", "ptr<f16>", true}, {"b_ptr", "ptr<f16>", true},
                                     {"M", "i32", false},         {"N", "i32", false},
                                     {"K", "i32", false},         {"stride_am", "i32", false},
                                     {"stride_bk", "i32", false}};
  const std::vector<std::string> where = {"a_ptr", "b_ptr", "M", "N", "K", "stride_am", "stride_bk"};
  const TensorMapSpec a{ir::Scalar::F16, {0, 0}, {{2, 0}, {4, 0}}, {{5, 0}, {-1, 1}}, {128, 64}, 128};
  const TensorMapSpec b{ir::Scalar::F16, {1, 0}, {{4, 0}, {3, 0}}, {{6, 0}, {-1, 1}}, {64, 64}, 128};
  std::string why;
  std::unique_ptr<TensorMapArgs> maps = TensorMapArgs::bind({a, b}, params, why);
  if (!maps) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }
  uint64_t slots[7] = {0x10000, 0x20000, 4096, 4096, 4096, 4096, 4096};
  void* kernelParams[7];
  for (int i = 0; i < 7; ++i) kernelParams[i] = &slots[i];
  const TensorMapArgs::Encode encode = [](const runtime::TensorMapValues&) { return runtime::cu::TensorMap{}; };
  runtime::cu::TensorMap out[2];
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < launches; ++i)
    if (maps->fill(kernelParams, where, encode, out)) return 1;
  const auto end = std::chrono::steady_clock::now();
  std::printf("TensorMapArgs::fill, 2 maps reused: %.1f ns per launch over %ld launches (%zu encodes)\n",
              std::chrono::duration<double, std::nano>(end - start).count() / double(launches), launches,
              maps->encodes());
  return 0;
}
