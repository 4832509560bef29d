/* A plain C host for kiln's ahead-of-time launchers: examples/vector_add.py's add_kernel compiled by
   `kiln aot` in two variants (16-byte aligned, n divisible by 16; and general) and linked by
   `kiln aot link` into add_launch. Only the CUDA driver is needed (run.sh builds and runs it).
   Exit status: 0 when every result is exact, 1 on a wrong result or CUDA error, 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>

#include "add.h"
#include "add_aligned.h"

#define CHECK(call)                                                                        \
  do {                                                                                     \
    CUresult status_ = (call);                                                             \
    if (status_ != CUDA_SUCCESS) {                                                         \
      const char *name_ = NULL;                                                            \
      cuGetErrorName(status_, &name_);                                                     \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, name_ ? name_ : "?"); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

/* Adds x[offset:offset+n] and y[offset:offset+n] on the GPU through the dispatcher and compares with the
   host's sum, which is exact: both round each float addition once. */
static int check(CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, const float *hx, const float *hy, int offset, int n) {
  float *result = (float *)malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  size_t bytes = sizeof(float) * (size_t)offset;
  int i, wrong = 0;
  if (n > 0) CHECK(cuMemsetD32(out, 0x7fc00000u, (size_t)n + (size_t)offset)); /* NaN: a missed store shows */
  CHECK(add_launch(NULL, x + bytes, y + bytes, out + bytes, n));
  CHECK(cuCtxSynchronize());
  if (n > 0) CHECK(cuMemcpyDtoH(result, out + bytes, sizeof(float) * (size_t)n));
  for (i = 0; i < n; ++i)
    if (result[i] != hx[offset + i] + hy[offset + i]) {
      if (wrong++ < 5) fprintf(stderr, "n=%d offset=%d: out[%d] = %g, expected %g\n", n, offset, i, result[i],
                               hx[offset + i] + hy[offset + i]);
    }
  free(result);
  printf("add_launch n=%-7d offset=%d: %s\n", n, offset, wrong ? "WRONG" : "ok");
  return wrong != 0;
}

int main(void) {
  const int size = 100003 + 16;
  CUdevice device;
  CUcontext context;
  CUdeviceptr x, y, out;
  float *hx = (float *)malloc(sizeof(float) * size), *hy = (float *)malloc(sizeof(float) * size);
  char name[256];
  int i, failures = 0;
  CUresult init = cuInit(0);
  int count = 0;
  if (init != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    printf("no CUDA device: not run\n");
    return 77;
  }
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDeviceGetName(name, sizeof name, device));
  printf("device: %s\n", name);
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  for (i = 0; i < size; ++i) {
    hx[i] = (float)(i % 1000) * 0.25f + 1.0f / 3.0f;
    hy[i] = (float)(i % 77) * -1.5f + 0.1f;
  }
  CHECK(cuMemAlloc(&x, sizeof(float) * size));
  CHECK(cuMemAlloc(&y, sizeof(float) * size));
  CHECK(cuMemAlloc(&out, sizeof(float) * size));
  CHECK(cuMemcpyHtoD(x, hx, sizeof(float) * size));
  CHECK(cuMemcpyHtoD(y, hy, sizeof(float) * size));

  CHECK(add_load()); /* optional: the first launch loads too */
  failures += check(x, y, out, hx, hy, 0, 98304);  /* aligned, n % 16 == 0: add_aligned */
  failures += check(x, y, out, hx, hy, 0, 100003); /* n % 16 != 0: add_general */
  failures += check(x, y, out, hx, hy, 1, 4096);   /* 4-byte aligned pointers: add_general */
  failures += check(x, y, out, hx, hy, 0, 1);      /* one element: add_general */
  failures += check(x, y, out, hx, hy, 0, 0);      /* nothing to do: launches nothing */

  /* The aligned variant alone refuses arguments it was not compiled for, rather than misbehave. */
  if (add_aligned_launch(NULL, x + 4, y, out, 64) != CUDA_ERROR_INVALID_VALUE ||
      add_aligned_launch(NULL, x, y, out, 63) != CUDA_ERROR_INVALID_VALUE) {
    fprintf(stderr, "add_aligned_launch accepted arguments it was not compiled for\n");
    ++failures;
  } else {
    printf("add_aligned_launch refuses misaligned arguments: ok\n");
  }
  CHECK(add_unload());
  CHECK(cuMemFree(x));
  CHECK(cuMemFree(y));
  CHECK(cuMemFree(out));
  CHECK(cuDevicePrimaryCtxRelease(device));
  free(hx);
  free(hy);
  printf("%s\n", failures ? "FAILED" : "all results exact");
  return failures ? 1 : 0;
}
