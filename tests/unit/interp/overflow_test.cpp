// The int32-overflow oracle (interp::OverflowCheck): a kernel over 2^31+ elements whose i32 offset
// `pid * 1024` wraps is stopped at the multiply, with its values, while the same kernel with a 64-bit
// offset runs; wraps that change no address (masked-off lanes, masked bits) are reported only in All
// mode; wraps carried through a loop keep their origin.
#include <sys/mman.h>

#include "kernel_builder.h"

namespace kiln::interp::test {
namespace {

constexpr int64_t kBlock = 1024;
constexpr int64_t kLanes = 16;
constexpr size_t kBytes = (size_t(1) << 31) + (size_t(1) << 20);  // 2^31 + 2^20 one-byte elements

// An anonymous mapping of 2^31 + 2^20 bytes: pages are made only where the kernel touches them.
struct SparseBytes {
  void* p = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ~SparseBytes() {
    if (p != MAP_FAILED) ::munmap(p, kBytes);
  }
  int8_t* bytes() const { return static_cast<int8_t*>(p); }
  ArgValue arg() const {
    ArgValue a;
    a.kind = ArgValue::Kind::Buffer;
    a.data = p;
    a.bytes = kBytes;
    return a;
  }
};

// x[offs] += 1 for offs = (program_id + first) * 1024 + arange(16), the offset in i32 or in i64
// (`.to(tl.int64)` on the program id); `maskNegative` masks off the lanes whose offset is negative.
struct Increment {
  KernelBuilder k{"increment"};
  Value* product = nullptr;
  ir::Op* st = nullptr;
  Increment(bool wide, bool maskNegative = false) {
    Value* x = k.param(Type::ptr(Scalar::I8), "x_ptr");
    Value* first = k.param(sc(Scalar::I32), "first");
    Value* pid = k.bin(Opcode::Add, k.pid(), first);
    Scalar it = wide ? Scalar::I64 : Scalar::I32;
    if (wide) pid = k.op(Opcode::Cast, {pid}, sc(Scalar::I64));
    product = k.bin(Opcode::Mul, pid, k.ci(kBlock, sc(it)));
    Value* lanes = k.arange(0, kLanes);
    if (wide) lanes = k.op(Opcode::Cast, {lanes}, ten({kLanes}, Scalar::I64));
    Value* offs = k.bin(Opcode::Add, k.splat(product, {kLanes}), lanes);
    Value* mask = maskNegative ? k.cmp("ge", offs, k.splat(k.ci(0, sc(it)), {kLanes})) : nullptr;
    Value* ptrs = k.ptrAdd(k.splat(x, {kLanes}), offs);
    Value* v = k.load(ptrs, mask);
    st = k.store(ptrs, k.bin(Opcode::Add, v, k.splat(k.ci(1, sc(Scalar::I8)), {kLanes})), mask);
    k.ret();
  }
};

Diagnostic runChecked(const ir::Function& fn, GridDims grid, const std::vector<ArgValue>& args, OverflowCheck check) {
  try {
    interp::run(fn, grid, args, RunOptions{{}, check, {}});
  } catch (const CompileError& e) {
    return e.diag();
  }
  return {};
}

std::string lineOf(const Value* v) { return "kern.py:" + std::to_string(v->def->loc.line) + ":5"; }

// The run stopped at `at` (the op that wrapped) with a message that contains `text`.
void expectReport(const Diagnostic& d, const Value* at, const std::string& text) {
  EXPECT_EQ(d.loc.str(), lineOf(at)) << d.message;
  EXPECT_NE(d.message.find(text), std::string::npos) << d.message;
}

// Programs (2^21 - 2 .. 2^21 + 1) * 1024: the third one's offset is 2^31, past int32.
const int32_t kFirst = (1 << 21) - 2;

TEST(OverflowOracle, ReportsTheInt32OffsetAtTheMultiplyWithItsValues) {
  SparseBytes mem;
  ASSERT_NE(mem.p, MAP_FAILED);
  Increment k(/*wide=*/false);
  Diagnostic d = runChecked(k.k.fn, {4, 1, 1}, {mem.arg(), intArg(kFirst)}, OverflowCheck::Address);
  expectReport(d, k.product, "kernel 'increment': i32 overflow changes an address: at program (2, 0, 0), the i32 mul "
                             "2097152 * 1024 = 2147483648 wraps to -2147483648, and the load at kern.py:");
  EXPECT_NE(d.message.find("reads through the wrapped address, element [0]"), std::string::npos) << d.message;
  // The programs before it ran: the last 2048 bytes below 2^31.
  EXPECT_EQ(mem.bytes()[(size_t(1) << 31) - 2048], 1);
  EXPECT_EQ(mem.bytes()[(size_t(1) << 31) - 1024 + kLanes - 1], 1);
}

TEST(OverflowOracle, WithoutTheCheckTheSameRunIsOnlyAnOutOfBoundsLoad) {
  SparseBytes mem;
  ASSERT_NE(mem.p, MAP_FAILED);
  Increment k(false);
  Diagnostic d = runChecked(k.k.fn, {4, 1, 1}, {mem.arg(), intArg(kFirst)}, OverflowCheck::Off);
  EXPECT_NE(d.message.find("out-of-bounds load"), std::string::npos) << d.message;
  EXPECT_NE(d.loc.str(), lineOf(k.product));
}

TEST(OverflowOracle, SilentOnTheSameKernelWithA64BitOffset) {
  SparseBytes mem;
  ASSERT_NE(mem.p, MAP_FAILED);
  Increment k(/*wide=*/true);
  for (OverflowCheck check : {OverflowCheck::Address, OverflowCheck::All}) {
    Diagnostic d = runChecked(k.k.fn, {4, 1, 1}, {mem.arg(), intArg(kFirst)}, check);
    EXPECT_EQ(d.message, "");
  }
  for (size_t p = 0; p < 4; ++p)  // each of the 4 programs' 16 bytes, incremented once per run
    EXPECT_EQ(mem.bytes()[(size_t(kFirst) + p) * kBlock + kLanes - 1], 2) << p;
}

TEST(OverflowOracle, MaskedOffLanesNeverReport) {
  SparseBytes mem;
  ASSERT_NE(mem.p, MAP_FAILED);
  Increment k(false, /*maskNegative=*/true);
  Diagnostic d = runChecked(k.k.fn, {4, 1, 1}, {mem.arg(), intArg(kFirst)}, OverflowCheck::Address);
  EXPECT_EQ(d.message, "");  // the wrapped lanes are negative, masked off: no access used them
  // All mode reports the wrap itself, wherever it goes.
  d = runChecked(k.k.fn, {4, 1, 1}, {mem.arg(), intArg(kFirst)}, OverflowCheck::All);
  expectReport(d, k.product, "i32 overflow at program (2, 0, 0), the i32 mul 2097152 * 1024 = 2147483648 wraps to "
                             "-2147483648");
}

// out[(pid * 0x9E3779B1) & 7] = 1: the hash wraps in i32, but its low bits (the address) do not change.
TEST(OverflowOracle, AWrapThatTheAddressDoesNotSeeIsReportedOnlyInAllMode) {
  KernelBuilder k("hash");
  Value* out = k.param(Type::ptr(Scalar::I32), "out");
  Value* h = k.bin(Opcode::Mul, k.pid(), k.ci(int32_t(0x9E3779B1)));
  k.store(k.ptrAdd(out, k.bin(Opcode::And, h, k.ci(7))), k.ci(1));
  k.ret();
  std::vector<int32_t> o(8, 0);
  EXPECT_EQ(runChecked(k.fn, {8, 1, 1}, {buf(o)}, OverflowCheck::Address).message, "");
  Diagnostic d = runChecked(k.fn, {8, 1, 1}, {buf(o)}, OverflowCheck::All);
  expectReport(d, h, "i32 overflow at program (2, 0, 0), the i32 mul 2 * -1640531535 = -3281063070 wraps to "
                     "1013904226");
}

// off = 0; for i in range(3): off += step; out[off >> 29] = 1 after the loop. With step = 2^30 the add
// wraps in the second iteration, and the store after the loop reports that add; with 2^29 it stays in range.
TEST(OverflowOracle, AWrapCarriedThroughALoopKeepsItsOrigin) {
  KernelBuilder k("carry");
  Value* out = k.param(Type::ptr(Scalar::I32), "out");
  Value* step = k.param(sc(Scalar::I32), "step");
  Type i32 = sc(Scalar::I32);
  ir::Op* loop = k.opN(Opcode::For, {k.ci(0), k.ci(3), k.ci(1), k.ci(0)}, {i32});
  Value* sum = nullptr;
  {
    ir::Builder saved = k.b;
    loop->region(0).addArg(i32);
    Value* off = loop->region(0).addArg(i32);
    k.b.setInsertionPointToEnd(loop->region(0));
    sum = k.bin(Opcode::Add, off, step);
    k.opN(Opcode::Yield, {sum}, {});
    k.b = saved;
  }
  Value* slot = k.bin(Opcode::Shr, loop->result(0), k.ci(29));
  k.store(k.ptrAdd(out, slot), k.ci(1));
  k.ret();
  std::vector<int32_t> o(8, 0);
  Diagnostic d = runChecked(k.fn, {1, 1, 1}, {buf(o), intArg(1 << 30)}, OverflowCheck::Address);
  expectReport(d, sum, "the i32 add 1073741824 + 1073741824 = 2147483648 wraps to -2147483648, and the store");
  d = runChecked(k.fn, {1, 1, 1}, {buf(o), intArg(1 << 29)}, OverflowCheck::Address);
  EXPECT_EQ(d.message, "");
  EXPECT_EQ(o[3], 1);
}

}  // namespace
}  // namespace kiln::interp::test
