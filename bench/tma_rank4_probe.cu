// What TMA does with the maps a pointer-built attention tile would need (bench/results/2026-12-04-h200-tma-probe.md):
//   nvcc -arch=sm_90a -o /tmp/tp bench/tma_rank4_probe.cu -lcuda && /tmp/tp
// K is a [Z=4, H=32, N=1000, D=128] fp16 tensor with torch's strides. The tile `K + z*sz + h*sh + (n0 + i)*sn
// + d`, masked by n0 + i < N, is a box of a rank-4 map (D, N, H, Z innermost first) whose N extent is N;
// its Z and H dims carry no mask, so their extents must never clip a coordinate the kernel can form.
//  1. Which extents cuTensorMapEncodeTiled accepts for the unmasked dims (the true ones, 2^31 - 1, 2^32).
//  2. Whether an encoded map's first 8 bytes are non-zero (a kernel could tell an encoded map from a
//     zeroed one by that word).
//  3. Copies of a [64 keys x 64 d] box (128-byte swizzle) at several coordinates, through each accepted
//     map, checked element by element against the host's reading of the tile: inside, across the N edge
//     (zeros past it, as the mask says), negative n0 (zeros, where the pointer tile, whose mask only
//     bounds n from above, would read the memory before: why a coordinate must be known >= 0), and h
//     past its true extent on the 2^31 - 1 map (memory, as the pointer tile reads it).
// Measured on the H200 (driver 580): every extent below is accepted by the encoder, but a copy through
// the 2^32 map faults (CUDA_ERROR_ILLEGAL_INSTRUCTION), so the probe stops at its first copy.
#include <cuda.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(x)                                                           \
  do {                                                                     \
    CUresult r_ = (x);                                                     \
    if (r_ != CUDA_SUCCESS) {                                              \
      const char* s_ = nullptr;                                            \
      cuGetErrorName(r_, &s_);                                             \
      std::printf("%s failed: %s (line %d)\n", #x, s_ ? s_ : "?", __LINE__); \
      return 1;                                                            \
    }                                                                      \
  } while (0)

constexpr int Z = 4, H = 32, N = 1000, D = 128, BOX_N = 64, BOX_D = 64;

__global__ void copyBox(const __grid_constant__ CUtensorMap map, int d0, int n0, int h, int z, unsigned short* out) {
  __shared__ alignas(1024) unsigned short tile[BOX_N * BOX_D];
  __shared__ unsigned long long bar;
  const unsigned b = (unsigned)__cvta_generic_to_shared(&bar), s = (unsigned)__cvta_generic_to_shared(tile);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(BOX_N * BOX_D * 2) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
        ::"r"(s), "l"(&map), "r"(d0), "r"(n0), "r"(h), "r"(z), "r"(b) : "memory");
  }
  asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra W;\n}\n" ::"r"(b) : "memory");
  // 128-byte swizzle: the 16-byte chunk c of row r sits at chunk c ^ (r % 8).
  for (int e = threadIdx.x; e < BOX_N * BOX_D; e += blockDim.x) {
    const int r = e / BOX_D, c = (e % BOX_D) / 8, w = e % 8;
    out[e] = tile[r * BOX_D + ((c ^ (r % 8)) * 8) + w];
  }
}

int main() {
  CHECK(cuInit(0));
  CUdevice dev;
  CUcontext ctx;
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
  const size_t numel = size_t(Z) * H * N * D;
  std::vector<unsigned short> host(numel);
  for (size_t i = 0; i < numel; ++i) host[i] = (unsigned short)(1 + (i * 2654435761u) % 60000);
  CUdeviceptr k, out;
  CHECK(cuMemAlloc(&k, numel * 2));
  CHECK(cuMemcpyHtoD(k, host.data(), numel * 2));
  CHECK(cuMemAlloc(&out, BOX_N * BOX_D * 2));
  const uint64_t sn = D, sh = uint64_t(N) * D, sz = uint64_t(H) * N * D;  // element strides

  struct Extents { const char* name; uint64_t h, z; };
  const Extents tries[] = {{"true (H, Z)", H, Z}, {"2^31 - 1", (1ull << 31) - 1, (1ull << 31) - 1}, {"2^32", 1ull << 32, 1ull << 32}};
  int failures = 0;
  for (const Extents& t : tries) {
    CUtensorMap map;
    std::memset(&map, 0, sizeof map);
    const cuuint64_t dims[4] = {D, N, t.h, t.z};
    const cuuint64_t strides[3] = {sn * 2, sh * 2, sz * 2};
    const cuuint32_t box[4] = {BOX_D, BOX_N, 1, 1}, elem[4] = {1, 1, 1, 1};
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, (void*)k, dims, strides, box, elem,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    const char* rs = nullptr;
    cuGetErrorName(r, &rs);
    uint64_t word0, word1;
    std::memcpy(&word0, &map, 8);
    std::memcpy(&word1, reinterpret_cast<char*>(&map) + 8, 8);
    std::printf("extents %-12s encode %s; first words %016llx %016llx\n", t.name, rs ? rs : "?",
                (unsigned long long)word0, (unsigned long long)word1);
    if (r != CUDA_SUCCESS) continue;
    struct At { int d0, n0, h, z; };
    std::vector<At> ats = {{0, 0, 0, 0}, {64, 300, 5, 3}, {0, 960, 31, 1}, {64, -20, 7, 2}};
    if (t.h > uint64_t(H)) ats.push_back({0, 100, 40, 2});  // past the true H: the pointer tile reads on
    for (const At& a : ats) {
      copyBox<<<1, 128>>>(map, a.d0, a.n0, a.h, a.z, (unsigned short*)out);
      if (CUresult c = cuCtxSynchronize(); c != CUDA_SUCCESS) {
        const char* cs = nullptr;
        cuGetErrorName(c, &cs);
        std::printf("  box at d=%d n=%d h=%d z=%d: the copy faults (%s); the context is lost, stopping\n", a.d0, a.n0,
                    a.h, a.z, cs ? cs : "?");
        std::printf("%s\n", failures ? "FAILURES before the fault" : "every box before the fault as expected");
        return 0;
      }
      std::vector<unsigned short> got(BOX_N * BOX_D);
      CHECK(cuMemcpyDtoH(got.data(), out, got.size() * 2));
      int bad = 0;
      for (int i = 0; i < BOX_N; ++i)
        for (int j = 0; j < BOX_D; ++j) {
          const long long n = a.n0 + i, d = a.d0 + j;
          const bool inside = n >= 0 && n < N && (uint64_t)a.h < t.h && (uint64_t)a.z < t.z;
          const size_t flat = size_t(a.z) * sz + size_t(a.h) * sh + size_t(n) * sn + size_t(d);
          const unsigned short want = inside && flat < numel ? host[flat] : 0;
          bad += got[i * BOX_D + j] != want;
        }
      std::printf("  box at d=%d n=%d h=%d z=%d: %s (%d of %d elements differ)\n", a.d0, a.n0, a.h, a.z,
                  bad ? "WRONG" : a.n0 < 0 ? "as expected (zeros for n < 0)" : "as the pointer tile with its mask", bad, BOX_N * BOX_D);
      failures += bad != 0;
    }
  }
  std::printf("%s\n", failures ? "FAILURES" : "all boxes as expected");
  return failures != 0;
}
