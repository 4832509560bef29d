// decodeDeclaredEncoding (source_encoding.h): finds the declaration as Python's tokenizer does (a
// comment line matching `coding[:=]\s*([-\w.]+)`, on line 2 only when line 1 is a comment or blank)
// and normalises its name as Python's get_normal_name does before comparing.
#include "driver/source_encoding.h"

#include <cctype>
#include <string_view>

namespace kiln {

namespace {

// The encoding a comment line declares, or empty.
std::string declaredIn(std::string_view line) {
  size_t i = line.find_first_not_of(" \t\f");
  if (i == std::string_view::npos || line[i] != '#') return {};
  size_t at = line.find("coding", i);
  if (at == std::string_view::npos || at + 6 >= line.size() || (line[at + 6] != ':' && line[at + 6] != '=')) return {};
  size_t start = line.find_first_not_of(" \t", at + 7);
  if (start == std::string_view::npos) return {};
  size_t end = start;
  while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '-' ||
                               line[end] == '_' || line[end] == '.'))
    ++end;
  std::string name(line.substr(start, end - start));
  for (char& c : name) c = c == '_' ? '-' : char(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

bool isCommentOrBlank(std::string_view line) {
  size_t i = line.find_first_not_of(" \t\f\r");
  return i == std::string_view::npos || line[i] == '#';
}

bool startsWith(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

}  // namespace

std::optional<std::string> decodeDeclaredEncoding(std::string& text) {
  std::string_view all(text);
  if (all.substr(0, 3) == "\xEF\xBB\xBF") return std::nullopt;  // a UTF-8 byte order mark decides
  size_t eol1 = all.find('\n');
  std::string_view line1 = all.substr(0, eol1);
  std::string name = declaredIn(line1);
  if (name.empty() && eol1 != std::string_view::npos && isCommentOrBlank(line1))
    name = declaredIn(all.substr(eol1 + 1, all.find('\n', eol1 + 1) - eol1 - 1));
  if (name.empty() || name == "utf-8" || name == "utf8" || startsWith(name, "utf-8-") || name == "ascii" ||
      name == "us-ascii")
    return std::nullopt;
  const bool latin1 = startsWith(name, "latin-1") || startsWith(name, "iso-8859-1") || startsWith(name, "iso-latin-1") ||
                      name == "latin1" || name == "iso8859-1" || name == "l1" || name == "cp819" || name == "latin";
  if (!latin1)
    return "it declares the encoding '" + name + "', which kiln cannot read (it reads UTF-8 and latin-1): save it "
           "as UTF-8";
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (unsigned char c : text) {  // every latin-1 byte is the code point of the same number
    if (c < 0x80) {
      out += char(c);
    } else {
      out += char(0xC0 | (c >> 6));
      out += char(0x80 | (c & 0x3F));
    }
  }
  text = std::move(out);
  return std::nullopt;
}

}  // namespace kiln
