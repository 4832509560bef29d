// Tests of the signature parser: every entry form of Triton's AOT syntax and every error.
#include <gtest/gtest.h>

#include "sema/signature.h"
#include "support/diagnostic.h"

namespace kiln::sema {
namespace {

using K = SigEntry::Kind;
using L = SigEntry::LitKind;
using S = ir::Scalar;

std::string sigError(const std::string& text) {
  try {
    parseSignature(text);
  } catch (const CompileError& e) {
    EXPECT_FALSE(e.diag().loc.known()) << "signature errors have no source location";
    return e.diag().message;
  }
  ADD_FAILURE() << "expected an error for '" << text << "'";
  return "";
}

TEST(Signature, PointersAndScalars) {
  Signature s = parseSignature("*fp32:16, *fp16, *i8, *bf16, i32, i64:16, u64, fp32, i1");
  ASSERT_EQ(s.entries.size(), 9u);
  EXPECT_EQ(s.entries[0].kind, K::Pointer);
  EXPECT_EQ(s.entries[0].type, S::F32);
  EXPECT_TRUE(s.entries[0].divisibleBy16);
  EXPECT_EQ(s.entries[0].text, "*fp32:16");
  EXPECT_EQ(s.entries[1].type, S::F16);
  EXPECT_FALSE(s.entries[1].divisibleBy16);
  EXPECT_EQ(s.entries[2].type, S::I8);
  EXPECT_EQ(s.entries[3].type, S::BF16);
  EXPECT_EQ(s.entries[4].kind, K::Scalar);
  EXPECT_EQ(s.entries[4].type, S::I32);
  EXPECT_EQ(s.entries[5].type, S::I64);
  EXPECT_TRUE(s.entries[5].divisibleBy16);
  EXPECT_EQ(s.entries[6].type, S::U64);
  EXPECT_EQ(s.entries[7].type, S::F32);
  EXPECT_EQ(s.entries[7].kind, K::Scalar);
  EXPECT_EQ(s.entries[8].type, S::I1);
  EXPECT_EQ(s.text, "*fp32:16, *fp16, *i8, *bf16, i32, i64:16, u64, fp32, i1");
}

TEST(Signature, WhitespaceTolerant) {
  Signature s = parseSignature("  *fp32 : 16 ,i32,\t* f16 ,  u8  ");
  ASSERT_EQ(s.entries.size(), 4u);
  EXPECT_EQ(s.entries[0].kind, K::Pointer);
  EXPECT_TRUE(s.entries[0].divisibleBy16);
  EXPECT_EQ(s.entries[1].type, S::I32);
  EXPECT_EQ(s.entries[2].kind, K::Pointer);
  EXPECT_EQ(s.entries[2].type, S::F16);
  EXPECT_EQ(s.entries[3].type, S::U8);
}

TEST(Signature, EmptyMeansNoParameters) {
  EXPECT_TRUE(parseSignature("").entries.empty());
  EXPECT_TRUE(parseSignature("   ").entries.empty());
}

TEST(Signature, Literals) {
  Signature s = parseSignature("1024, -3, 0.5, True, False, None, \"str\", 'a,b', 1e-3, 3000000000, +7");
  ASSERT_EQ(s.entries.size(), 11u);
  for (const auto& e : s.entries) EXPECT_EQ(e.kind, K::Literal) << e.text;
  EXPECT_EQ(s.entries[0].litKind, L::Int);
  EXPECT_EQ(s.entries[0].intValue, 1024);
  EXPECT_EQ(s.entries[0].type, S::I32);
  EXPECT_EQ(s.entries[1].intValue, -3);
  EXPECT_EQ(s.entries[2].litKind, L::Float);
  EXPECT_DOUBLE_EQ(s.entries[2].floatValue, 0.5);
  EXPECT_EQ(s.entries[2].type, S::F32);
  EXPECT_EQ(s.entries[3].litKind, L::Bool);
  EXPECT_EQ(s.entries[3].intValue, 1);
  EXPECT_EQ(s.entries[3].type, S::I1);
  EXPECT_EQ(s.entries[4].litKind, L::Bool);
  EXPECT_EQ(s.entries[4].intValue, 0);
  EXPECT_EQ(s.entries[5].litKind, L::None);
  EXPECT_EQ(s.entries[6].litKind, L::Str);
  EXPECT_EQ(s.entries[6].strValue, "str");
  EXPECT_EQ(s.entries[7].strValue, "a,b");  // a comma inside a string does not split
  EXPECT_DOUBLE_EQ(s.entries[8].floatValue, 1e-3);
  EXPECT_EQ(s.entries[9].intValue, 3000000000LL);
  EXPECT_EQ(s.entries[9].type, S::I64);
  EXPECT_EQ(s.entries[10].intValue, 7);
}

TEST(Signature, StringEscapes) {
  Signature s = parseSignature(R"("a\"b", 'it\'s', "x\ny")");
  ASSERT_EQ(s.entries.size(), 3u);
  EXPECT_EQ(s.entries[0].strValue, "a\"b");
  EXPECT_EQ(s.entries[1].strValue, "it's");
  EXPECT_EQ(s.entries[2].strValue, "x\ny");
}

TEST(Signature, DtypeNames) {
  EXPECT_EQ(dtypeFromTritonName("fp8e4nv"), S::F8E4M3);
  EXPECT_EQ(dtypeFromTritonName("fp8e5"), S::F8E5M2);
  EXPECT_EQ(dtypeFromTritonName("fp16"), S::F16);
  EXPECT_EQ(dtypeFromTritonName("bf16"), S::BF16);
  EXPECT_EQ(dtypeFromTritonName("fp32"), S::F32);
  EXPECT_EQ(dtypeFromTritonName("fp64"), S::F64);
  EXPECT_EQ(dtypeFromTritonName("i1"), S::I1);
  EXPECT_EQ(dtypeFromTritonName("i16"), S::I16);
  EXPECT_EQ(dtypeFromTritonName("u32"), S::U32);
  EXPECT_EQ(dtypeFromTritonName("f32"), S::F32);  // IR spellings too
  EXPECT_EQ(dtypeFromTritonName("f8e4m3"), S::F8E4M3);
  EXPECT_FALSE(dtypeFromTritonName("i33"));
  EXPECT_FALSE(dtypeFromTritonName("ptr"));
  EXPECT_FALSE(dtypeFromTritonName(""));
  Signature s = parseSignature("*fp8e4nv, fp8e5, *f64, f16");
  EXPECT_EQ(s.entries[0].type, S::F8E4M3);
  EXPECT_EQ(s.entries[1].type, S::F8E5M2);
  EXPECT_EQ(s.entries[2].type, S::F64);
  EXPECT_EQ(s.entries[3].type, S::F16);
}

TEST(Signature, UnknownType) {
  EXPECT_EQ(sigError("*fp32, i32, i33"), "signature entry 3 ('i33'): unknown type 'i33'");
  EXPECT_EQ(sigError("*float"), "signature entry 1 ('*float'): unknown type 'float'");
  EXPECT_EQ(sigError("*"), "signature entry 1 ('*'): expected a type after '*'");
  EXPECT_EQ(sigError("**fp32"), "signature entry 1 ('**fp32'): expected a type after '*'");
  EXPECT_EQ(sigError("i32, nan"), "signature entry 2 ('nan'): unknown type 'nan'");
}

TEST(Signature, EmptyEntries) {
  EXPECT_NE(sigError("*fp32, , i32").find("signature entry 2 (''): empty entry"), std::string::npos);
  EXPECT_NE(sigError("i32,").find("signature entry 2 (''): empty entry"), std::string::npos);
  EXPECT_NE(sigError(",i32").find("signature entry 1 (''): empty entry"), std::string::npos);
}

TEST(Signature, DtypeLiterals) {
  Signature s = parseSignature("*fp32, tl.fp16, tl.i32, tl.bf16");
  ASSERT_EQ(s.entries.size(), 4u);
  EXPECT_EQ(s.entries[1].kind, K::Literal);
  EXPECT_EQ(s.entries[1].litKind, SigEntry::LitKind::DType);
  EXPECT_EQ(s.entries[1].type, S::F16);
  EXPECT_EQ(s.entries[2].type, S::I32);
  EXPECT_EQ(s.entries[3].type, S::BF16);
  EXPECT_NE(sigError("tl.float99").find("unknown dtype 'tl.float99'"), std::string::npos);
}

TEST(Signature, Hints) {
  EXPECT_EQ(sigError("i32:4"),
            "signature entry 1 ('i32:4'): unsupported hint ':4' (':16' and ':8', divisible by 16 or 8, are the hints)");
  EXPECT_NE(sigError("*fp32:1").find("unsupported hint ':1'"), std::string::npos);
  EXPECT_NE(sigError("*fp32:").find("expected '16' or '8' after ':'"), std::string::npos);
  EXPECT_NE(sigError("fp32:8").find("the ':8' hint applies to pointers and integers"), std::string::npos);
  Signature s = parseSignature("*fp16:8, i32:8, i32:16, i32");
  EXPECT_EQ(s.entries[0].divisibility, 8);
  EXPECT_FALSE(s.entries[0].divisibleBy16);
  EXPECT_EQ(s.entries[1].divisibility, 8);
  EXPECT_EQ(s.entries[2].divisibility, 16);
  EXPECT_TRUE(s.entries[2].divisibleBy16);
  EXPECT_EQ(s.entries[3].divisibility, 1);
  EXPECT_NE(sigError("fp32:16").find("applies to pointers and integers"), std::string::npos);
  EXPECT_NE(sigError("i1:16").find("applies to pointers and integers"), std::string::npos);
  EXPECT_NE(sigError("1024:16").find("a literal cannot carry a ':' hint"), std::string::npos);
}

TEST(Signature, TrailingGarbage) {
  EXPECT_EQ(sigError("i32 x"), "signature entry 1 ('i32 x'): unexpected 'x' after 'i32'");
  EXPECT_NE(sigError("*fp32:16 16").find("unexpected '16' after '*fp32:16'"), std::string::npos);
  EXPECT_NE(sigError("\"abc\" d").find("unexpected 'd'"), std::string::npos);
  EXPECT_NE(sigError("True False").find("unexpected 'False'"), std::string::npos);
  EXPECT_NE(sigError("12ab").find("malformed integer literal '12ab'"), std::string::npos);
  EXPECT_NE(sigError("1.5.2").find("malformed number"), std::string::npos);
  EXPECT_NE(sigError("'abc").find("unterminated string literal"), std::string::npos);
  EXPECT_NE(sigError("99999999999999999999").find("does not fit in 64 bits"), std::string::npos);
  EXPECT_NE(sigError("i32; i64").find("signature entry 1"), std::string::npos);
}

}  // namespace
}  // namespace kiln::sema
