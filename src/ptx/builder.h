// The PTX builder: virtual registers, operands, one `.entry` under construction and the module
// that prints them. Output is deterministic text (unit tests compare it exactly); see docs/ptx.md.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::ptx {

// The GPU a module is assembled for: sm_80 (runs on sm_80 and later) or sm_90a (Hopper only).
struct Target {
  int sm = 80;                // compute capability x 10
  bool archSpecific = false;  // the "a" suffix: wgmma, setmaxnreg
  std::string name() const;   // "sm_80", "sm_90a"
  static std::optional<Target> parse(std::string_view name);
  bool operator==(const Target&) const = default;
};
inline constexpr Target kSm80{80, false};
inline constexpr Target kSm90a{90, true};

// Register classes. Floats live in .f32/.f64 registers, f16/bf16/fp8 in .b16 and every integer
// of 8..32 bits in .b32 (see docs/ptx.md).
enum class RegClass : uint8_t { Pred, B16, B32, B64, F32, F64 };
inline constexpr int kNumRegClasses = 6;
std::string_view regTypeName(RegClass c);  // ".pred", ".b16", ".b32", ".b64", ".f32", ".f64"
std::string_view regPrefix(RegClass c);    // "%p", "%h", "%r", "%rd", "%f", "%fd"
int regBits(RegClass c);                   // 1, 16, 32, 64, 32, 64

struct Reg {
  RegClass cls = RegClass::B32;
  int id = -1;  // -1: no register
  bool valid() const { return id >= 0; }
  std::string str() const;  // "%r3"
  void appendTo(std::string& out) const;  // str() without a temporary
  bool operator==(const Reg&) const = default;
};

// An instruction operand as text: a register, an integer immediate, or one of the forms below.
struct Operand {
  std::string text;
  Operand(Reg r);       // NOLINT: registers are the common case
  Operand(int64_t v);   // NOLINT: decimal immediate
  Operand(int v) : Operand(int64_t(v)) {}  // NOLINT
  static Operand raw(std::string text);
};
Operand hexImm(uint64_t v);                          // 0x1F
Operand f32Imm(float v);                             // 0f3F800000 (exact bits, NaN payloads kept)
Operand f32Bits(uint32_t bits);                      // 0f3F800000
Operand f64Bits(uint64_t bits);                      // 0d3FF0000000000000
Operand f64Imm(double v);
Operand sym(std::string_view name);                  // a symbol: parameter, shared array, label
Operand addr(Reg base, int64_t offset = 0);          // [%rd1], [%rd1+16], [%rd1+-4]
Operand addr(std::string_view symbol, int64_t offset = 0);  // [smem+64]
Operand vec(std::span<const Reg> regs);              // {%r1, %r2}
Operand vec(std::initializer_list<Operand> items);

// An optional guard predicate: `@%p1` (when) or `@!%p1` (unless).
struct Guard {
  Reg pred;
  bool negate = false;
  bool active() const { return pred.valid(); }
};
inline Guard when(Reg p) { return Guard{p, false}; }
inline Guard unless(Reg p) { return Guard{p, true}; }

struct Label {
  std::string name;  // "$L3_loop"
};

// Kernel parameter types (`.param .TYPE`). Booleans travel as U8 and are tested with setp: PTX has
// no .pred parameters. Ptr is `.u64 .ptr .global .align N`. B8 (fp8 bits) loads into a .b16 register
// zero-extended; B16 (f16/bf16 bits) into .b16; other integers of 8..32 bits into .b32.
enum class ParamType : uint8_t { U8, S8, U16, S16, B16, U32, S32, U64, S64, F32, F64, Ptr, B8 };

struct Param {
  std::string symbol;  // "<entry>_<name>"
  ParamType type = ParamType::U32;
  int ptrAlign = 0;  // Ptr: the alignment promised for the pointee (0: no .align attribute)
  bool isBool = false;  // loadParam gives a .pred (value != 0)
  int arrayBytes = 0;   // an opaque byte array (`.param .align A .b8 sym[N]`, a TMA tensor map): not loaded
  int arrayAlign = 0;
};

// One `.visible .entry` under construction: parameters, directives, registers and the body.
class Entry {
 public:
  Entry(std::string name, Target target) : name_(std::move(name)), target_(target) {}
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;

  const std::string& name() const { return name_; }
  const Target& target() const { return target_; }

  // Parameters in signature order; returns the index. The PTX symbol is "<entry>_<name>".
  int addParam(std::string_view name, ParamType type, int ptrAlign = 0);
  int addBoolParam(std::string_view name);  // `.param .u8`, loaded as a .pred
  // `.param .align A .b8 <entry>_<name>[bytes]`: passed by value, read through its address, never loadParam'd.
  int addByteArrayParam(std::string_view name, int bytes, int align);
  const std::vector<Param>& params() const { return params_; }
  // ld.param into a fresh register: B32 for 8..32-bit integers (sign/zero extended), B16 for B16
  // and B8, B64 for 64-bit integers and pointers, F32/F64 for floats, Pred for bool parameters.
  Reg loadParam(int index);

  // Performance-tuning directives; 0 leaves a directive out. maxntid and reqntid exclude each other.
  void setMaxNtid(int x, int y = 1, int z = 1);
  void setReqNtid(int x, int y = 1, int z = 1);
  void setMinNCtaPerSm(int n) { minNCtaPerSm_ = n; }
  void setMaxNReg(int n) { maxNReg_ = n; }
  int maxNReg() const { return maxNReg_; }

  // A static shared array declared in the entry; returns its symbol "<entry>_<name>".
  std::string addShared(std::string_view name, int64_t bytes, int align = 16);
  // A local-memory array of the entry (a printf argument buffer); returns its symbol "<entry>_<name>".
  // Asking again with the same name, size and alignment returns the same array.
  std::string addLocal(std::string_view name, int64_t bytes, int align = 8);
  // A NUL-terminated byte string in global memory, declared at module scope before the entry; returns
  // its symbol "<entry>_str<N>". Strings with equal bytes share one symbol.
  std::string addGlobalString(std::string_view bytes);
  const std::vector<std::string>& globalDecls() const { return globalDecls_; }
  // The entry calls vprintf: the module declares it (`.extern .func`).
  void useVprintf() { usesVprintf_ = true; }
  bool usesVprintf() const { return usesVprintf_; }

  // The dynamic shared memory `smem` (declared once per module, sized at launch): marks it used
  // and returns a fresh .b32 register holding its shared-window address.
  Reg dynamicSharedBase();
  bool usesDynamicShared() const { return usesDynamicShared_; }
  // The alignment the code relies on for `smem` (16 bytes, or more: wgmma's swizzled tiles follow
  // absolute address bits, so their buffers start on the pattern's repeat).
  void alignDynamicShared(int bytes) { dynamicSharedAlign_ = std::max(dynamicSharedAlign_, bytes); }
  int dynamicSharedAlign() const { return dynamicSharedAlign_; }
  static constexpr std::string_view kDynamicShared = "smem";

  Reg reg(RegClass c);
  int numRegs(RegClass c) const { return regCount_[size_t(c)]; }

  // `opcode operands;` (operands joined by ", "), optionally guarded.
  void inst(std::string_view opcode, const std::vector<Operand>& operands = {}, Guard guard = {});
  // `mov` of a register into another of its class (an internal error across classes).
  void mov(Reg dst, Reg src, Guard guard = {});
  void comment(std::string_view text);
  // Lines given by the user (inline asm), each indented and written as it is; nothing is checked.
  void verbatim(std::string_view text);
  Label newLabel(std::string_view hint = "");
  void label(const Label& l);
  void bra(const Label& target, Guard guard = {});  // divergent branch
  void braUni(const Label& target);                 // branch taken by the whole warp together
  void ret();

  std::string str() const;  // the whole `.visible .entry ... { ... }` text

  // Removes the pure instructions whose results nothing with an effect reads, dead cycles through
  // loops included (ptx/dead_code.cpp). Entries with user PTX (verbatim) are left as they are.
  void removeDeadCode();

 private:
  void addLine(std::string line) { body_.push_back(std::move(line)); }

  std::string name_;
  Target target_;
  std::vector<Param> params_;
  std::array<int, 3> maxNtid_{0, 0, 0}, reqNtid_{0, 0, 0};
  int minNCtaPerSm_ = 0, maxNReg_ = 0;
  std::vector<std::string> sharedDecls_;  // and local arrays
  std::vector<std::string> globalDecls_;
  std::vector<std::pair<std::string, std::string>> strings_;  // bytes -> symbol
  bool usesDynamicShared_ = false, usesVprintf_ = false, hasVerbatim_ = false;
  int dynamicSharedAlign_ = 16;
  std::array<int, kNumRegClasses> regCount_{};
  int labelCount_ = 0;
  std::vector<std::string> body_;
};

// A PTX module: header, the dynamic shared declaration if any entry uses it, then the entries.
class Module {
 public:
  explicit Module(Target target) : target_(target) {}
  const Target& target() const { return target_; }
  Entry& addEntry(std::string name);  // stays valid while the module lives
  const std::vector<std::unique_ptr<Entry>>& entries() const { return entries_; }
  std::string str() const;

 private:
  Target target_;
  std::vector<std::unique_ptr<Entry>> entries_;
};

inline constexpr std::string_view kPtxVersion = "9.0";

}  // namespace kiln::ptx
