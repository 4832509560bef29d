// PEP 263 coding lines in files kiln reads itself (src/driver/source_encoding.h): latin-1 is converted
// to UTF-8 (it used to reach the front end as raw bytes), UTF-8 and undeclared text are left alone, a
// declaration counts on line 2 only after a comment line, and other encodings are refused by name.
#include <gtest/gtest.h>

#include <string>

#include "driver/source_encoding.h"

namespace {

using kiln::decodeDeclaredEncoding;

TEST(SourceEncoding, Latin1IsConvertedToUtf8) {
  for (const char* line : {"# -*- coding: latin-1 -*-\n", "# coding=iso-8859-1\n", "# vim: set fileencoding=latin1 :\n",
                           "#!/usr/bin/env python\n# coding: ISO_8859_1\n"}) {
    std::string text = std::string(line) + "s = 'caf\xE9'\n";
    EXPECT_EQ(decodeDeclaredEncoding(text), std::nullopt) << line;
    EXPECT_EQ(text, std::string(line) + "s = 'caf\xC3\xA9'\n") << line;
  }
}

TEST(SourceEncoding, Utf8AndUndeclaredTextIsLeftAlone) {
  for (const char* src : {"# coding: utf-8\ns = 'caf\xC3\xA9'\n", "s = 'caf\xC3\xA9'\n", "# -*- coding: utf_8 -*-\n",
                          "x = 1\n# coding: latin-1\n"}) {  // line 2 counts only after a comment line
    std::string text = src;
    EXPECT_EQ(decodeDeclaredEncoding(text), std::nullopt) << src;
    EXPECT_EQ(text, src);
  }
}

TEST(SourceEncoding, OtherEncodingsAreRefusedByName) {
  std::string text = "# -*- coding: cp1252 -*-\nx = 1\n";
  std::optional<std::string> why = decodeDeclaredEncoding(text);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("declares the encoding 'cp1252'"), std::string::npos) << *why;
  EXPECT_EQ(text, "# -*- coding: cp1252 -*-\nx = 1\n");
}

}  // namespace
