// Private temporary directories: mkdtemp under $TMPDIR (else /tmp), removed recursively when done.
#include "support/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

namespace kiln::support {

TempDirectory::TempDirectory(const std::string& prefix) {
  std::error_code ec;
  std::filesystem::path root = std::filesystem::temp_directory_path(ec);  // $TMPDIR, else /tmp
  if (ec || root.empty()) root = "/tmp";
  std::string pattern = (root / (prefix + "XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (!::mkdtemp(name.data()))
    throw OsError("cannot create a temporary directory " + pattern + ": " + std::strerror(errno) +
                      " (set TMPDIR to a writable directory)",
                  "mkdtemp");
  path_ = name.data();
}

TempDirectory::~TempDirectory() {
  std::error_code ec;  // best effort: nothing to report from a destructor
  std::filesystem::remove_all(path_, ec);
}

}  // namespace kiln::support
