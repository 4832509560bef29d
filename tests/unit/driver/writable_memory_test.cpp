// Stores into read-only memory are refused before the interpreter runs (issue 17, item 1): a kernel
// storing into a PROT_READ mapping used to kill the process with SIGSEGV inside the interpreter.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "driver/writable_memory.h"
#include "kiln/kiln.h"

namespace {

// Two pages mapped anonymously, the second made read-only.
struct Pages {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  char* base = static_cast<char*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  Pages() { EXPECT_EQ(mprotect(base + page, page, PROT_READ), 0); }
  ~Pages() { munmap(base, 2 * page); }
};

TEST(WritableMemory, TellsWritableFromReadOnlyPages) {
  Pages p;
  ASSERT_NE(p.base, MAP_FAILED);
  std::vector<float> heap(1000);
  int stack[4] = {};
  EXPECT_TRUE(kiln::isWritableMemory(heap.data(), heap.size() * sizeof(float)));
  EXPECT_TRUE(kiln::isWritableMemory(stack, sizeof stack));
  EXPECT_TRUE(kiln::isWritableMemory(p.base, p.page));
  EXPECT_FALSE(kiln::isWritableMemory(p.base + p.page, 16));
  EXPECT_FALSE(kiln::isWritableMemory(p.base + p.page - 8, 16));  // straddles into the read-only page
  EXPECT_TRUE(kiln::isWritableMemory(p.base + p.page, 0));
}

constexpr const char* kFill = R"(import triton
import triton.language as tl

@triton.jit
def fill(src, dst, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs) + 1.0)
)";

TEST(WritableMemory, InterpretRefusesAStoreIntoReadOnlyMemory) {
  Pages p;
  ASSERT_NE(p.base, MAP_FAILED);
  auto k = kiln::compile(kiln::Source::fromString(kFill, "fill.py"), "fill", "*fp32, *fp32, 16");
  ASSERT_TRUE(k.ok()) << k.error().text;
  auto* readOnly = reinterpret_cast<float*>(p.base + p.page);
  std::vector<float> out(16);
  // Loading from the read-only page is fine.
  std::vector<kiln::Arg> args = {kiln::Arg::buffer(readOnly, 64), kiln::Arg::buffer(out.data(), 64)};
  kiln::Status s = kiln::interpret(k.value(), {1}, args);
  ASSERT_TRUE(s.ok()) << s.error->text;
  EXPECT_EQ(out[3], 1.0f);
  // Storing into it is an error naming the parameter, not a crash.
  args = {kiln::Arg::buffer(out.data(), 64), kiln::Arg::buffer(readOnly, 64)};
  s = kiln::interpret(k.value(), {1}, args);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error->message.find("parameter 'dst' is read-only memory, but the kernel stores through it"),
            std::string::npos)
      << s.error->message;
}

}  // namespace
