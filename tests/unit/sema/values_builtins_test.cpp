// tl builtins: program ids, arange, full/zeros, load/store, where, casts, hints, math, Python builtins.
#include <cmath>

#include "values_util.h"

namespace kiln::sema::test {
namespace {

using K = SValue::Kind;

class ValuesBuiltins : public Values {};

TEST_F(ValuesBuiltins, ProgramIdAndArange) {
  SValue pid = callTl("program_id", {I(1)});
  EXPECT_EQ(ty(pid), "i32");
  EXPECT_EQ(pid.ir->def->intAttr("axis"), 1);
  EXPECT_TRUE(has(error([&] { callTl("program_id", {I(3)}); }), "tl.program_id axis must be 0, 1, or 2 but got 3"));
  EXPECT_TRUE(has(error([&] { callTl("num_programs", {pid}); }), "must be a constexpr int"));
  SValue r = callTl("arange", {I(0), I(128)});
  EXPECT_EQ(ty(r), "tensor<128xi32>");
  EXPECT_EQ(callTl("arange", {I(16), I(32)}, {}).ir->def->intAttr("start"), 16);
  EXPECT_EQ(error([&] { callTl("arange", {I(0), I(100)}); }), "arange's range must be a power of 2, got 100");
  EXPECT_TRUE(has(error([&] { callTl("arange", {I(8), I(8)}); }), "must be greater than the start"));
  EXPECT_TRUE(has(error([&] { callTl("arange", {I(0)}); }), "missing required argument 'end'"));
  EXPECT_TRUE(has(error([&] { callTl("arange", {I(0), I(8)}, {{"step", I(1)}}); }), "unexpected keyword argument 'step'"));
  expectValid();
}

TEST_F(ValuesBuiltins, FullAndZeros) {
  SValue z = callTl("zeros", {Tup({I(16), I(32)}), dt("float16")});
  EXPECT_EQ(ty(z), "tensor<16x32xf16>");
  EXPECT_EQ(z.ir->def->opcode, Opcode::Constant);
  EXPECT_EQ(z.ir->def->floatAttr("value"), 0.0);
  SValue f = callTl("full", {Tup({I(8)}), I(7), dt("int8")});
  EXPECT_EQ(f.ir->def->intAttr("value"), 7);
  SValue n = scalar(Scalar::I32);
  EXPECT_EQ(ty(callTl("full", {Tup({I(8)}), n, dt("float32")})), "tensor<8xf32>");  // cast + splat
  EXPECT_EQ(ty(callTl("zeros_like", {tile({4, 4}, Scalar::BF16)})), "tensor<4x4xbf16>");
  EXPECT_TRUE(has(error([&] { callTl("full", {Tup({I(3)}), I(1), dt("int32")}); }), "must be a power of 2, got 3"));
  EXPECT_TRUE(has(error([&] { callTl("full", {Tup({I(4)}), I(300), dt("int8")}); }), "out of range"));
  EXPECT_TRUE(has(error([&] { callTl("zeros", {I(8), dt("int8")}); }), "must be a tuple"));
  EXPECT_TRUE(has(error([&] { callTl("zeros", {Tup({I(1 << 21)}), dt("int8")}); }), "maximum"));
  expectValid();
}

TEST_F(ValuesBuiltins, Load) {
  SValue p = ptrs({128}, Scalar::F16);
  SValue m = tile({128}, Scalar::I1);
  SValue x = callTl("load", {p}, {{"mask", m}, {"other", I(0)}, {"cache_modifier", S(".cg")}});
  EXPECT_EQ(ty(x), "tensor<128xf16>");
  const ir::Op* ld = last(Opcode::Load);
  ASSERT_EQ(ld->numOperands(), 3u);
  EXPECT_EQ(ld->operand(2)->type.str(), "tensor<128xf16>");
  EXPECT_EQ(ld->strAttr("cache"), "cg");
  SValue s = callTl("load", {val(Type::ptr(Scalar::I32))}, {{"volatile", B(true)}, {"eviction_policy", S("evict_last")}});
  EXPECT_EQ(ty(s), "i32");
  EXPECT_EQ(last(Opcode::Load)->intAttr("volatile"), 1);
  EXPECT_EQ(last(Opcode::Load)->strAttr("evict"), "evict_last");
  // mask and pointer broadcast to one shape
  SValue col = ptrs({16, 1}, Scalar::F32);
  EXPECT_EQ(ty(callTl("load", {col, tile({1, 32}, Scalar::I1)})), "tensor<16x32xf32>");
  // bool pointers read bytes
  EXPECT_EQ(ty(callTl("load", {ptrs({8}, Scalar::I1)})), "tensor<8xi1>");
  EXPECT_EQ(last(Opcode::Load)->result()->type.str(), "tensor<8xi8>");
  std::string e = error([&] { callTl("load", {tile({8}, Scalar::I32)}); });
  EXPECT_TRUE(has(e, "tl.load expects a pointer or a tensor of pointers, got a tensor<8xi32>")) << e;
  EXPECT_TRUE(has(error([&] { callTl("load", {p}, {{"other", I(0)}}); }), "'other' cannot be given without 'mask'"));
  EXPECT_TRUE(has(error([&] { callTl("load", {p}, {{"cache_modifier", S(".xx")}}); }), "cache_modifier '.xx'"));
  EXPECT_TRUE(has(error([&] { callTl("load", {p}, {{"mask", tile({128}, Scalar::I32)}}); }), "boolean"));
  EXPECT_TRUE(has(error([&] { callTl("load", {p}, {{"boundary_check", Tup({I(0)})}}); }), "block pointers"));
  expectValid();
}

TEST_F(ValuesBuiltins, Store) {
  SValue p = ptrs({64}, Scalar::F16);
  SValue v = tile({64}, Scalar::F32);
  EXPECT_EQ(callTl("store", {p, v}, {{"mask", tile({64}, Scalar::I1)}}).kind, K::None);
  const ir::Op* st = last(Opcode::Store);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->numOperands(), 3u);
  EXPECT_EQ(st->operand(1)->type.str(), "tensor<64xf16>");  // cast to the pointee type
  callTl("store", {p, F(1.0)}, {{"cache_modifier", S(".wb")}});  // a number broadcast to the pointer shape
  EXPECT_EQ(last(Opcode::Store)->strAttr("cache"), "wb");
  method(p, "store", {I(0)});
  EXPECT_EQ(count(Opcode::Store), 3);
  EXPECT_TRUE(has(error([&] { callTl("store", {p, tile({128}, Scalar::F32)}); }), "does not broadcast to the pointer shape"));
  EXPECT_TRUE(has(error([&] { callTl("store", {tile({64}, Scalar::F32), v}); }), "tl.store expects a pointer"));
  EXPECT_TRUE(has(error([&] { callTl("store", {val(Type::ptr(Scalar::F32)), v}); }), "must be a scalar"));
  expectValid();
}

TEST_F(ValuesBuiltins, WhereAndCasts) {
  SValue c = tile({32}, Scalar::I1);
  SValue x = tile({32}, Scalar::F16);
  EXPECT_EQ(ty(callTl("where", {c, x, F(0.0)})), "tensor<32xf16>");
  EXPECT_EQ(ty(callTl("where", {scalar(Scalar::I1), x, tile({32}, Scalar::F32)})), "tensor<32xf32>");
  SValue h = method(tile({8}, Scalar::F32), "to", {dt("float16")}, {{"fp_downcast_rounding", S("rtz")}});
  EXPECT_EQ(ty(h), "tensor<8xf16>");
  EXPECT_EQ(last(Opcode::Cast)->strAttr("rounding"), "rtz");
  SValue bits = callTl("cast", {tile({8}, Scalar::F32), dt("int32")}, {{"bitcast", B(true)}});
  EXPECT_EQ(last(Opcode::Bitcast)->result(), bits.ir);
  EXPECT_TRUE(has(error([&] { callTl("cast", {tile({8}, Scalar::F32), dt("int16")}, {{"bitcast", B(true)}}); }),
                  "cannot bitcast f32 (32 bits) to i16 (16 bits)"));
  EXPECT_TRUE(has(error([&] { method(tile({8}, Scalar::I32), "to", {dt("float32")}, {{"fp_downcast_rounding", S("rtz")}}); }),
                  "fp_downcast_rounding applies only"));
  SValue b = method(tile({8}, Scalar::F32), "to", {dt("int1")});  // x != 0
  EXPECT_EQ(b.ir->def->opcode, Opcode::Cmp);
  SValue addr = method(val(Type::ptr(Scalar::F32)), "to", {dt("int64")});
  EXPECT_EQ(addr.ir->def->opcode, Opcode::Bitcast);
  expectValid();
}

TEST_F(ValuesBuiltins, HintsAndAsserts) {
  SValue x = tile({64}, Scalar::I32);
  SValue y = callTl("multiple_of", {x, I(16)});
  EXPECT_EQ(y.ir->def->listAttr("values"), std::vector<int64_t>{16});
  callTl("max_contiguous", {y, Tup({I(64)})});
  EXPECT_EQ(count(Opcode::MaxContiguous), 1);
  EXPECT_EQ(ty(callTl("multiple_of", {scalar(Scalar::I32), I(8)})), "i32");
  EXPECT_TRUE(has(error([&] { callTl("max_contiguous", {scalar(Scalar::I32), I(8)}); }), "needs a tensor"));
  EXPECT_TRUE(has(error([&] { callTl("multiple_of", {x, Tup({I(1), I(2)})}); }), "values has 2 entries"));
  EXPECT_EQ(callTl("static_assert", {B(true)}).kind, K::None);
  EXPECT_NO_THROW(callTl("static_assert", {bin(ast::BinOp::Add, I(1), I(1)), S("BLOCK too small")}));
  EXPECT_EQ(error([&] { callTl("static_assert", {B(false), S("BLOCK too small")}); }), "static_assert failed: BLOCK too small");
  EXPECT_TRUE(has(error([&] { callTl("static_assert", {x}); }), "must be a constexpr"));
  callTl("device_assert", {cmp(ast::CmpOp::Lt, x, I(10)), S("x out of range")});
  EXPECT_EQ(last(Opcode::Assert)->strAttr("message"), "x out of range");
  expectValid();
}

TEST_F(ValuesBuiltins, StaticPrintWritesToStderr) {
  testing::internal::CaptureStderr();
  callTl("static_print", {S("BLOCK ="), I(128), F(0.5), Tup({I(1), I(2)})});
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "BLOCK = 128 0.5 (1, 2)\n");
}

TEST_F(ValuesBuiltins, Math) {
  SValue x = tile({16}, Scalar::F32);
  EXPECT_EQ(ty(callTl("exp", {x})), "tensor<16xf32>");
  EXPECT_EQ(ty(call(attribute(cx, tl("math"), "exp2", loc), {x})), "tensor<16xf32>");
  EXPECT_EQ(last(Opcode::Exp2)->result()->type.str(), "tensor<16xf32>");
  EXPECT_TRUE(has(error([&] { callTl("exp", {tile({16}, Scalar::F16)}); }), "expects f32 or f64 values"));
  callTl("sqrt_rn", {x});
  EXPECT_EQ(last(Opcode::Sqrt)->strAttr("rounding"), "rn");
  SValue u = tile({16}, Scalar::U32);
  EXPECT_EQ(callTl("abs", {u}).ir, u.ir);  // unsigned abs is a no-op
  EXPECT_EQ(ty(callTl("abs", {tile({16}, Scalar::I8)})), "tensor<16xi8>");
  EXPECT_EQ(ty(callTl("fma", {x, x, F(1.0)})), "tensor<16xf32>");
  SValue mx = callTl("maximum", {x, F(0.0)}, {{"propagate_nan", attribute(cx, tl("PropagateNan"), "ALL", loc)}});
  EXPECT_EQ(mx.ir->def->intAttr("propagate_nan"), 1);
  EXPECT_EQ(ty(callTl("minimum", {tile({16}, Scalar::I32), I(3)})), "tensor<16xi32>");
  EXPECT_EQ(ty(callTl("clamp", {x, F(-1.0), F(1.0)})), "tensor<16xf32>");
  EXPECT_TRUE(has(error([&] { callTl("clamp", {tile({16}, Scalar::I32), I(0), I(1)}); }), "floating-point"));
  int exps = count(Opcode::Exp);
  EXPECT_EQ(ty(callTl("sigmoid", {x})), "tensor<16xf32>");
  EXPECT_EQ(count(Opcode::Exp), exps + 1);
  EXPECT_EQ(ty(callTl("umulhi", {u, u})), "tensor<16xu32>");
  EXPECT_EQ(ty(callTl("fdiv", {x, x}, {{"ieee_rounding", B(true)}})), "tensor<16xf32>");
  EXPECT_EQ(last(Opcode::Div)->strAttr("rounding"), "rn");
  EXPECT_EQ(ty(callTl("softmax", {tile({8, 16}, Scalar::F32)}, {{"dim", I(1)}, {"keep_dims", B(true)}})), "tensor<8x16xf32>");
  expectValid();
}

TEST_F(ValuesBuiltins, CdivAndNextPowerOf2) {
  EXPECT_EQ(callTl("cdiv", {I(10), I(3)}).i, 4);
  EXPECT_EQ(callTl("cdiv", {I(-10), I(3)}).i, -3);
  SValue n = scalar(Scalar::I32);
  EXPECT_EQ(ty(callTl("cdiv", {n, I(128)})), "i32");
  SValue triton = SValue::ns("triton");
  EXPECT_EQ(call(attribute(cx, triton, "next_power_of_2", loc), {I(100)}).i, 128);
  EXPECT_EQ(call(attribute(cx, triton, "next_power_of_2", loc), {I(64)}).i, 64);
  EXPECT_EQ(call(attribute(cx, triton, "cdiv", loc), {I(1000), I(128)}).i, 8);
  expectValid();
}

TEST_F(ValuesBuiltins, PythonBuiltins) {
  auto py = [&](const char* name) {
    SValue b;
    EXPECT_TRUE(lookupPythonBuiltin(name, b)) << name;
    return b;
  };
  EXPECT_EQ(call(py("min"), {I(3), I(1), I(2)}).i, 1);
  EXPECT_EQ(call(py("max"), {Tup({I(3), F(7.5), I(2)})}).f, 7.5);
  SValue x = tile({8}, Scalar::F32);
  EXPECT_EQ(ty(call(py("max"), {x, F(0.0)})), "tensor<8xf32>");
  EXPECT_EQ(count(Opcode::Max), 1);
  EXPECT_TRUE(std::isinf(call(py("float"), {S("-inf")}).f));
  EXPECT_TRUE(std::isnan(call(py("float"), {S("nan")}).f));
  EXPECT_EQ(call(py("int"), {F(-3.9)}).i, -3);
  EXPECT_EQ(call(py("int"), {S("42")}).i, 42);
  EXPECT_EQ(call(py("bool"), {I(0)}).kind, K::Bool);
  EXPECT_EQ(call(py("abs"), {I(-4)}).i, 4);
  EXPECT_EQ(call(py("len"), {Tup({I(1), I(2)})}).i, 2);
  // print in a kernel is tl.device_print: its first argument is the prefix.
  EXPECT_EQ(error([&] { call(py("print"), {I(1)}); }),
            "print(): the prefix (the first argument) must be a constexpr string, got the constexpr 1");
  EXPECT_TRUE(has(error([&] { call(py("range"), {I(4)}); }), "iterable of a for loop"));
  EXPECT_TRUE(has(error([&] { call(py("isinstance"), {I(4), I(4)}); }), "isinstance(): kiln knows the classes"));
  EXPECT_TRUE(has(error([&] { call(py("float"), {x}); }), "needs a compile-time value"));
  SValue none;
  EXPECT_FALSE(lookupPythonBuiltin("open", none));
  expectValid();
}

TEST_F(ValuesBuiltins, UnsupportedBuiltinsSaySo) {
  SValue lgamma = attribute(cx, SValue::ns("triton.language.extra.libdevice"), "lgamma", loc);
  std::string e = error([&] { call(lgamma, {I(1)}); });
  EXPECT_EQ(e, "libdevice.lgamma is not supported by kiln (docs/language.md lists the supported builtins)");
  EXPECT_TRUE(has(error([&] { callTl("range", {I(8)}); }), "iterable of a for loop"));
}

}  // namespace
}  // namespace kiln::sema::test
