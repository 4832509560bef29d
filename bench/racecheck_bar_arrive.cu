// Which hand-offs does compute-sanitizer's racecheck follow? (bench/results/2026-12-04-h200-pingpong.md)
//   nvcc -arch=sm_90a -o /tmp/rb bench/racecheck_bar_arrive.cu
//   for m in 0 1 2 3 4 5; do compute-sanitizer --tool racecheck /tmp/rb $m; done
// Every mode is race-free. The CTA's mbarrier is initialised, then a hand-off: mode 0 none; 1 warpgroup 1
// bar.arrive 1, warpgroup 0 bar.sync 1; 2 ping-pong turns (start, 3 x (wait, pass), end); 3 every
// thread cp.async 16 bytes into its own chunk, then cp.async.mbarrier.arrive.noinc, and everyone waits
// for the phase and reads another warpgroup's chunk; 4 the same with mbarrier.arrive after
// cp.async.wait_all; 5 like 3, then an async wait and a CTA barrier. Last, every thread writes its word,
// passes bar.sync 0 and reads another warpgroup's word.
#include <cstdio>
__device__ void waitPhase(unsigned bar, unsigned parity) {
  asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}\n"
               :: "r"(bar), "r"(parity) : "memory");
}
__global__ void k(int* out, const int4* in, int mode) {
  __shared__ int s[256];
  __shared__ int4 chunks[256];
  __shared__ unsigned long long mbar;
  int t = threadIdx.x, wg = t / 128;
  unsigned bar = (unsigned)__cvta_generic_to_shared(&mbar);
  unsigned dst = (unsigned)__cvta_generic_to_shared(&chunks[t]);
  if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 256;" :: "r"(bar));
  __syncthreads();
  if (mode == 1) {
    if (wg == 1) asm volatile("bar.arrive 1, 256;");
    else asm volatile("bar.sync 1, 256;");
  } else if (mode == 2) {
    if (wg == 1) asm volatile("bar.arrive 1, 256;");
    for (int i = 0; i < 3; ++i) {
      if (wg == 0) asm volatile("bar.sync 1, 256;"); else asm volatile("bar.sync 2, 256;");
      if (wg == 0) asm volatile("bar.arrive 2, 256;"); else asm volatile("bar.arrive 1, 256;");
    }
    if (wg == 0) asm volatile("bar.sync 1, 256;");
  } else if (mode >= 3) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + t) : "memory");
    if (mode == 4) {
      asm volatile("cp.async.wait_all;" ::: "memory");
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
    } else {
      asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(bar) : "memory");
    }
    if (wg == 0) __nanosleep(2000);
    waitPhase(bar, 0);
    out[512 + t] = chunks[(t + 128) % 256].x;
    if (mode == 5) { asm volatile("cp.async.wait_all;" ::: "memory"); __syncthreads(); }
  }
  s[t] = t;
  __syncthreads();
  out[t] = s[(t + 128) % 256];
}
#include <cstdlib>
int main(int argc, char** argv) {
  int* d; int4* in;
  cudaMalloc(&d, 4096);
  cudaMalloc(&in, 4096);
  for (int m = atoi(argv[1]); m <= atoi(argv[1]); ++m) {
    k<<<1, 256>>>(d, in, m);
    printf("mode %d: %s\n", m, cudaGetErrorString(cudaDeviceSynchronize()));
  }
  return 0;
}
