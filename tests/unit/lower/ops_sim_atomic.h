// The CTA simulator's atom and red (ops_sim.h): each active thread in turn, in thread order, reads the
// element (or the f16x2/bf16x2 pair), combines it with its operand and writes it back, so a lowering
// that performs an atomic twice (two copies of a broadcast element) leaves a wrong value in memory.
// Shared-memory atomics (histogram's counters) change the bytes directly: atomics do not race.
#pragma once

namespace kiln::lower::test {

inline void CtaSim::execAtomic(const Inst& in) {
  const bool red = in.parts[0] == "red";
  static const char* kKinds[] = {"add", "and", "or", "xor", "exch", "max", "min", "cas"};
  std::string kind;
  for (const std::string& p : in.parts)
    for (const char* k : kKinds)
      if (p == k) kind = k;
  const bool shared = std::find(in.parts.begin(), in.parts.end(), "shared") != in.parts.end();
  if (kind.empty() || (!shared && std::find(in.parts.begin(), in.parts.end(), "global") == in.parts.end()))
    fail("unknown atomic");
  const std::string ty = in.parts.back();
  const bool pair = ty == "f16x2" || ty == "bf16x2";
  const std::string half = pair ? ty.substr(0, ty.size() - 2) : ty;
  const int bits = pair ? 32 : bitsOf(ty);
  const size_t a = red ? 0 : 1;  // the address operand
  for (int t = 0; t < n_; ++t) {
    if (!active(t, in)) continue;
    const uint64_t at = address(t, in.ops.at(a));
    if (at % uint64_t(bits / 8)) fail("misaligned atomic at " + std::to_string(at));
    if (shared && at + uint64_t(bits / 8) > shared_.size()) fail("shared atomic past the scratch size");
    uint8_t* mem = shared ? shared_.data() + at : globalBytes(at, bits / 8);
    uint64_t old = 0;
    for (int b = 0; b < bits / 8; ++b) old |= uint64_t(mem[b]) << (8 * b);
    const uint64_t v = get(t, in.ops.at(a + 1)) & mask(bits);
    uint64_t now = v;
    if (kind == "cas") {
      now = old == (get(t, in.ops.at(a + 1)) & mask(bits)) ? get(t, in.ops.at(a + 2)) & mask(bits) : old;
    } else if (kind == "add" && pair) {
      now = 0;
      for (int h = 0; h < 2; ++h)
        now |= fromD(half, toD(half, old >> (16 * h)) + toD(half, v >> (16 * h))) << (16 * h);
    } else if (kind == "add" && isFloatTy(ty)) {
      now = fromD(ty, toD(ty, old) + toD(ty, v));
    } else if (kind == "add") {
      now = old + v;
    } else if (kind == "and") {
      now = old & v;
    } else if (kind == "or") {
      now = old | v;
    } else if (kind == "xor") {
      now = old ^ v;
    } else if (kind == "max" || kind == "min") {
      const bool oldFirst = ty[0] == 's' ? sext(old, bits) > sext(v, bits) : old > v;
      now = (kind == "max") == oldFirst ? old : v;
    } else if (kind != "exch") {
      fail("atomic " + kind + " not modelled");
    }
    now &= mask(bits);
    for (int b = 0; b < bits / 8; ++b) mem[b] = uint8_t(now >> (8 * b));
    if (!red && in.ops.at(0) != "_") set(t, in.ops.at(0), old);
  }
}

}  // namespace kiln::lower::test
