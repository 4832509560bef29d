// Rendering of diagnostics and warnings: location, severity, message, source line and caret.
#include "support/diagnostic.h"
#include "support/warning.h"

namespace kiln {

static void renderLocated(const SourceLoc& loc, const char* severity, const std::string& message, std::string& out) {
  if (loc.known()) out += loc.str() + ": ";
  out += severity;
  out += message;
  out += '\n';
  if (!loc.known()) return;
  std::string_view src = loc.file->line(loc.line);
  if (src.empty()) return;
  out += "  ";
  out += src;
  out += "\n  ";
  // Keep tabs so the caret lines up under the same column as in the source line.
  for (int i = 1; i < loc.col && size_t(i - 1) < src.size(); ++i) out += src[i - 1] == '\t' ? '\t' : ' ';
  out += "^\n";
}

static void renderOne(const Diagnostic& d, std::string& out) {
  const char* severity = "error: ";
  switch (d.kind) {
    case Diagnostic::Kind::Error: break;
    case Diagnostic::Kind::Internal: severity = "internal compiler error: "; break;
    case Diagnostic::Kind::Note: severity = "note: "; break;
  }
  renderLocated(d.loc, severity, d.message, out);
}

std::string CompilerWarning::render() const {
  std::string out;
  renderLocated(loc, "warning: ", message, out);
  return out;
}

std::string Diagnostic::render() const {
  std::string out;
  renderOne(*this, out);
  for (const Diagnostic& n : notes) renderOne(n, out);
  return out;
}

}  // namespace kiln
