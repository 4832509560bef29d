// The CudaError a runtime call throws, for tests that check its kind and message.
#pragma once
#include <gtest/gtest.h>

#include "runtime/cuda_error.h"

namespace kiln::runtime::testing {

// The CudaError f() throws; a test failure (and a placeholder error) when it throws none.
template <class F>
CudaError thrown(F&& f) {
  try {
    f();
  } catch (const CudaError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a CudaError";
  return CudaError(CudaError::Kind::CallFailed, "nothing thrown");
}

}  // namespace kiln::runtime::testing
