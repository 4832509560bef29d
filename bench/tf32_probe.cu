// What the tensor cores do with the 13 low mantissa bits of an f32 fed as a tf32 operand (PTX-NOTES.md §8
// leaves it UNCONFIRMED):
//   nvcc -gencode arch=compute_90a,code=sm_90a -o /tmp/tf bench/tf32_probe.cu && /tmp/tf
// Every element of A is x and every element of B is y, so each element of D = A B is k * (x * y) whatever
// the fragment layouts are. x carries bits below tf32's 10-bit mantissa; the sum tells which reading the
// hardware makes: exact f32, truncation toward zero, or rounding to nearest. Checked for mma.sync
// m16n8k8 (sm_80's form) and for wgmma m64n8k8 with A from registers and B from shared memory (sm_90a).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

__global__ void mmaSync(float x, float y, float* out) {
  unsigned a = __float_as_uint(x), b = __float_as_uint(y);
  float d0, d1, d2, d3;
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, "
      "{%6,%6,%6,%6};"
      : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
      : "r"(a), "r"(b), "f"(0.0f));
  if (threadIdx.x == 0) out[0] = d0;
}

__global__ void wgmmaTf32(float x, float y, float* out) {
  __shared__ alignas(128) float bTile[256];  // more than the 8 x 8 tile: every descriptor read lands on y
  for (int i = threadIdx.x; i < 256; i += blockDim.x) bTile[i] = y;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const unsigned long long addr = (unsigned)__cvta_generic_to_shared(bTile);
  // No swizzle: start address, leading byte offset 128, stride byte offset 256 (all >> 4).
  const unsigned long long desc = ((addr & 0x3FFFF) >> 4) | ((128ull >> 4) << 16) | ((256ull >> 4) << 32);
  unsigned a = __float_as_uint(x);
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, %5, p, 1, 1;\n}"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a), "l"(desc));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  if (threadIdx.x == 0) out[0] = d0;
}

static float bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// tf32 keeps the top 10 of f32's 23 mantissa bits.
static float truncTf32(float v) { return bits(__builtin_bit_cast(uint32_t, v) & ~0x1FFFu); }
static float nearestTf32(float v) {  // ties away from zero, as cvt.rna
  uint32_t u = __builtin_bit_cast(uint32_t, v);
  return bits((u + 0x1000u) & ~0x1FFFu);
}

int main() {
  float* dev = nullptr;
  if (cudaMalloc(&dev, sizeof(float)) != cudaSuccess) {
    std::printf("no GPU\n");
    return 1;
  }
  // 1 + 2^-11 + 2^-13 (above the halfway point), 1 + 2^-12 (below it), 1 + 2^-11 (the tie), and negatives.
  const float xs[] = {bits(0x3F800000u | 0x1400u), bits(0x3F800000u | 0x0800u), bits(0x3F800000u | 0x1000u),
                      bits(0xBF800000u | 0x1400u), bits(0x3FFFFFFFu)};
  std::printf("%-12s %-14s %-14s %-14s %-14s %-14s\n", "form", "x", "D", "exact", "truncated", "nearest");
  bool ok = true;
  for (int form = 0; form < 2; ++form) {
    for (float x : xs) {
      if (form == 0) mmaSync<<<1, 32>>>(x, 1.0f, dev);
      else wgmmaTf32<<<1, 128>>>(x, 1.0f, dev);
      float d = NAN;
      if (cudaMemcpy(&d, dev, sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
        std::printf("%s failed: %s\n", form ? "wgmma" : "mma.sync", cudaGetErrorString(cudaGetLastError()));
        return 1;
      }
      const float exact = 8 * x, trunc = 8 * truncTf32(x), near = 8 * nearestTf32(x);
      const char* what = d == exact ? "exact" : d == trunc ? "truncated" : d == near ? "nearest" : "other";
      std::printf("%-12s %-14.9g %-14.9g %-14.9g %-14.9g %-14.9g %s\n", form ? "wgmma" : "mma.sync", x, d,
                  exact, trunc, near, what);
      ok = ok && std::strcmp(what, "other") != 0;
    }
  }
  return ok ? 0 : 2;
}
