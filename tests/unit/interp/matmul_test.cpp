// A tiled matmul kernel (64x64 tiles, a K loop carrying the accumulator) on the interpreter: the
// result must equal one sequential fused multiply-add chain per element, and run in reasonable time.
#include <chrono>
#include <cmath>
#include <random>

#include "kernel_builder.h"

namespace kiln::interp::test {
namespace {

// [n] offsets -> [R, C] tile: rows * stride + cols.
Value* grid2d(KernelBuilder& k, Value* rows, Value* cols, int64_t stride) {
  int64_t R = rows->type.shape[0], C = cols->type.shape[0];
  Value* r = k.op(Opcode::ExpandDims, {rows}, ten({R, 1}, Scalar::I32), {{"axis", int64_t(1)}});
  Value* c = k.op(Opcode::ExpandDims, {cols}, ten({1, C}, Scalar::I32), {{"axis", int64_t(0)}});
  r = k.bin(Opcode::Mul, r, k.splat(k.ci(stride), {R, 1}));
  return k.bin(Opcode::Add, k.op(Opcode::Broadcast, {r}, ten({R, C}, Scalar::I32)),
               k.op(Opcode::Broadcast, {c}, ten({R, C}, Scalar::I32)));
}

TEST(Matmul, Tiled256IsOneFmaChainPerElement) {
  const int64_t S = 256, T = 64;
  KernelBuilder k("matmul");
  Value* a = k.param(Type::ptr(Scalar::F32), "a");
  Value* b = k.param(Type::ptr(Scalar::F32), "b");
  Value* c = k.param(Type::ptr(Scalar::F32), "c");
  Value* rm = k.bin(Opcode::Add, k.splat(k.bin(Opcode::Mul, k.pid(0), k.ci(T)), {T}), k.arange(0, T));
  Value* rn = k.bin(Opcode::Add, k.splat(k.bin(Opcode::Mul, k.pid(1), k.ci(T)), {T}), k.arange(0, T));
  Value* rk = k.arange(0, T);
  Value* zero = k.op(Opcode::Constant, {}, ten({T, T}, Scalar::F32), {{"value", 0.0}});
  ir::Op* loop = k.opN(Opcode::For, {k.ci(0), k.ci(S), k.ci(T), zero}, {ten({T, T}, Scalar::F32)});
  {
    ir::Builder saved = k.b;
    ir::Block& body = loop->region(0);
    Value* kk = body.addArg(sc(Scalar::I32));
    Value* acc = body.addArg(ten({T, T}, Scalar::F32));
    k.b.setInsertionPointToEnd(body);
    Value* ks = k.bin(Opcode::Add, k.splat(kk, {T}), rk);
    Value* av = k.load(k.ptrAdd(k.splat(a, {T, T}), grid2d(k, rm, ks, S)));
    Value* bv = k.load(k.ptrAdd(k.splat(b, {T, T}), grid2d(k, ks, rn, S)));
    Value* d = k.op(Opcode::Dot, {av, bv, acc}, acc->type, {{"input_precision", std::string("ieee")}});
    k.opN(Opcode::Yield, {d}, {});
    k.b = saved;
  }
  k.store(k.ptrAdd(k.splat(c, {T, T}), grid2d(k, rm, rn, S)), loop->result(0));
  k.ret();

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> A(S * S), B(S * S), C(S * S, std::nanf(""));
  for (float& v : A) v = dist(rng);
  for (float& v : B) v = dist(rng);
  auto t0 = std::chrono::steady_clock::now();
  run(k.fn, {uint32_t(S / T), uint32_t(S / T), 1}, {buf(A), buf(B), buf(C)});
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("seconds", std::to_string(secs));
  for (int64_t m = 0; m < S; ++m)
    for (int64_t n = 0; n < S; ++n) {
      float s = 0;
      for (int64_t i = 0; i < S; ++i) s = std::fma(A[m * S + i], B[i * S + n], s);
      ASSERT_EQ(C[m * S + n], s) << m << "," << n;
    }
  EXPECT_LT(secs, 5.0);  // a generous bound: the loop should take well under a second
}

}  // namespace
}  // namespace kiln::interp::test
