// The text form of a LinearLayout, `{register=[[0,1]], lane=[], warp=[]} -> [dim0=1, dim1=2]`, and its
// parser (parse(str(L)) == L). GPU IR types carry layouts in this form.
#include <cctype>

#include "layout/linear_layout.h"
#include "support/diagnostic.h"

namespace kiln::layout {

std::string LinearLayout::str() const {
  std::string s = "{";
  for (size_t i = 0; i < ins_.size(); ++i) {
    if (i) s += ", ";
    s += ins_[i].name + "=[";
    for (size_t b = 0; b < ins_[i].bases.size(); ++b) {
      if (b) s += ",";
      s += "[";
      for (size_t j = 0; j < ins_[i].bases[b].size(); ++j) {
        if (j) s += ",";
        s += std::to_string(ins_[i].bases[b][j]);
      }
      s += "]";
    }
    s += "]";
  }
  s += "} -> [";
  for (size_t j = 0; j < outs_.size(); ++j) {
    if (j) s += ", ";
    s += outs_[j].name + "=" + std::to_string(outs_[j].size);
  }
  return s + "]";
}

namespace {

// A cursor over the text; every error names the 1-based column where parsing stopped.
class TextParser {
 public:
  explicit TextParser(std::string_view text) : text_(text) {}

  [[noreturn]] void error(const std::string& what) const {
    throw CompileError(SourceLoc{}, "malformed layout at column " + std::to_string(pos_ + 1) + ": " + what +
                                        " in '" + std::string(text_) + "'");
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  void expect(std::string_view token) {
    if (!accept(token)) error("expected '" + std::string(token) + "'");
  }

  std::string name() {
    skipSpace();
    size_t start = pos_;
    auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    if (pos_ < text_.size() && !std::isdigit(static_cast<unsigned char>(text_[pos_])))
      while (pos_ < text_.size() && isWord(text_[pos_])) ++pos_;
    if (pos_ == start) error("expected a dimension name");
    return std::string(text_.substr(start, pos_ - start));
  }

  int32_t integer() {
    skipSpace();
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = v * 10 + (text_[pos_++] - '0');
      if (v > INT32_MAX) {
        pos_ = start;
        error("integer too large");
      }
    }
    if (pos_ == start) error("expected a non-negative integer");
    return int32_t(v);
  }

  bool atEnd() {
    skipSpace();
    return pos_ == text_.size();
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

LinearLayout LinearLayout::parse(std::string_view text) {
  TextParser p(text);
  std::vector<InDim> ins;
  p.expect("{");
  if (!p.accept("}")) {
    do {
      InDim d{p.name(), {}};
      p.expect("=");
      p.expect("[");
      if (!p.accept("]")) {
        do {
          Basis b;
          p.expect("[");
          if (!p.accept("]")) {
            do b.push_back(p.integer());
            while (p.accept(","));
            p.expect("]");
          }
          d.bases.push_back(std::move(b));
          if (d.bases.size() > 62) p.error("too many bases");
        } while (p.accept(","));
        p.expect("]");
      }
      ins.push_back(std::move(d));
    } while (p.accept(","));
    p.expect("}");
  }
  p.expect("->");
  p.expect("[");
  std::vector<OutDim> outs;
  if (!p.accept("]")) {
    do {
      OutDim o{p.name(), 0};
      p.expect("=");
      o.size = p.integer();
      outs.push_back(std::move(o));
    } while (p.accept(","));
    p.expect("]");
  }
  if (!p.atEnd()) p.error("unexpected text after the layout");
  if (std::string why = validate(ins, outs); !why.empty())
    throw CompileError(SourceLoc{}, "invalid layout '" + std::string(text) + "': " + why);
  return LinearLayout(std::move(ins), std::move(outs));
}

}  // namespace kiln::layout
