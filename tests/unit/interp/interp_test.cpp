// The interpreter on hand-built kernels: a vector add over a grid with a masked tail, memory
// checking (bounds, alignment, masked wild pointers), arguments, control flow, asserts and UB.
#include <cstring>

#include "kernel_builder.h"

namespace kiln::interp::test {
namespace {

constexpr int64_t kBlock = 16;

// out[i] = x[i] + y[i] for i < n, BLOCK elements per program; `masked` = false drops the mask.
struct VecAdd {
  KernelBuilder k{"add_kernel"};
  Value* loadX = nullptr;
  ir::Op* st = nullptr;
  explicit VecAdd(bool masked) {
    Value* x = k.param(Type::ptr(Scalar::F32), "x_ptr");
    Value* y = k.param(Type::ptr(Scalar::F32), "y_ptr");
    Value* out = k.param(Type::ptr(Scalar::F32), "out_ptr");
    Value* n = k.param(sc(Scalar::I32), "n");
    Value* start = k.bin(Opcode::Mul, k.pid(), k.ci(kBlock));
    Value* offs = k.bin(Opcode::Add, k.splat(start, {kBlock}), k.arange(0, kBlock));
    Value* mask = masked ? k.cmp("lt", offs, k.splat(n, {kBlock})) : nullptr;
    loadX = k.load(k.ptrAdd(k.splat(x, {kBlock}), offs), mask);
    Value* yv = k.load(k.ptrAdd(k.splat(y, {kBlock}), offs), mask);
    Value* sum = k.bin(Opcode::Add, loadX, yv);
    st = k.store(k.ptrAdd(k.splat(out, {kBlock}), offs), sum, mask);
    k.ret();
  }
};

TEST(Interp, VectorAddWithMaskedTail) {
  VecAdd va(true);
  const int n = 37;
  std::vector<float> x(n), y(n), out(n + 8, -7.0f);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * float(i), y[i] = 1000.0f + float(i) / 3.0f;
  ArgValue outArg = buf(out);
  outArg.bytes = n * sizeof(float);  // the poison past n lies outside the buffer: never written
  run(va.k.fn, {3, 1, 1}, {buf(x), buf(y), outArg, intArg(n)});
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], x[i] + y[i]) << i;
  for (int i = n; i < n + 8; ++i) EXPECT_EQ(out[i], -7.0f) << i;
}

TEST(Interp, UnmaskedLoadPastTheEndIsAnError) {
  VecAdd va(false);
  const int n = 37;
  std::vector<float> x(n), y(n), out(n);
  Diagnostic d = runExpectingError(va.k.fn, {3, 1, 1}, {buf(x), buf(y), buf(out), intArg(n)});
  EXPECT_NE(d.message.find("kernel 'add_kernel': out-of-bounds load of f32 at program (2, 0, 0), element [5]: "
                           "address 0x"),
            std::string::npos)
      << d.message;
  EXPECT_NE(d.message.find("is outside every buffer argument"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("'x_ptr'"), std::string::npos) << d.message;
  std::string loc = "kern.py:" + std::to_string(va.loadX->def->loc.line) + ":5";
  EXPECT_EQ(d.loc.str(), loc);
  EXPECT_NE(d.render().find(loc + ": error: kernel 'add_kernel'"), std::string::npos) << d.render();
  // Programs 0 and 1 ran completely before program 2 failed.
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], x[i] + y[i]);
}

TEST(Interp, OutOfBoundsStoreNamesTheStore) {
  VecAdd va(false);
  const int n = 32;
  std::vector<float> x(n), y(n), out(n - 1);
  Diagnostic d = runExpectingError(va.k.fn, {2, 1, 1}, {buf(x), buf(y), buf(out), intArg(n)});
  EXPECT_NE(d.message.find("out-of-bounds store of f32 at program (1, 0, 0), element [15]"), std::string::npos)
      << d.message;
  EXPECT_EQ(d.loc.line, va.st->loc.line);
}

TEST(Interp, MaskedOffLanesNeverTouchMemory) {
  // Lanes with offs >= n get a wild offset (2^40 elements); the mask keeps them off memory.
  KernelBuilder k("wild");
  Value* x = k.param(Type::ptr(Scalar::I32), "x");
  Value* out = k.param(Type::ptr(Scalar::I32), "out");
  Value* offs = k.arange(0, 8);
  Value* mask = k.cmp("lt", offs, k.splat(k.ci(5), {8}));
  Value* wild = k.op(Opcode::Select, {mask, k.op(Opcode::Cast, {offs}, ten({8}, Scalar::I64)),
                                      k.splat(k.ci(int64_t(1) << 40, sc(Scalar::I64)), {8})},
                     ten({8}, Scalar::I64));
  Value* v = k.load(k.ptrAdd(k.splat(x, {8}), wild), mask, k.splat(k.ci(-1), {8}));
  Value* v0 = k.load(k.ptrAdd(k.splat(x, {8}), wild), mask);  // no `other`: masked lanes read 0
  k.store(k.ptrAdd(k.splat(out, {8}), offs), k.bin(Opcode::Add, v, v0));
  k.store(k.ptrAdd(k.splat(out, {8}), wild), v, mask);
  k.ret();
  std::vector<int32_t> xs = {10, 20, 30, 40, 50}, o(8, 0);
  run(k.fn, {}, {buf(xs), buf(o)});
  EXPECT_EQ(o, (std::vector<int32_t>{10, 20, 30, 40, 50, -1, -1, -1}));
}

TEST(Interp, MisalignedAccessIsAnError) {
  KernelBuilder k("misaligned");
  Value* x = k.param(Type::ptr(Scalar::F32), "x");
  Value* addr = k.op(Opcode::Bitcast, {x}, sc(Scalar::I64));
  Value* plus2 = k.bin(Opcode::Add, addr, k.ci(2, sc(Scalar::I64)));
  Value* moved = k.op(Opcode::Bitcast, {plus2}, Type::ptr(Scalar::F32));
  Value* v = k.load(moved);
  (void)v;
  k.ret();
  std::vector<float> xs(4);
  Diagnostic d = runExpectingError(k.fn, {}, {buf(xs)});
  EXPECT_NE(d.message.find("misaligned load of f32 at program (0, 0, 0): address 0x"), std::string::npos)
      << d.message;
  EXPECT_NE(d.message.find("is not a multiple of 4"), std::string::npos) << d.message;
  EXPECT_EQ(d.loc.line, v->def->loc.line);
}

TEST(Interp, AccessStraddlingTheEndIsOutOfBounds) {
  // An f32 at byte 6 of an 8-byte buffer: its first bytes are inside, its last are not.
  KernelBuilder k("straddle");
  Value* x = k.param(Type::ptr(Scalar::I16), "x");
  Value* p = k.op(Opcode::Bitcast, {k.ptrAdd(x, k.ci(3))}, sc(Scalar::I64));
  Value* v = k.load(k.op(Opcode::Bitcast, {p}, Type::ptr(Scalar::F32)));
  (void)v;
  k.ret();
  std::vector<int16_t> xs(4);
  Diagnostic d = runExpectingError(k.fn, {}, {buf(xs)});
  EXPECT_NE(d.message.find("out-of-bounds load of f32"), std::string::npos) << d.message;
}

TEST(Interp, GridRunsXFastest) {
  // out[0] = out[0] * 4 + (x + 2y): the final value spells the order programs ran in.
  KernelBuilder k("order");
  Value* out = k.param(Type::ptr(Scalar::I32), "out");
  Value* code = k.bin(Opcode::Add, k.pid(0), k.bin(Opcode::Mul, k.pid(1), k.ci(2)));
  Value* old = k.load(out);
  k.store(out, k.bin(Opcode::Add, k.bin(Opcode::Mul, old, k.ci(4)), code));
  Value* np = k.op(Opcode::NumPrograms, {}, sc(Scalar::I32), {{"axis", int64_t(1)}});
  k.store(k.ptrAdd(out, k.ci(1)), np);
  k.ret();
  std::vector<int32_t> o(2, 0);
  run(k.fn, {2, 2, 1}, {buf(o)});
  EXPECT_EQ(o[0], ((0 * 4 + 1) * 4 + 2) * 4 + 3);
  EXPECT_EQ(o[1], 2);
  o = {5, 0};
  run(k.fn, {0, 2, 1}, {buf(o)});  // an empty grid runs nothing
  EXPECT_EQ(o[0], 5);
}

// Stores a scalar parameter: out[0] = p.
struct StoreParam {
  KernelBuilder k{"param"};
  StoreParam(Scalar t) {
    Value* out = k.param(Type::ptr(t), "out");
    Value* p = k.param(sc(t), "value");
    k.store(out, p);
    k.ret();
  }
};

TEST(Interp, ArgumentsConvertToTheirParameters) {
  {
    StoreParam s(Scalar::I8);
    std::vector<int8_t> o(1);
    run(s.k.fn, {}, {buf(o), intArg(300)});
    EXPECT_EQ(o[0], 44);
  }
  {
    StoreParam s(Scalar::F16);
    std::vector<uint16_t> o(1);
    run(s.k.fn, {}, {buf(o), intArg(2049)});  // Int for a float parameter converts
    EXPECT_EQ(o[0], 0x6800);                  // 2048
    run(s.k.fn, {}, {buf(o), floatArg(1e6)});
    EXPECT_EQ(o[0], 0x7C00);  // inf
  }
}

TEST(Interp, BadArgumentsNameTheParameter) {
  StoreParam s(Scalar::I32);
  std::vector<int32_t> o(1);
  Diagnostic d = runExpectingError(s.k.fn, {}, {buf(o)});
  EXPECT_NE(d.message.find("kernel 'param': expected 2 arguments, got 1"), std::string::npos) << d.message;
  d = runExpectingError(s.k.fn, {}, {buf(o), floatArg(1.5)});
  EXPECT_NE(d.message.find("argument 1 ('value', i32) expects an integer, got a float"), std::string::npos)
      << d.message;
  d = runExpectingError(s.k.fn, {}, {intArg(0), intArg(1)});
  EXPECT_NE(d.message.find("argument 0 ('out', ptr<i32>) expects a buffer"), std::string::npos) << d.message;
  d = runExpectingError(s.k.fn, {}, {buf(o), buf(o)});
  EXPECT_NE(d.message.find("argument 1 ('value', i32) expects a scalar"), std::string::npos) << d.message;
}

TEST(Interp, ForLoopCarriesValuesThroughYield) {
  // for iv in range(0, 10, 3): (a, b, c) = (b, a + iv, a), from (0, 100, 7): the yield passes the
  // loop's own arguments back in another order, which must not overwrite one another.
  KernelBuilder k("loop");
  Value* out = k.param(Type::ptr(Scalar::I32), "out");
  Type i32 = sc(Scalar::I32);
  ir::Op* loop = k.opN(Opcode::For, {k.ci(0), k.ci(10), k.ci(3), k.ci(0), k.ci(100), k.ci(7)}, {i32, i32, i32});
  ir::Block& body = loop->region(0);
  Value* iv = body.addArg(i32);
  Value* a = body.addArg(i32);
  Value* b = body.addArg(i32);
  body.addArg(i32);
  {
    ir::Builder saved = k.b;
    k.b.setInsertionPointToEnd(body);
    Value* s = k.bin(Opcode::Add, a, iv);
    k.opN(Opcode::Yield, {b, s, a}, {});
    k.b = saved;
  }
  for (unsigned r = 0; r < 3; ++r) k.store(k.ptrAdd(out, k.ci(r)), loop->result(r));
  k.ret();
  std::vector<int32_t> o(3);
  run(k.fn, {}, {buf(o)});
  EXPECT_EQ(o, (std::vector<int32_t>{6, 112, 103}));
}

TEST(Interp, NestedLoopsAndAnIfWithoutResults) {
  // acc = 0; for i in range(1, 5): for j in range(0, i): acc += i * j; if i == 3: out[1] = acc
  KernelBuilder k("nested");
  Value* out = k.param(Type::ptr(Scalar::I64), "out");
  ir::Op* outer = k.opN(Opcode::For, {k.ci(1), k.ci(5), k.ci(1), k.ci(0, sc(Scalar::I64))}, {sc(Scalar::I64)});
  ir::Builder saved = k.b;
  Value* i = outer->region(0).addArg(sc(Scalar::I32));
  Value* acc = outer->region(0).addArg(sc(Scalar::I64));
  k.b.setInsertionPointToEnd(outer->region(0));
  ir::Op* inner = k.opN(Opcode::For, {k.ci(0), i, k.ci(1), acc}, {sc(Scalar::I64)});
  {
    ir::Builder mid = k.b;
    Value* j = inner->region(0).addArg(sc(Scalar::I32));
    Value* a = inner->region(0).addArg(sc(Scalar::I64));
    k.b.setInsertionPointToEnd(inner->region(0));
    Value* ij = k.op(Opcode::Cast, {k.bin(Opcode::Mul, i, j)}, sc(Scalar::I64));
    k.opN(Opcode::Yield, {k.bin(Opcode::Add, a, ij)}, {});
    k.b = mid;
  }
  ir::Op* br = k.opN(Opcode::If, {k.cmp("eq", i, k.ci(3))}, {});
  {
    ir::Builder mid = k.b;
    k.b.setInsertionPointToEnd(br->region(0));
    k.store(k.ptrAdd(out, k.ci(1)), inner->result(0));
    k.opN(Opcode::Yield, {}, {});
    k.b.setInsertionPointToEnd(br->region(1));
    k.opN(Opcode::Yield, {}, {});
    k.b = mid;
  }
  k.opN(Opcode::Yield, {inner->result(0)}, {});
  k.b = saved;
  k.store(out, outer->result(0));
  k.ret();
  std::vector<int64_t> o(2, -1);
  run(k.fn, {}, {buf(o)});
  int64_t want = 0, at3 = 0;
  for (int a = 1; a < 5; ++a) {
    for (int b = 0; b < a; ++b) want += a * b;
    if (a == 3) at3 = want;
  }
  EXPECT_EQ(o[0], want);
  EXPECT_EQ(o[1], at3);
}

TEST(Interp, ForLoopWithNonPositiveStepIsAnError) {
  KernelBuilder k("badstep");
  Value* step = k.param(sc(Scalar::I32), "step");
  ir::Op* loop = k.opN(Opcode::For, {k.ci(0), k.ci(10), step}, {});
  {
    ir::Builder saved = k.b;
    loop->region(0).addArg(sc(Scalar::I32));
    k.b.setInsertionPointToEnd(loop->region(0));
    k.opN(Opcode::Yield, {}, {});
    k.b = saved;
  }
  k.ret();
  Diagnostic d = runExpectingError(k.fn, {}, {intArg(0)});
  EXPECT_NE(d.message.find("non-positive step"), std::string::npos) << d.message;
  EXPECT_EQ(d.loc.line, loop->loc.line);
  EXPECT_NO_THROW(run(k.fn, {}, {intArg(4)}));
}

TEST(Interp, WhileLoopCountsCollatzSteps) {
  KernelBuilder k("collatz");
  Value* out = k.param(Type::ptr(Scalar::I32), "out");
  Value* x0 = k.param(sc(Scalar::I32), "x0");
  ir::Op* loop = k.opN(Opcode::While, {x0, k.ci(0)}, {sc(Scalar::I32), sc(Scalar::I32)});
  ir::Builder saved = k.b;
  ir::Block& before = loop->region(0);
  Value* bx = before.addArg(sc(Scalar::I32));
  Value* bs = before.addArg(sc(Scalar::I32));
  k.b.setInsertionPointToEnd(before);
  k.opN(Opcode::Condition, {k.cmp("ne", bx, k.ci(1)), bx, bs}, {});
  ir::Block& after = loop->region(1);
  Value* x = after.addArg(sc(Scalar::I32));
  Value* s = after.addArg(sc(Scalar::I32));
  k.b.setInsertionPointToEnd(after);
  Value* odd = k.cmp("eq", k.bin(Opcode::Rem, x, k.ci(2)), k.ci(1));
  Value* up = k.bin(Opcode::Add, k.bin(Opcode::Mul, x, k.ci(3)), k.ci(1));
  Value* next = k.op(Opcode::Select, {odd, up, k.bin(Opcode::Div, x, k.ci(2))}, sc(Scalar::I32));
  k.opN(Opcode::Yield, {next, k.bin(Opcode::Add, s, k.ci(1))}, {});
  k.b = saved;
  k.store(out, loop->result(1));
  k.ret();
  std::vector<int32_t> o(1);
  run(k.fn, {}, {buf(o), intArg(27)});
  EXPECT_EQ(o[0], 111);
  run(k.fn, {}, {buf(o), intArg(1)});
  EXPECT_EQ(o[0], 0);
}

TEST(Interp, IfSelectsARegionPerProgram) {
  KernelBuilder k("branch");
  Value* out = k.param(Type::ptr(Scalar::F32), "out");
  Value* pid = k.pid();
  ir::Op* br = k.opN(Opcode::If, {k.cmp("eq", pid, k.ci(1))}, {sc(Scalar::F32)});
  ir::Builder saved = k.b;
  k.b.setInsertionPointToEnd(br->region(0));
  k.opN(Opcode::Yield, {k.cf(10.5)}, {});
  k.b.setInsertionPointToEnd(br->region(1));
  k.opN(Opcode::Yield, {k.op(Opcode::Cast, {pid}, sc(Scalar::F32))}, {});
  k.b = saved;
  k.store(k.ptrAdd(out, pid), br->result(0));
  k.ret();
  std::vector<float> o(3);
  run(k.fn, {3, 1, 1}, {buf(o)});
  EXPECT_EQ(o, (std::vector<float>{0.0f, 10.5f, 2.0f}));
}

TEST(Interp, FailedAssertReportsProgramAndMessage) {
  KernelBuilder k("checked");
  Value* n = k.param(sc(Scalar::I32), "n");
  Value* offs = k.bin(Opcode::Add, k.arange(0, 4), k.splat(k.bin(Opcode::Mul, k.pid(), k.ci(4)), {4}));
  ir::Op* as = k.opN(Opcode::Assert, {k.cmp("lt", offs, k.splat(n, {4}))}, {},
                     {{"message", std::string("index out of range")}});
  k.ret();
  EXPECT_NO_THROW(run(k.fn, {2, 1, 1}, {intArg(8)}));
  Diagnostic d = runExpectingError(k.fn, {2, 1, 1}, {intArg(6)});
  EXPECT_EQ(d.message, "kernel 'checked': device assertion failed at program (1, 0, 0): index out of range");
  EXPECT_EQ(d.loc.line, as->loc.line);
}

TEST(Interp, IntegerDivisionByZeroIsDefined) {
  KernelBuilder k("divide");
  Value* x = k.param(Type::ptr(Scalar::I32), "x");
  Value* offs = k.arange(0, 4);
  Value* v = k.load(k.ptrAdd(k.splat(x, {4}), offs));
  Value* q = k.bin(Opcode::Div, k.splat(k.ci(100), {4}), v);
  k.store(k.ptrAdd(k.splat(x, {4}), offs), q);
  k.ret();
  std::vector<int32_t> xs = {1, 3, 7, 10};
  run(k.fn, {}, {buf(xs)});
  EXPECT_EQ(xs, (std::vector<int32_t>{100, 33, 14, 10}));
  xs = {1, 2, 0, 4};
  run(k.fn, {}, {buf(xs)});  // a zero divisor gives -1, as on the GPU, without stopping
  EXPECT_EQ(xs, (std::vector<int32_t>{100, 50, -1, 25}));
}

TEST(Interp, ScalarLoadStoreOfNarrowTypes) {
  // i1 is a byte in memory; f16 and bf16 are stored as their bit patterns.
  KernelBuilder k("narrow");
  Value* b = k.param(Type::ptr(Scalar::I1), "b");
  Value* h = k.param(Type::ptr(Scalar::F16), "h");
  Value* bf = k.param(Type::ptr(Scalar::BF16), "bf");
  Value* bv = k.load(b);
  k.store(k.ptrAdd(b, k.ci(1)), k.op(Opcode::Not, {bv}, sc(Scalar::I1)));
  Value* hv = k.load(h);
  k.store(k.ptrAdd(h, k.ci(1)), k.bin(Opcode::Add, hv, hv));
  Value* widened = k.op(Opcode::Cast, {hv}, sc(Scalar::F32));
  k.store(bf, k.op(Opcode::Cast, {k.bin(Opcode::Mul, widened, k.cf(3.0))}, sc(Scalar::BF16)));
  k.ret();
  std::vector<uint8_t> bs = {7, 9};
  std::vector<uint16_t> hs = {0x3E00, 0}, bfs = {0};  // 1.5
  run(k.fn, {}, {buf(bs), buf(hs), buf(bfs)});
  EXPECT_EQ(bs[1], 0);       // 7 loads as true; not(true) stores as 0
  EXPECT_EQ(hs[1], 0x4200);  // 3.0
  EXPECT_EQ(bfs[0], 0x4090);  // 4.5
}

}  // namespace
}  // namespace kiln::interp::test
