// The compiled-kernel cache: key framing, the checksummed file format, atomic writes, and the
// thread-safe build-once map.
#include "runtime/cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>

namespace kiln::runtime {

namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'C', 'A', 'C', 'H'};
// A cubin is kilobytes to a few megabytes; a length past this is a corrupt header, not a payload.
constexpr std::uint64_t kMaxPayloadBytes = std::uint64_t(256) << 20;

void putU64(Bytes& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
}
std::uint64_t getLE(const Bytes& in, size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t(in[at + i]) << (8 * i);
  return v;
}

const char* envOrNull(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// Why a cache directory or file is not to be trusted, "" when it is: a cubin from there is loaded
// and run, so anyone else who can write it could run code as this user.
std::string distrust(const struct stat& st) {
  if (st.st_uid != ::geteuid()) return "owned by another user (uid " + std::to_string(st.st_uid) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
  return {};
}

constexpr const char* kSharedHint = " (set KILN_CACHE_SHARED=1 to trust it anyway)";

// Reads n bytes at fd's position; false on error or end of file.
bool readExactly(int fd, std::uint8_t* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::read(fd, out + done, n - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += size_t(r);
  }
  return true;
}

// What reading one cache entry found: the whole file, or nothing (missing, or rejected: not a regular
// file, untrusted, or a header that disagrees with the file before any payload is read).
struct Entry {
  std::optional<Bytes> file;
  bool rejected = false;
  std::string distrusted;  // why an untrusted entry was refused
};

Entry readEntry(const std::string& path, const CacheKey& key, bool shared) {
  Entry out;
  // O_NOFOLLOW: entries are written by rename, never as links. O_NONBLOCK: a FIFO put there must not
  // block the open; for a regular file the flag changes nothing.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    out.rejected = errno != ENOENT && errno != ENOTDIR;
    return out;
  }
  struct stat st {};
  Bytes data(kCacheHeaderBytes);
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (ok && !shared) {
    out.distrusted = distrust(st);
    ok = out.distrusted.empty();
    if (!ok) out.distrusted = "ignoring cache file " + path + ": it is " + out.distrusted + kSharedHint;
  }
  // The header first: a file whose header does not describe exactly this file is rejected unread.
  const std::uint64_t size = ok ? std::uint64_t(st.st_size) : 0;
  ok = ok && size >= kCacheHeaderBytes && size - kCacheHeaderBytes <= kMaxPayloadBytes &&
       readExactly(fd, data.data(), kCacheHeaderBytes) && std::memcmp(data.data(), kMagic, 8) == 0 &&
       getLE(data, 8, 4) == kCacheFormatVersion && getLE(data, 12, 4) == kCacheHeaderBytes &&
       std::memcmp(data.data() + 16, key.digest.data(), 32) == 0 &&
       getLE(data, 48, 8) == size - kCacheHeaderBytes;
  if (ok) {
    data.resize(size_t(size));
    // Shrank under us: the decoder rejects what we got.
    if (!readExactly(fd, data.data() + kCacheHeaderBytes, data.size() - kCacheHeaderBytes)) data.resize(0);
    out.file = std::move(data);
  } else {
    out.rejected = true;
  }
  ::close(fd);
  return out;
}

// Writes all of data to fd; false on any error.
bool writeAll(int fd, const Bytes& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

}  // namespace

CacheKey CacheKey::of(const std::vector<std::string>& parts) {
  Sha256 h;
  h.update("kiln-cache-key/1");
  Bytes frame;
  for (const std::string& part : parts) {
    frame.clear();
    putU64(frame, part.size());
    h.update(frame.data(), frame.size());
    h.update(part);
  }
  frame.clear();
  putU64(frame, parts.size());
  h.update(frame.data(), frame.size());
  return CacheKey{h.finish()};
}

Bytes encodeCacheFile(const CacheKey& key, const Bytes& payload) {
  Sha256 h;
  h.update(payload.data(), payload.size());
  const Sha256::Digest sum = h.finish();
  Bytes out(kCacheHeaderBytes + payload.size());
  auto setLE = [&](size_t at, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out[at + i] = std::uint8_t(v >> (8 * i));
  };
  std::memcpy(out.data(), kMagic, 8);
  setLE(8, kCacheFormatVersion, 4);
  setLE(12, kCacheHeaderBytes, 4);
  std::memcpy(out.data() + 16, key.digest.data(), 32);
  setLE(48, payload.size(), 8);
  std::memcpy(out.data() + 56, sum.data(), 32);
  if (!payload.empty()) std::memcpy(out.data() + kCacheHeaderBytes, payload.data(), payload.size());
  return out;
}

std::optional<Bytes> decodeCacheFile(const Bytes& file, const CacheKey& key) {
  if (file.size() < kCacheHeaderBytes) return std::nullopt;
  if (std::memcmp(file.data(), kMagic, 8) != 0) return std::nullopt;
  if (getLE(file, 8, 4) != kCacheFormatVersion || getLE(file, 12, 4) != kCacheHeaderBytes)
    return std::nullopt;
  if (std::memcmp(file.data() + 16, key.digest.data(), 32) != 0) return std::nullopt;
  std::uint64_t length = getLE(file, 48, 8);
  if (length != file.size() - kCacheHeaderBytes) return std::nullopt;
  Sha256 h;
  h.update(file.data() + kCacheHeaderBytes, length);
  Sha256::Digest sum = h.finish();
  if (std::memcmp(file.data() + 56, sum.data(), 32) != 0) return std::nullopt;
  return Bytes(file.begin() + kCacheHeaderBytes, file.end());
}

std::string defaultCacheDirectory() {
  if (const char* off = envOrNull("KILN_CACHE_DISABLE"); off && std::string(off) != "0") return {};
  if (const char* dir = envOrNull("KILN_CACHE_DIR")) return dir;
  if (const char* xdg = envOrNull("XDG_CACHE_HOME"); xdg && xdg[0] == '/') return std::string(xdg) + "/kiln";
  if (const char* home = envOrNull("HOME")) return std::string(home) + "/.cache/kiln";
  return {};
}

Cache::Cache(std::string directory) : directory_(std::move(directory)) {
  if (directory_.empty()) diskWritable_ = false;
  const char* shared = envOrNull("KILN_CACHE_SHARED");
  shared_ = shared && std::string(shared) == "1";
}

void Cache::warnLocked(const std::string& message) {
  if (warned_) return;
  warned_ = true;
  std::fprintf(stderr, "kiln: warning: %s\n", message.c_str());
}

bool Cache::directoryTrusted(bool create) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (trust_ != Trust::Unknown) return trust_ == Trust::Trusted;
  if (create) {
    // The parents as the umask says; the cache directory itself private, since what it holds is run.
    std::error_code ec;
    const std::filesystem::path dir(directory_);
    if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
    if (::mkdir(directory_.c_str(), 0700) != 0 && errno != EEXIST) return true;  // writeDisk reports it
  }
  struct stat st {};
  if (::stat(directory_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return true;  // a miss, or writeDisk reports it
  std::string why = shared_ ? std::string() : distrust(st);
  if (why.empty()) {
    trust_ = Trust::Trusted;
    return true;
  }
  trust_ = Trust::Refused;
  diskWritable_ = false;
  diskProblem_ = "not using the disk cache: directory " + directory_ + " is " + why + kSharedHint;
  warnLocked(diskProblem_);
  return false;
}

std::string Cache::pathFor(const CacheKey& key) const {
  if (directory_.empty()) return {};
  return directory_ + "/" + key.hex() + ".kiln";
}

bool Cache::diskWritable() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return diskWritable_;
}

std::string Cache::diskProblem() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return diskProblem_;
}

Cache::Stats Cache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::optional<Bytes> Cache::readDisk(const CacheKey& key) {
  if (directory_.empty() || !directoryTrusted(false)) return std::nullopt;
  Entry entry = readEntry(pathFor(key), key, shared_);
  std::optional<Bytes> payload;
  if (entry.file) payload = decodeCacheFile(*entry.file, key);
  if (!payload && (entry.file || entry.rejected)) {
    // Left in place: the rebuild's rename replaces it atomically, and deleting it here could race
    // with another process that has just renamed a good file over it.
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.badFiles;
    if (!entry.distrusted.empty()) warnLocked(entry.distrusted);
  }
  return payload;
}

void Cache::writeDisk(const CacheKey& key, const Bytes& payload) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!diskWritable_) return;
  }
  if (!directoryTrusted(true)) return;
  std::string problem;
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec) {
    problem = "cannot create cache directory " + directory_ + ": " + ec.message();
  } else {
    const Bytes file = encodeCacheFile(key, payload);
    // A unique temporary in the same directory (rename is atomic only within one file system):
    // process id, thread and a per-cache counter; O_EXCL guards against any remaining clash.
    const std::string base =
        directory_ + "/." + key.hex() + ".tmp." + std::to_string(::getpid()) + "." +
        std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) % 1000000);
    int fd = -1;
    std::string temp;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
      temp = base + "." + std::to_string(tempCounter_.fetch_add(1));
      fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
      problem = "cannot write in cache directory " + directory_ + ": " + std::strerror(errno);
    } else {
      bool ok = writeAll(fd, file);
      ok = (::close(fd) == 0) && ok;
      if (ok && ::rename(temp.c_str(), pathFor(key).c_str()) == 0) return;
      problem = "cannot write cache file " + pathFor(key) + ": " + std::strerror(errno);
      ::unlink(temp.c_str());
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.writeFailures;
  diskWritable_ = false;
  diskProblem_ = problem;
}

std::optional<Bytes> Cache::lookup(const CacheKey& key) {
  const std::string hex = key.hex();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = memory_.find(hex); it != memory_.end()) {
      ++stats_.memoryHits;
      return it->second;
    }
  }
  std::optional<Bytes> payload = readDisk(key);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!payload) {
    ++stats_.misses;
    return std::nullopt;
  }
  ++stats_.diskHits;
  memory_.emplace(hex, *payload);
  return payload;
}

void Cache::store(const CacheKey& key, const Bytes& payload) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    memory_[key.hex()] = payload;
  }
  writeDisk(key, payload);
}

Bytes Cache::getOrBuild(const CacheKey& key, const std::function<Bytes()>& build) {
  const std::string hex = key.hex();
  std::promise<Bytes> promise;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (auto it = memory_.find(hex); it != memory_.end()) {
      ++stats_.memoryHits;
      return it->second;
    }
    if (auto it = inFlight_.find(hex); it != inFlight_.end()) {
      std::shared_future<Bytes> pending = it->second;
      lock.unlock();
      return pending.get();  // rethrows the builder's exception
    }
    inFlight_.emplace(hex, promise.get_future().share());
  }
  // This thread builds; everyone else asking for the key waits on the promise.
  try {
    std::optional<Bytes> payload = readDisk(key);
    bool fromDisk = payload.has_value();
    if (!payload) payload = build();
    if (!fromDisk) writeDisk(key, *payload);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++(fromDisk ? stats_.diskHits : stats_.misses);
      memory_[hex] = *payload;
      inFlight_.erase(hex);
    }
    promise.set_value(*payload);
    return std::move(*payload);
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      inFlight_.erase(hex);
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

}  // namespace kiln::runtime
