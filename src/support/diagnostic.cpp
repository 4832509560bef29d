// Rendering of diagnostics: location, severity, message, source line and caret.
#include "support/diagnostic.h"

namespace kiln {

static void renderOne(const Diagnostic& d, std::string& out) {
  if (d.loc.known()) out += d.loc.str() + ": ";
  switch (d.kind) {
    case Diagnostic::Kind::Error: out += "error: "; break;
    case Diagnostic::Kind::Internal: out += "internal compiler error: "; break;
    case Diagnostic::Kind::Note: out += "note: "; break;
  }
  out += d.message;
  out += '\n';
  if (!d.loc.known()) return;
  std::string_view src = d.loc.file->line(d.loc.line);
  if (src.empty()) return;
  out += "  ";
  out += src;
  out += "\n  ";
  // Keep tabs so the caret lines up under the same column as in the source line.
  for (int i = 1; i < d.loc.col && size_t(i - 1) < src.size(); ++i) out += src[i - 1] == '\t' ? '\t' : ' ';
  out += "^\n";
}

std::string Diagnostic::render() const {
  std::string out;
  renderOne(*this, out);
  for (const Diagnostic& n : notes) renderOne(n, out);
  return out;
}

}  // namespace kiln
