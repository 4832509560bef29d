// kiln::BlockingHooks that let other Python threads run while a launch compiles a kernel or loads it on a
// device: the GIL is released on enter() and taken back on leave(). For calls that otherwise hold the GIL
// (GPU launches, which return in microseconds once loaded, and warmups); an interpreter launch releases
// it for the whole run instead. Nothing between enter() and leave() touches a Python object: the
// arguments are converted before the launch, and errors are raised after it.
#pragma once
#include <Python.h>

#include "kiln/launcher.h"

class ReleaseGilWhileBlocked final : public kiln::BlockingHooks {
 public:
  void enter() override { saved_ = PyEval_SaveThread(); }
  void leave() override {
    PyEval_RestoreThread(saved_);
    saved_ = nullptr;
  }

 private:
  PyThreadState* saved_ = nullptr;
};
