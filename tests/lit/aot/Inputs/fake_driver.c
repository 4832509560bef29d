/* The generated launchers against a stand-in CUDA driver, so that dispatch, argument checks, grids,
   parameter bytes, per-context loading and unloading are tested without a GPU (dispatch.test).
   Each call prints what the launcher asked the driver for; FileCheck compares. */
#include <stdio.h>
#include <string.h>

#include <cuda.h>

#include "add.h"
#include "add_aligned.h"
#include "add_general.h"
#include "add_only_aligned.h"

static int context_present = 1;
static unsigned long long context_id = 7;
static const void *images[8];
static int loads, unloads;

CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = context_present ? (CUcontext)&context_present : NULL;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetId(CUcontext context, unsigned long long *id) {
  (void)context;
  *id = context_id;
  return CUDA_SUCCESS;
}

static int image_index(const void *image) {
  int i;
  for (i = 0; i < loads && i < 8; ++i)
    if (images[i] == image) return i;
  return -1;
}

/* A module is the image it was loaded from (each variant's image: its index tells them apart); the
   function is the module. */
CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  const unsigned char *bytes = (const unsigned char *)image;
  printf("load %s\n", memcmp(bytes, "\177ELF", 4) == 0 ? "cubin" : "other");
  if (loads < 8 && image_index(image) < 0) images[loads] = image;
  ++loads;
  *module = (CUmodule)image;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  printf("function %s\n", name);
  *function = (CUfunction)module;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  (void)module;
  ++unloads;
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  (void)function;
  printf("attribute %d = %d\n", (int)attribute, value);
  return CUDA_SUCCESS;
}


CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void **params,
                        void **extra) {
  (void)stream;
  (void)extra;
  printf("launch image=%d grid=%u,%u,%u block=%u,%u,%u shared=%u x=%llu y=%llu out=%llu n=%d\n",
         image_index((const void *)f), gx, gy, gz, bx, by, bz, shared, *(unsigned long long *)params[0],
         *(unsigned long long *)params[1], *(unsigned long long *)params[2], *(int32_t *)params[3]);
  return CUDA_SUCCESS;
}

static void launch(const char *what, CUresult status) {
  const char *names[] = {"CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_NOT_FOUND",
                         "CUDA_ERROR_INVALID_CONTEXT", "other"};
  int k = status == CUDA_SUCCESS ? 0 : status == CUDA_ERROR_INVALID_VALUE ? 1 : status == CUDA_ERROR_NOT_FOUND ? 2
        : status == CUDA_ERROR_INVALID_CONTEXT ? 3 : 4;
  printf("%s -> %s\n", what, names[k]);
}

int main(void) {
  printf("-- load\n");
  launch("add_aligned_load", add_aligned_load()); /* image 0 */
  launch("add_general_load", add_general_load()); /* image 1 */
  launch("add_load again", add_load());           /* both loaded here already */
  printf("-- dispatch\n");
  launch("aligned n=2048", add_launch(NULL, 4096, 8192, 12288, 2048));
  launch("aligned n=2049", add_launch(NULL, 4096, 8192, 12288, 2049));
  launch("x+4 n=2048", add_launch(NULL, 4100, 8192, 12288, 2048));
  launch("n=0", add_launch(NULL, 4096, 8192, 12288, 0));
  launch("n=-5000", add_launch(NULL, 4096, 8192, 12288, -5000));
  launch("only aligned, aligned", add_only_aligned_launch(NULL, 4096, 8192, 12288, 16));
  launch("only aligned, x+8", add_only_aligned_launch(NULL, 4104, 8192, 12288, 16));
  launch("variant, n=17", add_aligned_launch(NULL, 4096, 8192, 12288, 17));
  printf("-- contexts\n");
  context_present = 0;
  launch("no context", add_launch(NULL, 4096, 8192, 12288, 16));
  context_present = 1;
  context_id = 8;
  launch("second context", add_launch(NULL, 4096, 8192, 12288, 16));
  launch("unload", add_unload());
  context_id = 7;
  launch("unload first", add_unload());
  printf("loads=%d unloads=%d\n", loads, unloads);
  launch("after unload", add_launch(NULL, 4096, 8192, 12288, 16));
  printf("loads=%d\n", loads);
  return 0;
}
