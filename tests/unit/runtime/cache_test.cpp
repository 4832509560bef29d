// The kernel cache: key framing, the file format's corruption checks, memory/disk round trips,
// rebuilding over bad files, atomic writes under concurrent threads and processes, build-once, and
// carrying on without a usable directory.
#include "runtime/cache.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <thread>

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "kiln-cache-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data()) ? pattern : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Bytes bytesOf(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes payloadOf(size_t n, unsigned seed) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = std::uint8_t((i * 2654435761u + seed) >> 7);
  return b;
}

Bytes readRaw(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeRaw(const std::string& path, const Bytes& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
}

// Files in dir other than the cache files themselves (temporaries left behind, for instance).
std::vector<std::string> strayFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() != ".kiln") out.push_back(entry.path().filename().string());
  return out;
}

TEST(CacheKey, FramesEachPart) {
  EXPECT_NE(CacheKey::of({"ab", "c"}), CacheKey::of({"a", "bc"}));
  EXPECT_NE(CacheKey::of({}), CacheKey::of({""}));
  EXPECT_NE(CacheKey::of({"", ""}), CacheKey::of({""}));
  EXPECT_EQ(CacheKey::of({"src", "sm_90a"}), CacheKey::of({"src", "sm_90a"}));
  EXPECT_NE(CacheKey::of({"src", "sm_90a"}), CacheKey::of({"src", "sm_80"}));
  EXPECT_EQ(CacheKey::of({"x"}).hex().size(), 64u);
}

TEST(CacheFile, RoundTripAndHeader) {
  const CacheKey key = CacheKey::of({"kernel"});
  const Bytes payload = payloadOf(100, 1);
  const Bytes file = encodeCacheFile(key, payload);
  ASSERT_EQ(file.size(), kCacheHeaderBytes + payload.size());
  EXPECT_EQ(std::string(file.begin(), file.begin() + 8), "KILNCACH");
  EXPECT_EQ(file[8], kCacheFormatVersion);
  std::optional<Bytes> back = decodeCacheFile(file, key);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, payload);

  std::optional<Bytes> empty = decodeCacheFile(encodeCacheFile(key, {}), key);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(CacheFile, RejectsEveryTruncationAndEveryFlippedByte) {
  const CacheKey key = CacheKey::of({"kernel"});
  const Bytes file = encodeCacheFile(key, payloadOf(100, 2));
  for (size_t n = 0; n < file.size(); ++n)
    EXPECT_FALSE(decodeCacheFile(Bytes(file.begin(), file.begin() + n), key)) << "truncated to " << n;
  for (size_t i = 0; i < file.size(); ++i) {
    Bytes bad = file;
    bad[i] ^= 0x20;
    EXPECT_FALSE(decodeCacheFile(bad, key)) << "byte " << i << " flipped";
  }
  Bytes longer = file;
  longer.push_back(0);
  EXPECT_FALSE(decodeCacheFile(longer, key));
  EXPECT_FALSE(decodeCacheFile(file, CacheKey::of({"another kernel"})));
}

TEST(Cache, MemoryThenDiskRoundTrip) {
  TempDir dir;
  const CacheKey key = CacheKey::of({"vector_add", "sm_90a"});
  const Bytes payload = payloadOf(5000, 3);
  {
    Cache cache(dir.path());
    EXPECT_FALSE(cache.lookup(key));
    cache.store(key, payload);
    EXPECT_EQ(cache.lookup(key), payload);
    EXPECT_EQ(cache.stats().memoryHits, 1u);
    EXPECT_TRUE(cache.diskWritable());
  }
  ASSERT_TRUE(fs::exists(Cache(dir.path()).pathFor(key)));
  Cache fresh(dir.path());  // a new process, as far as the memory map is concerned
  EXPECT_EQ(fresh.lookup(key), payload);
  EXPECT_EQ(fresh.stats().diskHits, 1u);
  EXPECT_EQ(fresh.lookup(key), payload);
  EXPECT_EQ(fresh.stats().memoryHits, 1u);
  EXPECT_TRUE(strayFiles(dir.path()).empty());
}

TEST(Cache, CreatesMissingDirectories) {
  TempDir dir;
  const std::string nested = dir.path() + "/a/b/kiln";
  Cache cache(nested);
  cache.store(CacheKey::of({"k"}), bytesOf("cubin"));
  EXPECT_TRUE(cache.diskWritable()) << cache.diskProblem();
  EXPECT_EQ(Cache(nested).lookup(CacheKey::of({"k"})), bytesOf("cubin"));
}

TEST(Cache, CorruptTruncatedOrMismatchedFilesAreRebuilt) {
  TempDir dir;
  const CacheKey key = CacheKey::of({"k"});
  const Bytes good = payloadOf(3000, 4);
  const std::string path = Cache(dir.path()).pathFor(key);
  const Bytes validFile = encodeCacheFile(key, good);
  const std::vector<Bytes> badFiles = {
      bytesOf("garbage that is not a cache file at all, but is longer than the header...................."),
      Bytes(validFile.begin(), validFile.begin() + validFile.size() / 2),  // truncated
      encodeCacheFile(CacheKey::of({"other"}), good),                      // another key's file
      {},                                                                  // empty
  };
  for (size_t i = 0; i < badFiles.size(); ++i) {
    writeRaw(path, badFiles[i]);
    Cache cache(dir.path());
    int builds = 0;
    Bytes got = cache.getOrBuild(key, [&] {
      ++builds;
      return good;
    });
    EXPECT_EQ(got, good) << "case " << i;
    EXPECT_EQ(builds, 1) << "case " << i;
    EXPECT_EQ(cache.stats().badFiles, 1u) << "case " << i;
    std::optional<Bytes> now = decodeCacheFile(readRaw(path), key);
    ASSERT_TRUE(now) << "case " << i << ": the bad file was not replaced";
    EXPECT_EQ(*now, good);
  }
}

TEST(Cache, GetOrBuildBuildsOnceAcrossThreads) {
  TempDir dir;
  Cache cache(dir.path());
  const CacheKey key = CacheKey::of({"once"});
  std::atomic<int> builds{0};
  std::vector<Bytes> results(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] {
      results[t] = cache.getOrBuild(key, [&] {
        ++builds;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return payloadOf(1000, 5);
      });
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(builds.load(), 1);
  for (const Bytes& r : results) EXPECT_EQ(r, payloadOf(1000, 5));
}

TEST(Cache, FailedBuildStoresNothingAndReachesEveryWaiter) {
  TempDir dir;
  Cache cache(dir.path());
  const CacheKey key = CacheKey::of({"fails"});
  std::atomic<int> builds{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      try {
        cache.getOrBuild(key, [&]() -> Bytes {
          ++builds;
          std::this_thread::sleep_for(std::chrono::milliseconds(30));
          throw std::runtime_error("ptxas said no");
        });
      } catch (const std::runtime_error& e) {
        if (std::string(e.what()) == "ptxas said no") ++failures;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 4);
  EXPECT_GE(builds.load(), 1);
  EXPECT_FALSE(fs::exists(cache.pathFor(key)));
  // The next request builds again (and now succeeds).
  EXPECT_EQ(cache.getOrBuild(key, [] { return bytesOf("ok"); }), bytesOf("ok"));
}

TEST(Cache, UnwritableDirectoryFallsBackToMemory) {
  TempDir dir;
  // A regular file where a directory should be: unwritable even for root.
  const std::string blocker = dir.path() + "/not-a-directory";
  writeRaw(blocker, bytesOf("x"));
  Cache cache(blocker + "/kiln");
  const CacheKey key = CacheKey::of({"k"});
  EXPECT_NO_THROW(cache.store(key, bytesOf("cubin")));
  EXPECT_FALSE(cache.diskWritable());
  EXPECT_NE(cache.diskProblem().find("not-a-directory"), std::string::npos) << cache.diskProblem();
  EXPECT_EQ(cache.lookup(key), bytesOf("cubin"));
  EXPECT_EQ(cache.getOrBuild(CacheKey::of({"k2"}), [] { return bytesOf("two"); }), bytesOf("two"));
  EXPECT_EQ(cache.stats().writeFailures, 1u);  // turned off after the first failure
}

TEST(Cache, MemoryOnly) {
  Cache cache("");
  EXPECT_EQ(cache.pathFor(CacheKey::of({"k"})), "");
  EXPECT_FALSE(cache.diskWritable());
  EXPECT_EQ(cache.diskProblem(), "");
  cache.store(CacheKey::of({"k"}), bytesOf("v"));
  EXPECT_EQ(cache.lookup(CacheKey::of({"k"})), bytesOf("v"));
}

// Readers polling the file while writers replace it must see a whole file or none: never a torn one.
TEST(Cache, WritesAreAtomicForConcurrentReaders) {
  TempDir dir;
  const CacheKey key = CacheKey::of({"big"});
  const std::string path = Cache(dir.path()).pathFor(key);
  std::atomic<bool> done{false};
  std::atomic<int> wholeReads{0}, tornReads{0};
  std::thread reader([&] {
    while (!done) {
      std::error_code ec;
      if (!fs::exists(path, ec)) continue;
      Bytes raw = readRaw(path);
      if (raw.empty()) continue;  // removed between exists() and open(): cannot happen, but harmless
      (decodeCacheFile(raw, key) ? wholeReads : tornReads)++;
    }
  });
  std::vector<std::thread> writers;
  for (unsigned w = 0; w < 3; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 10; ++i) {
        Cache cache(dir.path());  // each store goes to disk
        cache.store(key, payloadOf(2 << 20, w));
      }
    });
  for (auto& t : writers) t.join();
  done = true;
  reader.join();
  EXPECT_EQ(tornReads.load(), 0);
  EXPECT_GT(wholeReads.load(), 0);
  EXPECT_TRUE(strayFiles(dir.path()).empty());
}

// Several processes compiling the same kernel at once: each writes and rereads the same key.
TEST(Cache, ConcurrentProcessesShareOneKey) {
  TempDir dir;
  const CacheKey key = CacheKey::of({"shared kernel"});
  const Bytes payload = payloadOf(1 << 20, 7);
  std::vector<pid_t> children;
  for (int p = 0; p < 4; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      for (int i = 0; i < 15 && status == 0; ++i) {
        Cache writer(dir.path());
        writer.store(key, payload);
        Cache reader(dir.path());
        std::optional<Bytes> got = reader.lookup(key);
        if (!got || *got != payload || reader.stats().badFiles != 0) status = 1;
        if (!writer.diskWritable()) status = 2;
      }
      _exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: a reader saw a bad file; 2: a write failed";
  }
  EXPECT_EQ(decodeCacheFile(readRaw(Cache(dir.path()).pathFor(key)), key), payload);
  EXPECT_TRUE(strayFiles(dir.path()).empty());
}

// Saves and restores one environment variable around a test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Cache, DefaultDirectoryFromEnvironment) {
  ScopedEnv disable("KILN_CACHE_DISABLE", nullptr);
  {
    ScopedEnv dir("KILN_CACHE_DIR", "/tmp/kiln-here");
    EXPECT_EQ(defaultCacheDirectory(), "/tmp/kiln-here");
    ScopedEnv off("KILN_CACHE_DISABLE", "1");
    EXPECT_EQ(defaultCacheDirectory(), "");
  }
  ScopedEnv dir("KILN_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(defaultCacheDirectory(), "/xdg/kiln");
  }
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  {
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(defaultCacheDirectory(), "/home/someone/.cache/kiln");
  }
  {
    ScopedEnv relativeXdg("XDG_CACHE_HOME", "relative");  // the XDG spec says: ignore relative paths
    ScopedEnv home("HOME", "/h");
    EXPECT_EQ(defaultCacheDirectory(), "/h/.cache/kiln");
  }
  ScopedEnv home("HOME", nullptr);
  EXPECT_EQ(defaultCacheDirectory(), "");
  ScopedEnv zero("KILN_CACHE_DISABLE", "0");
  ScopedEnv dir2("KILN_CACHE_DIR", "/d");
  EXPECT_EQ(defaultCacheDirectory(), "/d");
}

}  // namespace
}  // namespace kiln::runtime
