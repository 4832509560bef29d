// isWritableMemory (writable_memory.h): the mappings of /proc/self/maps that cover the range, in
// address order, each checked for its 'w' permission. The file is read with plain read(2) into a
// buffer: a few hundred lines, tens of microseconds, once per interpreter launch that stores.
#include "driver/writable_memory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace kiln {

bool isWritableMemory(const void* data, size_t bytes) {
  if (bytes == 0) return true;
  const uint64_t begin = reinterpret_cast<uintptr_t>(data);
  const uint64_t end = begin + bytes;
  int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  std::string text;
  char chunk[16384];
  for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) > 0;) text.append(chunk, size_t(n));
  ::close(fd);
  // Lines: "start-end perms offset dev inode path", start and end in hex, sorted by address.
  uint64_t covered = begin;  // the range is known writable up to here
  for (size_t at = 0; at < text.size() && covered < end;) {
    size_t eol = text.find('\n', at);
    if (eol == std::string::npos) eol = text.size();
    const char* line = text.c_str() + at;
    char* rest = nullptr;
    const uint64_t lo = std::strtoull(line, &rest, 16);
    const uint64_t hi = *rest == '-' ? std::strtoull(rest + 1, &rest, 16) : 0;
    const bool writable = *rest == ' ' && rest[1] && rest[2] == 'w';
    at = eol + 1;
    if (hi <= covered) continue;
    if (lo > covered) covered = lo;  // a gap (unmapped): not ours to judge
    if (covered >= end) break;
    if (!writable) return false;
    covered = hi;
  }
  return true;
}

}  // namespace kiln
