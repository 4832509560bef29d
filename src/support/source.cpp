// SourceFile line lookup and SourceLoc formatting.
#include "support/source.h"

namespace kiln {

std::string_view SourceFile::line(int line) const {
  if (line < 1) return {};
  size_t start = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) return {};
    start = nl + 1;
  }
  size_t end = text.find('\n', start);
  std::string_view v(text);
  v = v.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
  return v;
}

std::string SourceLoc::str() const {
  if (!file) return "<unknown>";
  return file->name + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::shared_ptr<const SourceFile> makeSource(std::string name, std::string text, bool block) {
  auto f = std::make_shared<SourceFile>();
  f->name = std::move(name);
  f->text = std::move(text);
  f->block = block;
  return f;
}

}  // namespace kiln
