// Whether host memory may be written, asked of the OS before the interpreter stores into a buffer: a
// store into a read-only mapping (a file mapped PROT_READ, a memmap opened with mode 'r') would kill
// the process with SIGSEGV, and a buffer's owner may not have said it is read-only (torch has no flag).
#pragma once
#include <cstddef>

namespace kiln {

// False when some page of [data, data + bytes) is mapped without write permission (Linux:
// /proc/self/maps). True when every mapped page is writable, and when the OS cannot tell (no
// /proc): the interpreter then writes as before. Unmapped pages are not this function's concern.
bool isWritableMemory(const void* data, size_t bytes);

}  // namespace kiln
