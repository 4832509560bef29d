// Reductions, tl.dot, shape builtins, subscripts, attributes, methods and namespaces.
#include "values_util.h"

namespace kiln::sema::test {
namespace {

using K = SValue::Kind;

class ValuesShape : public Values {};

TEST_F(ValuesShape, SumWidensNarrowIntegers) {
  SValue s = callTl("sum", {tile({128}, Scalar::I8)});
  EXPECT_EQ(ty(s), "i32");
  EXPECT_EQ(last(Opcode::Reduce)->strAttr("kind"), "sum");
  EXPECT_EQ(ty(callTl("sum", {tile({128}, Scalar::U8)})), "u32");
  EXPECT_EQ(ty(callTl("sum", {tile({128}, Scalar::I1)})), "u32");
  EXPECT_EQ(ty(callTl("sum", {tile({128}, Scalar::F16)})), "f16");
  EXPECT_EQ(ty(callTl("sum", {tile({128}, Scalar::I64)})), "i64");
  EXPECT_EQ(ty(callTl("sum", {tile({128}, Scalar::F16)}, {{"dtype", dt("float32")}})), "f32");
  expectValid();
}

TEST_F(ValuesShape, ReduceAxesAndKeepDims) {
  SValue x = tile({16, 32}, Scalar::F32);
  EXPECT_EQ(ty(callTl("sum", {x, I(1)})), "tensor<16xf32>");
  EXPECT_EQ(last(Opcode::Reduce)->intAttr("axis"), 1);
  EXPECT_EQ(ty(callTl("sum", {x}, {{"axis", I(-2)}})), "tensor<32xf32>");
  EXPECT_EQ(last(Opcode::Reduce)->intAttr("axis"), 0);
  EXPECT_EQ(ty(callTl("sum", {x}, {{"axis", I(1)}, {"keep_dims", B(true)}})), "tensor<16x1xf32>");
  SValue all = callTl("sum", {x});  // axis=None flattens first
  EXPECT_EQ(ty(all), "f32");
  EXPECT_EQ(count(Opcode::Reshape), 1);
  EXPECT_EQ(ty(callTl("sum", {x}, {{"keep_dims", B(true)}})), "tensor<1x1xf32>");
  EXPECT_TRUE(has(error([&] { callTl("sum", {x, I(2)}); }), "invalid axis 2"));
  EXPECT_TRUE(has(error([&] { callTl("sum", {scalar(Scalar::F32)}); }), "needs a tensor"));
  expectValid();
}

TEST_F(ValuesShape, MaxMinAndArgmax) {
  EXPECT_EQ(ty(callTl("max", {tile({64}, Scalar::F16)})), "f32");  // narrow types compare in 32 bits
  EXPECT_EQ(ty(callTl("min", {tile({64}, Scalar::I8)}, {{"axis", I(0)}})), "i32");
  EXPECT_EQ(ty(callTl("max", {tile({64}, Scalar::BF16)})), "f32");
  SValue both = callTl("max", {tile({8, 64}, Scalar::I8), I(1)}, {{"return_indices", B(true)}});
  ASSERT_EQ(both.kind, K::Tuple);
  EXPECT_EQ(ty(both.elts[0]), "tensor<8xi8>");
  EXPECT_EQ(ty(both.elts[1]), "tensor<8xi32>");
  SValue am = callTl("argmax", {tile({8, 64}, Scalar::F32), I(1)});
  EXPECT_EQ(ty(am), "tensor<8xi32>");
  EXPECT_EQ(last(Opcode::Reduce)->strAttr("kind"), "argmax");
  EXPECT_EQ(ty(method(tile({8, 64}, Scalar::F32), "argmin", {I(0)}, {{"keep_dims", B(true)}})), "tensor<1x64xi32>");
  EXPECT_TRUE(has(error([&] { callTl("argmax", {tile({8}, Scalar::F32)}); }), "missing required argument 'axis'"));
  expectValid();
}

TEST_F(ValuesShape, Dot) {
  SValue a = tile({64, 32}, Scalar::F16), b = tile({32, 16}, Scalar::F16);
  SValue c = callTl("dot", {a, b});
  EXPECT_EQ(ty(c), "tensor<64x16xf32>");
  const ir::Op* d = last(Opcode::Dot);
  EXPECT_EQ(d->operand(2)->def->opcode, Opcode::Constant);  // zero accumulator
  EXPECT_FALSE(d->hasAttr("input_precision"));
  EXPECT_EQ(ty(callTl("dot", {a, b}, {{"out_dtype", dt("float16")}})), "tensor<64x16xf16>");
  SValue f = tile({32, 32}, Scalar::F32);
  callTl("dot", {f, f});
  EXPECT_EQ(last(Opcode::Dot)->strAttr("input_precision"), "tf32");
  callTl("dot", {f, f}, {{"allow_tf32", B(false)}});
  EXPECT_EQ(last(Opcode::Dot)->strAttr("input_precision"), "ieee");
  SValue acc = tile({32, 32}, Scalar::F32);
  EXPECT_EQ(callTl("dot", {f, f, acc}, {{"input_precision", S("tf32x3")}}).ir->def->operand(2), acc.ir);
  SValue q = tile({32, 64}, Scalar::I8);
  EXPECT_EQ(ty(callTl("dot", {q, tile({64, 32}, Scalar::I8)})), "tensor<32x32xi32>");
  EXPECT_EQ(ty(callTl("dot", {tile({2, 16, 16}, Scalar::BF16), tile({2, 16, 32}, Scalar::BF16)})), "tensor<2x16x32xf32>");

  EXPECT_EQ(error([&] { callTl("dot", {tile({64, 32}, Scalar::F16), tile({16, 64}, Scalar::F16)}); }),
            "incompatible dimensions for dot: a is [M,K]=[64,32], b is [16,64]");
  EXPECT_TRUE(has(error([&] { callTl("dot", {a, tile({32, 16}, Scalar::F32)}); }), "must have the same dtype, got f16 and f32"));
  // Any M, N, K, as Triton's interpreter allows (the GPU falls back to FMA below the mma tiles).
  EXPECT_EQ(ty(callTl("dot", {tile({8, 32}, Scalar::F16), b})), "tensor<8x16xf32>");
  EXPECT_EQ(ty(callTl("dot", {tile({1, 2}, Scalar::I8), tile({2, 1}, Scalar::I8)})), "tensor<1x1xi32>");
  EXPECT_EQ(ty(callTl("dot", {tile({2, 1, 4}, Scalar::F32), tile({2, 4, 2}, Scalar::F32)})), "tensor<2x1x2xf32>");
  // An f16 accumulator without out_dtype makes the result f16 (Triton takes the accumulator's type).
  SValue h = tile({64, 16}, Scalar::F16);
  EXPECT_EQ(callTl("dot", {a, b, h}).ir->def->operand(2), h.ir);
  EXPECT_TRUE(has(error([&] { callTl("dot", {a, b, tile({64, 16}, Scalar::F16)}, {{"out_dtype", dt("float32")}}); }),
                  "accumulator must be a tensor<64x16xf32>"));
  EXPECT_TRUE(has(error([&] { callTl("dot", {a, b, tile({64, 16}, Scalar::I32)}); }), "accumulator must be a tensor<64x16xf32>"));
  EXPECT_TRUE(has(error([&] { callTl("dot", {tile({64}, Scalar::F16), b}); }), "both be 2-D or both 3-D"));
  EXPECT_TRUE(has(error([&] { callTl("dot", {f, f}, {{"input_precision", S("bf16x9")}}); }), "input_precision"));
  EXPECT_TRUE(has(error([&] { callTl("dot", {a, b}, {{"out_dtype", dt("bfloat16")}}); }), "bfloat16 is unsupported"));
  expectValid();
}

TEST_F(ValuesShape, Subscripts) {
  SValue x = tile({128}, Scalar::I32);
  EXPECT_EQ(ty(subscript(cx, x, {SValue::slice(), SValue::none()}, loc)), "tensor<128x1xi32>");
  EXPECT_EQ(ty(subscript(cx, x, {SValue::none(), SValue::slice()}, loc)), "tensor<1x128xi32>");
  EXPECT_EQ(ty(subscript(cx, x, {SValue::none()}, loc)), "tensor<1x128xi32>");
  SValue m = tile({4, 8}, Scalar::F32);
  EXPECT_EQ(ty(subscript(cx, m, {SValue::slice(), SValue::none(), SValue::slice()}, loc)), "tensor<4x1x8xf32>");
  EXPECT_EQ(ty(subscript(cx, scalar(Scalar::I32), {SValue::none()}, loc)), "tensor<1xi32>");
  EXPECT_TRUE(has(error([&] { subscript(cx, x, {SValue::slice(), SValue::slice()}, loc); }), "too many indices"));
  EXPECT_TRUE(has(error([&] { subscript(cx, x, {I(0)}, loc); }), "unsupported tensor index"));
  SValue t = Tup({I(10), I(20), I(30)});
  EXPECT_EQ(subscript(cx, t, {I(-1)}, loc).i, 30);
  SValue tail;
  tail.kind = K::Slice;
  tail.elts = {I(1), SValue::none(), SValue::none()};
  EXPECT_EQ(subscript(cx, t, {tail}, loc).elts.size(), 2u);
  EXPECT_TRUE(has(error([&] { subscript(cx, t, {I(3)}, loc); }), "out of range"));
  expectValid();
}

TEST_F(ValuesShape, ShapeBuiltins) {
  SValue x = tile({128}, Scalar::F32);
  EXPECT_EQ(ty(callTl("reshape", {x, I(16), I(8)})), "tensor<16x8xf32>");
  EXPECT_EQ(ty(method(x, "reshape", {Tup({I(8), I(16)})})), "tensor<8x16xf32>");
  EXPECT_TRUE(has(error([&] { callTl("reshape", {x, I(16), I(16)}); }), "cannot change the number of elements"));
  SValue m = tile({16, 32}, Scalar::F32);
  SValue t = callTl("permute", {m, I(1), I(0)});
  EXPECT_EQ(ty(t), "tensor<32x16xf32>");
  EXPECT_EQ(t.ir->def->listAttr("order"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ty(callTl("trans", {m})), "tensor<32x16xf32>");
  EXPECT_EQ(ty(attribute(cx, m, "T", loc)), "tensor<32x16xf32>");
  EXPECT_TRUE(has(error([&] { callTl("permute", {m, Tup({I(0), I(0)})}); }), "permutation"));
  EXPECT_EQ(ty(callTl("expand_dims", {tile({8}, Scalar::I32), Tup({I(0), I(2)})})), "tensor<1x8x1xi32>");
  EXPECT_EQ(ty(callTl("expand_dims", {tile({8}, Scalar::I32), I(-1)})), "tensor<8x1xi32>");
  EXPECT_TRUE(has(error([&] { callTl("expand_dims", {tile({8}, Scalar::I32), Tup({I(0), I(0)})}); }),
                  "duplicate axes, normalized axes = [0, 0]"));
  EXPECT_EQ(ty(callTl("broadcast_to", {tile({1, 8}, Scalar::I32), I(4), I(8)})), "tensor<4x8xi32>");
  SValue both = callTl("broadcast", {tile({4, 1}, Scalar::I32), tile({8}, Scalar::I32)});
  ASSERT_EQ(both.kind, K::Tuple);
  EXPECT_EQ(ty(both.elts[1]), "tensor<4x8xi32>");
  EXPECT_EQ(ty(callTl("ravel", {m})), "tensor<512xf32>");
  expectValid();
}

TEST_F(ValuesShape, TensorAttributesAndMethods) {
  SValue p = ptrs({64}, Scalar::F16);
  SValue d = attribute(cx, p, "dtype", loc);
  ASSERT_EQ(d.kind, K::Dtype);
  EXPECT_TRUE(d.type.isPtr());
  SValue e = attribute(cx, d, "element_ty", loc);
  EXPECT_EQ(e.describe(), "tl.float16");
  EXPECT_EQ(call(attribute(cx, e, "is_fp16", loc), {}).i, 1);
  EXPECT_EQ(call(attribute(cx, e, "is_floating", loc), {}).kind, K::Bool);
  EXPECT_EQ(attribute(cx, e, "primitive_bitwidth", loc).i, 16);
  SValue x = tile({4, 8}, Scalar::I32);
  SValue shape = attribute(cx, x, "shape", loc);
  ASSERT_EQ(shape.kind, K::Tuple);
  EXPECT_EQ(shape.elts[1].i, 8);
  EXPECT_EQ(attribute(cx, x, "numel", loc).i, 32);
  EXPECT_EQ(attribute(cx, attribute(cx, x, "type", loc), "element_ty", loc).describe(), "tl.int32");
  EXPECT_EQ(call(attribute(cx, attribute(cx, x, "type", loc), "is_block", loc), {}).i, 1);
  EXPECT_EQ(ty(method(x, "to", {dt("float32")})), "tensor<4x8xf32>");
  EXPECT_EQ(ty(method(x, "sum", {}, {{"axis", I(0)}})), "tensor<8xi32>");
  EXPECT_EQ(ty(method(x, "expand_dims", {I(0)})), "tensor<1x4x8xi32>");
  EXPECT_EQ(ty(method(tile({8}, Scalar::F32), "exp", {})), "tensor<8xf32>");
  EXPECT_TRUE(has(error([&] { attribute(cx, x, "sizes", loc); }), "has no attribute 'sizes'"));
  EXPECT_TRUE(has(error([&] { attribute(cx, e, "element_ty", loc); }), "has no attribute 'element_ty'"));
  expectValid();
}

TEST_F(ValuesShape, Namespaces) {
  SValue load = tl("load");
  EXPECT_EQ(load.kind, K::Builtin);
  EXPECT_EQ(load.str, "triton.language.load");
  EXPECT_EQ(attribute(cx, tl("math"), "rsqrt", loc).str, "triton.language.math.rsqrt");
  EXPECT_EQ(tl("bfloat16").type.str(), "bf16");
  EXPECT_EQ(tl("float8e4nv").type.str(), "f8e4m3");
  EXPECT_EQ(error([&] { tl("lod"); }), "module 'triton.language' has no attribute 'lod'; did you mean 'load'?");
  EXPECT_EQ(tl("float8e4b15").type.str(), "f8e4b15");
  EXPECT_EQ(tl("float8e5b16").type.str(), "f8e5b16");
  EXPECT_TRUE(has(error([&] { tl("void"); }), "not supported by kiln"));
  EXPECT_TRUE(has(error([&] { attribute(cx, tl("math"), "load", loc); }), "module 'triton.language.math' has no"));
  SValue out;
  ASSERT_TRUE(resolveImportPath("triton.language", out));
  EXPECT_EQ(out.kind, K::Namespace);
  ASSERT_TRUE(resolveImportPath("kiln.language", out));
  EXPECT_EQ(out.str, "triton.language");
  ASSERT_TRUE(resolveImportPath("triton.jit", out));
  EXPECT_EQ(out.kind, K::Builtin);
  EXPECT_EQ(out.str, "triton.jit");
  ASSERT_TRUE(resolveImportPath("triton.language.constexpr", out));
  EXPECT_EQ(out.str, "triton.language.constexpr");
  ASSERT_TRUE(resolveImportPath("triton.language.float32", out));
  EXPECT_EQ(out.kind, K::Dtype);
  ASSERT_TRUE(resolveImportPath("triton.language.math", out));
  EXPECT_EQ(out.kind, K::Namespace);
  EXPECT_FALSE(resolveImportPath("numpy", out));
  EXPECT_FALSE(resolveImportPath("triton.language.nosuch", out));
  EXPECT_EQ(call(tl("constexpr"), {I(4)}).i, 4);
  EXPECT_TRUE(has(error([&] { call(tl("constexpr"), {scalar(Scalar::I32)}); }), "needs a compile-time value"));
  EXPECT_TRUE(has(error([&] { call(SValue::builtin("triton.jit"), {}); }), "decorator"));
}

}  // namespace
}  // namespace kiln::sema::test
