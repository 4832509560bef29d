// Tokenizer tests: layout (INDENT/DEDENT/NEWLINE, joining), literals, operators and its errors.
#include <gtest/gtest.h>

#include "frontend/lexer.h"
#include "frontend_test_util.h"

namespace kiln::frontend {
namespace {

// Tokens view the file's text, so the file travels with them.
struct Lexed {
  std::shared_ptr<const SourceFile> file;
  std::vector<Token> tokens;
  const Token& operator[](size_t i) const { return tokens.at(i); }
};

Lexed lex(const std::string& text) {
  Lexed l{makeSource("t.py", text), {}};
  l.tokens = tokenize(l.file);
  return l;
}

// One word per token: names and operators as written, NUM/STR with their value, layout tokens.
std::string shape(const std::string& text) {
  std::string out;
  Lexed lexed = lex(text);
  for (const Token& t : lexed.tokens) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokKind::Name:
      case TokKind::Op: out += std::string(t.text); break;
      case TokKind::Number:
        if (t.num == NumKind::Int) out += "INT:" + std::to_string(t.intValue);
        else out += std::string(t.num == NumKind::Float ? "FLOAT:" : "IMAG:") + std::to_string(t.floatValue);
        break;
      case TokKind::String: out += std::string(t.fstring ? "FSTR" : t.bytes ? "BYTES" : "STR") + "<" + t.value + ">"; break;
      case TokKind::Newline: out += "NL"; break;
      case TokKind::Indent: out += "INDENT"; break;
      case TokKind::Dedent: out += "DEDENT"; break;
      case TokKind::End: out += "END"; break;
    }
  }
  return out;
}

test::Err lexError(const std::string& text) {
  try {
    lex(text);
  } catch (const CompileError& e) {
    return {e.diag().loc.line, e.diag().loc.col, e.diag().message};
  }
  return {0, 0, "no error"};
}

TEST(Lexer, IndentDedentAndBlankLines) {
  EXPECT_EQ(shape("if x:\n    y\n\n  # comment only\n    z\nw\n"),
            "if x : NL INDENT y NL z NL DEDENT w NL END");
  EXPECT_EQ(shape("a:\n  b:\n    c\nd"), "a : NL INDENT b : NL INDENT c NL DEDENT DEDENT d NL END");
  EXPECT_EQ(shape("a:\n  b:\n    c\n"), "a : NL INDENT b : NL INDENT c NL DEDENT DEDENT END");
  EXPECT_EQ(shape(""), "END");
  EXPECT_EQ(shape("\n\n   \n# c\n"), "END");
}

TEST(Lexer, TabsIndentToMultiplesOfEight) {
  EXPECT_EQ(shape("if x:\n\ty\n\tz\n"), "if x : NL INDENT y NL z NL DEDENT END");
  EXPECT_EQ(lexError("if x:\n\ty\n        z\n"),
            (test::Err{3, 9, "inconsistent use of tabs and spaces in indentation"}));
  EXPECT_EQ(lexError("if x:\n        y\n\tz\n"),
            (test::Err{3, 2, "inconsistent use of tabs and spaces in indentation"}));
}

TEST(Lexer, ImplicitAndExplicitLineJoining) {
  EXPECT_EQ(shape("f(a,\n     b)\n"), "f ( a , b ) NL END");
  EXPECT_EQ(shape("x = [1,\n# comment\n\n  2]\n"), "x = [ INT:1 , INT:2 ] NL END");
  EXPECT_EQ(shape("x = {\n}\n"), "x = { } NL END");
  EXPECT_EQ(shape("x = 1 + \\\n    2\ny\n"), "x = INT:1 + INT:2 NL y NL END");
  EXPECT_EQ(shape("x = 1 # trailing\n"), "x = INT:1 NL END");
}

TEST(Lexer, CrlfAndMissingFinalNewline) {
  EXPECT_EQ(shape("if x:\r\n    y\r\nz"), "if x : NL INDENT y NL DEDENT z NL END");
  Lexed toks = lex("a\r\n  b = (1,\r\n c)");
  EXPECT_EQ(toks[2].line, 2);
  EXPECT_EQ(toks[2].col, 3);  // b
  EXPECT_EQ(toks[8].line, 3);
  EXPECT_EQ(toks[8].col, 2);  // c
}

TEST(Lexer, Locations) {
  Lexed toks = lex("x  =  foo.bar\n  \n\ty\n");
  ASSERT_GE(toks.tokens.size(), 6u);
  EXPECT_EQ(toks[0].line, 1);
  EXPECT_EQ(toks[0].col, 1);
  EXPECT_EQ(toks[1].col, 4);
  EXPECT_EQ(toks[2].col, 7);
  EXPECT_EQ(toks[3].col, 10);
  EXPECT_EQ(toks[4].col, 11);
  EXPECT_EQ(toks[4].endCol, 14);
  // Columns count characters, not bytes.
  Lexed u = lex("s = 'héllo' + z\n");
  EXPECT_EQ(u[2].value, "héllo");
  EXPECT_EQ(u[4].col, 15);
}

TEST(Lexer, Numbers) {
  EXPECT_EQ(shape("0 7 1_000 0x1F 0XfF 0o17 0b101 0b_1"),
            "INT:0 INT:7 INT:1000 INT:31 INT:255 INT:15 INT:5 INT:1 NL END");
  EXPECT_EQ(shape("1. .5 1.5 1e-3 1E+6 1_0.2_5 0.0 00"),
            "FLOAT:1.000000 FLOAT:0.500000 FLOAT:1.500000 FLOAT:0.001000 FLOAT:1000000.000000 FLOAT:10.250000 "
            "FLOAT:0.000000 INT:0 NL END");
  EXPECT_EQ(shape("1j 2.5J"), "IMAG:1.000000 IMAG:2.500000 NL END");
  EXPECT_EQ(shape("x.y 1if x else 2"), "x . y INT:1 if x else INT:2 NL END");
  EXPECT_EQ(shape("0b1if 0x1for 1else"), "INT:1 if INT:31 or INT:1 else NL END");
  Lexed big = lex("18446744073709551615 18446744073709551616 0x1_0000_0000_0000_0000");
  EXPECT_EQ(big[0].intValue, UINT64_MAX);
  EXPECT_FALSE(big[0].intTooLarge);
  EXPECT_TRUE(big[1].intTooLarge);
  EXPECT_TRUE(big[2].intTooLarge);
}

TEST(Lexer, NumberErrors) {
  EXPECT_EQ(lexError("x = 1__0"), (test::Err{1, 6, "invalid decimal literal"}));
  EXPECT_EQ(lexError("x = 1_"), (test::Err{1, 6, "invalid decimal literal"}));
  EXPECT_EQ(lexError("x = 12abc"), (test::Err{1, 7, "invalid decimal literal"}));
  EXPECT_EQ(lexError("x = 1e"), (test::Err{1, 7, "invalid decimal literal"}));
  EXPECT_EQ(lexError("x = 0x"), (test::Err{1, 7, "invalid hexadecimal literal"}));
  EXPECT_EQ(lexError("x = 0o8"), (test::Err{1, 7, "invalid digit '8' in octal literal"}));
  EXPECT_EQ(lexError("x = 0b102"), (test::Err{1, 9, "invalid digit '2' in binary literal"}));
  EXPECT_EQ(lexError("x = 0777"),
            (test::Err{1, 5, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for "
                             "octal integers"}));
}

TEST(Lexer, Strings) {
  EXPECT_EQ(shape(R"(a = 'x' "y" '''t
r''' """u""")"), "a = STR<x> STR<y> STR<t\nr> STR<u> NL END");
  EXPECT_EQ(shape(R"('a\tb\n\\\'\"\x41\101\u00e9\U0001F600\q')"), "STR<a\tb\n\\'\"AA\u00e9\U0001F600\\q> NL END");
  EXPECT_EQ(shape(R"(r'a\n\'' R"\d" rb'\x00' Br'x' u'\x41')"), "STR<a\\n\\'> STR<\\d> BYTES<\\x00> BYTES<x> STR<A> NL END");
  EXPECT_EQ(shape(R"(b'\x41\n')"), "BYTES<A\n> NL END");
  EXPECT_EQ(shape("'a\\\nb'"), "STR<ab> NL END");  // backslash-newline inside a string
  EXPECT_EQ(shape("'''a\r\nb\rc'''"), "STR<a\nb\nc> NL END");  // source newlines read as \n, as in Python
  EXPECT_EQ(shape("rb x"), "rb x NL END");  // a prefix is only a prefix before a quote
}

TEST(Lexer, FStringsAreOneToken) {
  EXPECT_EQ(shape(R"(f"{x!r:>{width}} {{literal}} {d["k"]} {'}'}" + 1)"), "FSTR<> + INT:1 NL END");
  EXPECT_EQ(shape("F'''{x\n}''' rf'{a}\\d' fR\"\""), "FSTR<> FSTR<> FSTR<> NL END");
  EXPECT_EQ(shape(R"(f"{f'{1}'}")"), "FSTR<> NL END");
}

TEST(Lexer, DeeplyNestedFStringsAreAnErrorNotACrash) {
  auto nest = [](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += "f'{";
    s += "1";
    for (int i = 0; i < n; ++i) s += "}'";
    return s;
  };
  EXPECT_EQ(shape("x = " + nest(50)), "x = FSTR<> NL END");
  EXPECT_EQ(lexError("x = " + nest(100000)), (test::Err{1, 308, "f-string nested too deeply"}));
}

TEST(Lexer, StringErrorsPointAtTheOpeningQuote) {
  EXPECT_EQ(lexError("x = 1\ny = 'abc\n"), (test::Err{2, 5, "unterminated string literal"}));
  EXPECT_EQ(lexError("y = rb\"abc"), (test::Err{1, 7, "unterminated string literal"}));
  EXPECT_EQ(lexError("y = '''abc\n\ndef"), (test::Err{1, 5, "unterminated triple-quoted string literal"}));
  EXPECT_EQ(lexError("y = f'{x'"), (test::Err{1, 9, "unterminated string literal"}));
  EXPECT_EQ(lexError(R"(y = '\x4')"), (test::Err{1, 5, "truncated \\xXX escape"}));
  EXPECT_EQ(lexError("y = b'\xc3\xa9'"), (test::Err{1, 6, "bytes can only contain ASCII literal characters"}));
}

TEST(Lexer, Operators) {
  EXPECT_EQ(shape("** // @ -> := ... **= //= >>= <<= != == <= >= << >> += -= *= /= %= &= |= ^= @= ~ ; ! $"),
            "** // @ -> := ... **= //= >>= <<= != == <= >= << >> += -= *= /= %= &= |= ^= @= ~ ; ! $ NL END");
  EXPECT_EQ(shape("a[::2]"), "a [ : : INT:2 ] NL END");
  EXPECT_EQ(shape("x=-1"), "x = - INT:1 NL END");
}

TEST(Lexer, BracketErrors) {
  EXPECT_EQ(lexError("x = (1,\n  [2, 3\n"), (test::Err{2, 3, "'[' was never closed"}));
  EXPECT_EQ(lexError("x = foo(1\n"), (test::Err{1, 8, "'(' was never closed"}));
  EXPECT_EQ(lexError("x = 1)\n"), (test::Err{1, 6, "unmatched ')'"}));
  EXPECT_EQ(lexError("x = (1]\n"), (test::Err{1, 7, "closing parenthesis ']' does not match opening parenthesis '('"}));
  EXPECT_EQ(lexError("x = (1,\n]\n"),
            (test::Err{2, 1, "closing parenthesis ']' does not match opening parenthesis '(' on line 1"}));
}

TEST(Lexer, LayoutErrors) {
  EXPECT_EQ(lexError("if x:\n    a\n  b\n"), (test::Err{3, 3, "unindent does not match any outer indentation level"}));
  EXPECT_EQ(lexError("x = 1 + \\ 2\n"), (test::Err{1, 10, "unexpected character after line continuation character"}));
  EXPECT_EQ(lexError("x = \\"), (test::Err{1, 5, "unexpected EOF while parsing"}));
  EXPECT_EQ(lexError(std::string("x = 1\0", 6)), (test::Err{1, 6, "source code cannot contain null bytes"}));
  EXPECT_EQ(lexError("x = \x01"), (test::Err{1, 5, "invalid non-printable character U+0001"}));
}

TEST(Lexer, Keywords) {
  EXPECT_TRUE(isKeyword("lambda"));
  EXPECT_TRUE(isKeyword("None"));
  EXPECT_FALSE(isKeyword("match"));
  EXPECT_FALSE(isKeyword("print"));
}

}  // namespace
}  // namespace kiln::frontend
