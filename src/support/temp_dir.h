// A private temporary directory removed with its contents on every path (RAII), and OsError, the
// exception of the support layer's operating-system helpers (subprocess.h, ptxas.h).
#pragma once
#include <stdexcept>
#include <string>

namespace kiln::support {

// An operating-system call failed for a reason outside kiln (full disk, unwritable TMPDIR). Callers
// that have their own error type (the runtime's CudaError) convert it at their boundary.
class OsError : public std::runtime_error {
 public:
  OsError(const std::string& message, std::string call) : std::runtime_error(message), call_(std::move(call)) {}
  const std::string& call() const { return call_; }  // e.g. "mkdtemp", "write"

 private:
  std::string call_;
};

// A fresh private directory (mkdtemp, mode 0700) under $TMPDIR (else /tmp), removed with everything in
// it when the object dies. Throws OsError (call "mkdtemp") when it cannot be created.
class TempDirectory {
 public:
  explicit TempDirectory(const std::string& prefix);  // the directory is named <prefix>XXXXXX
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;
  ~TempDirectory();

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace kiln::support
