// The compiled-kernel cache: an in-memory map in front of an on-disk directory of checksummed files,
// keyed by a SHA-256 of everything that changes the binary. Disk writes are atomic (temp + rename),
// so concurrent processes never read half a file; a bad file (or a FIFO, a huge file, an untrusted
// one) is a miss; a bad or untrusted directory turns the disk cache off and never fails a compile.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/sha256.h"

namespace kiln::runtime {

using Bytes = std::vector<std::uint8_t>;

// A cache key: the SHA-256 of a list of strings, each framed by its length so that ("ab", "c") and
// ("a", "bc") differ. Callers list everything that changes the binary: kernel source text, kernel
// name, signature and specialization, compile options, kiln version (and build id), target arch, and
// the PTX itself when caching PTX -> cubin.
struct CacheKey {
  Sha256::Digest digest{};

  static CacheKey of(const std::vector<std::string>& parts);
  std::string hex() const { return Sha256::hex(digest); }
  bool operator==(const CacheKey&) const = default;
};

// One cache file: magic "KILNCACH", u32 format version, u32 header size, the 32-byte key, u64 payload
// length, the payload's SHA-256, then the payload (integers little-endian). Exposed for tests.
constexpr std::uint32_t kCacheFormatVersion = 1;
constexpr size_t kCacheHeaderBytes = 8 + 4 + 4 + 32 + 8 + 32;
Bytes encodeCacheFile(const CacheKey& key, const Bytes& payload);
// The payload, or nullopt when the file is truncated, corrupt, of another format version or for
// another key.
std::optional<Bytes> decodeCacheFile(const Bytes& file, const CacheKey& key);

// Where the disk cache lives: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln;
// empty (memory only) when KILN_CACHE_DISABLE is set to anything but "0" or no directory is known.
std::string defaultCacheDirectory();

class Cache {
 public:
  struct Stats {
    std::uint64_t memoryHits = 0, diskHits = 0, misses = 0;
    std::uint64_t badFiles = 0;       // files found but rejected (corrupt, truncated, wrong key/version)
    std::uint64_t writeFailures = 0;  // disk writes that failed (the first one turns writes off)
  };

  // directory: the on-disk cache; empty = memory only. Nothing touches the disk until first use.
  explicit Cache(std::string directory);
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // The bytes for key: from memory, else from disk, else build() — run once per key per process even
  // when many threads ask at once (the others wait and share the result). The result goes to memory
  // and, best effort, to disk. If build() throws, nothing is stored and every waiter gets the error.
  Bytes getOrBuild(const CacheKey& key, const std::function<Bytes()>& build);

  std::optional<Bytes> lookup(const CacheKey& key);       // memory, then disk (a disk hit is remembered)
  void store(const CacheKey& key, const Bytes& payload);  // memory and, best effort, disk

  const std::string& directory() const { return directory_; }
  std::string pathFor(const CacheKey& key) const;  // the file that holds key (empty if memory only)
  bool diskWritable() const;                       // false once a disk write failed
  std::string diskProblem() const;                 // why disk writes stopped (a warning, not an error)
  Stats stats() const;

 private:
  std::optional<Bytes> readDisk(const CacheKey& key);
  void writeDisk(const CacheKey& key, const Bytes& payload);
  // Whether the directory may be used: ours and not writable by group or others (or KILN_CACHE_SHARED=1).
  // Decided once it exists (create: make it first, 0700); a refusal turns the disk cache off with one
  // warning. True while it does not exist yet (reads miss, writes report the failure).
  bool directoryTrusted(bool create);
  void warnLocked(const std::string& message);  // to stderr, once per cache; mutex_ held

  const std::string directory_;
  mutable std::mutex mutex_;
  std::map<std::string, Bytes> memory_;                        // by key hex
  std::map<std::string, std::shared_future<Bytes>> inFlight_;  // builds under way
  bool diskWritable_ = true;
  bool shared_ = false;  // KILN_CACHE_SHARED=1: trust a directory and files others can write
  enum class Trust { Unknown, Trusted, Refused } trust_ = Trust::Unknown;
  bool warned_ = false;
  std::string diskProblem_;
  Stats stats_;
  std::atomic<std::uint64_t> tempCounter_{0};
};

}  // namespace kiln::runtime
