// SHA-256 (FIPS 180-4), for cache keys and cache-file checksums: kiln needs a hash whose collisions
// nobody will ever meet, and no crypto library is linked.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::runtime {

class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  Digest finish();  // the object is spent afterwards; make a new one for the next message

  static Digest of(std::string_view s);
  static std::string hex(const Digest& d);  // 64 lower-case hex digits

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  std::uint64_t totalBytes_ = 0;
};

}  // namespace kiln::runtime
