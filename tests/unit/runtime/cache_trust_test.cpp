// The disk cache against hostile entries and directories: a FIFO or a huge sparse file at an entry's
// path is a prompt miss (each run in a child process, time- and memory-bounded, since the old code hung
// or read 4 GiB), the directory is created 0700, and a directory or entry another user owns or that
// group/others can write is refused with one message unless KILN_CACHE_SHARED=1.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>

#include "../support/process_test_util.h"
#include "runtime/cache.h"
#include "support/temp_dir.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;

// A private directory per test (support::TempDirectory) and scoped environment variables.
class TempDir : public support::TempDirectory {
 public:
  TempDir() : support::TempDirectory("kiln-cache-trust-") {}
};
using testing::ScopedEnv;

Bytes bytesOf(const std::string& s) { return Bytes(s.begin(), s.end()); }

// Runs body in a child process: true when it exits 0 within `limit`, having used at most maxRssMiB of
// memory. A child that hangs is killed, so a regression fails the test instead of hanging the binary.
bool inChild(const std::function<bool()>& body, std::chrono::seconds limit, long maxRssMiB = 512) {
  pid_t pid = ::fork();
  if (pid == 0) _exit(body() ? 0 : 1);
  if (pid < 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  struct rusage usage {};
  for (;;) {
    pid_t r = ::wait4(pid, &status, WNOHANG, &usage);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::wait4(pid, &status, 0, &usage);
      ADD_FAILURE() << "child still running after " << limit.count() << " s";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_LE(usage.ru_maxrss / 1024, maxRssMiB) << "child used " << usage.ru_maxrss / 1024 << " MiB";
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && usage.ru_maxrss / 1024 <= maxRssMiB;
}

TEST(CacheEntries, FifoIsAPromptMiss) {
  TempDir dir;
  const CacheKey key = CacheKey::of({"fifo"});
  Cache probe(dir.path());
  ASSERT_EQ(::mkfifo(probe.pathFor(key).c_str(), 0600), 0);
  EXPECT_TRUE(inChild(
      [&] {
        Cache cache(dir.path());
        return !cache.lookup(key) &&
               cache.getOrBuild(key, [] { return bytesOf("built"); }) == bytesOf("built");
      },
      std::chrono::seconds(10)));
}

// A 4 GiB sparse file (no real disk use) at an entry's path: garbage, a valid header whose length
// disagrees with the file's size, and a valid header whose length matches it. None may be read whole.
TEST(CacheEntries, HugeSparseFilesAreRejectedUnread) {
  TempDir dir;
  const CacheKey key = CacheKey::of({"huge"});
  const std::uint64_t size = std::uint64_t(4) << 30;
  const std::string path = Cache(dir.path()).pathFor(key);
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    Bytes header = encodeCacheFile(key, bytesOf("tiny"));
    header.resize(kCacheHeaderBytes);
    if (variant == 2)
      for (int i = 0; i < 8; ++i) header[48 + i] = std::uint8_t((size - kCacheHeaderBytes) >> (8 * i));
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    if (variant > 0) ASSERT_EQ(::write(fd, header.data(), header.size()), ssize_t(header.size()));
    ASSERT_EQ(::ftruncate(fd, off_t(size)), 0);
    ::close(fd);
    EXPECT_TRUE(inChild(
        [&] {
          Cache cache(dir.path());
          return !cache.lookup(key) && cache.stats().badFiles == 1;
        },
        std::chrono::seconds(5), 256));
  }
}

TEST(CacheTrust, CreatesTheDirectoryPrivate) {
  TempDir dir;
  const std::string nested = dir.path() + "/a/kiln";
  Cache cache(nested);
  cache.store(CacheKey::of({"k"}), bytesOf("cubin"));
  EXPECT_TRUE(cache.diskWritable()) << cache.diskProblem();
  struct stat st {};
  ASSERT_EQ(::stat(nested.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

// A good entry stored by a trusting cache, then the directory made group-writable.
TEST(CacheTrust, GroupWritableDirectoryIsRefusedUnlessShared) {
  ScopedEnv notShared("KILN_CACHE_SHARED", std::nullopt);
  TempDir dir;
  const CacheKey key = CacheKey::of({"k"});
  Cache(dir.path()).store(key, bytesOf("cached"));
  ASSERT_EQ(::chmod(dir.path().c_str(), 0775), 0);

  ::testing::internal::CaptureStderr();
  Cache cache(dir.path());
  int builds = 0;
  EXPECT_EQ(cache.getOrBuild(key, [&] { ++builds; return bytesOf("built"); }), bytesOf("built"));
  EXPECT_EQ(cache.getOrBuild(CacheKey::of({"k2"}), [&] { ++builds; return bytesOf("two"); }), bytesOf("two"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(builds, 2);  // the disk entry was not trusted
  EXPECT_FALSE(cache.diskWritable());
  EXPECT_NE(cache.diskProblem().find("writable by group or others"), std::string::npos) << cache.diskProblem();
  EXPECT_NE(cache.diskProblem().find("KILN_CACHE_SHARED=1"), std::string::npos) << cache.diskProblem();
  // One message, on one line, however many lookups.
  EXPECT_EQ(err, "kiln: warning: " + cache.diskProblem() + "\n");
  EXPECT_FALSE(fs::exists(cache.pathFor(CacheKey::of({"k2"}))));

  ScopedEnv shared("KILN_CACHE_SHARED", "1");
  Cache trusting(dir.path());
  EXPECT_EQ(trusting.lookup(key), bytesOf("cached"));
  EXPECT_TRUE(trusting.diskWritable()) << trusting.diskProblem();
}

TEST(CacheTrust, WorldWritableEntryIsAMiss) {
  ScopedEnv notShared("KILN_CACHE_SHARED", std::nullopt);
  TempDir dir;
  const CacheKey key = CacheKey::of({"k"});
  Cache(dir.path()).store(key, bytesOf("cached"));
  ASSERT_EQ(::chmod(Cache(dir.path()).pathFor(key).c_str(), 0666), 0);
  ::testing::internal::CaptureStderr();
  Cache cache(dir.path());
  EXPECT_FALSE(cache.lookup(key));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("writable by group or others"), std::string::npos) << err;
}

// Root can hand files to another user; elsewhere this cannot be set up portably.
TEST(CacheTrust, ForeignOwnerIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown to another user";
  ScopedEnv notShared("KILN_CACHE_SHARED", std::nullopt);
  TempDir dir;
  const std::string sub = dir.path() + "/theirs";
  const CacheKey key = CacheKey::of({"k"});
  Cache(sub).store(key, bytesOf("cached"));
  ASSERT_EQ(::chown(Cache(sub).pathFor(key).c_str(), 65534, 65534), 0);  // nobody
  {
    ::testing::internal::CaptureStderr();
    Cache cache(sub);
    EXPECT_FALSE(cache.lookup(key));  // the entry belongs to someone else
    EXPECT_NE(::testing::internal::GetCapturedStderr().find("owned by another user"), std::string::npos);
  }
  ASSERT_EQ(::chown(sub.c_str(), 65534, 65534), 0);
  ::testing::internal::CaptureStderr();
  Cache cache(sub);
  EXPECT_EQ(cache.getOrBuild(key, [] { return bytesOf("built"); }), bytesOf("built"));
  ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(cache.diskWritable());
  EXPECT_NE(cache.diskProblem().find("owned by another user"), std::string::npos) << cache.diskProblem();
  ScopedEnv shared("KILN_CACHE_SHARED", "1");
  EXPECT_EQ(Cache(sub).lookup(key), bytesOf("cached"));  // KILN_CACHE_SHARED=1 trusts both
}

}  // namespace
}  // namespace kiln::runtime
