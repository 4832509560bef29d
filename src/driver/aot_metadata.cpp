// Shared pieces of the generated C and the variant metadata block (aot_metadata.h). The block is a
// plain comment of one fact a line, so a reader of the header sees what link sees.
#include "driver/aot_metadata.h"

#include <cstdio>
#include <sstream>

namespace kiln::aot {

namespace {
constexpr const char* kBegin = "kiln-aot-variant 1";
}

std::string launchPrototype(const Variant& v, const std::string& name) {
  std::string out = "CUresult " + name + "_launch(CUstream stream";
  if (v.grid.empty()) out += ", unsigned int grid_x, unsigned int grid_y, unsigned int grid_z";
  for (const CParam& p : v.params) out += ", " + p.ctype + " " + p.name;
  return out + ")";
}

std::string launchArguments(const Variant& v) {
  std::string out = "stream";
  if (v.grid.empty()) out += ", grid_x, grid_y, grid_z";
  for (const CParam& p : v.params) out += ", " + p.name;
  return out;
}

std::string commentSafe(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '*' && i + 1 < text.size() && text[i + 1] == '/') out += "* ";
    else if (c < 0x20 || c == 0x7f) out += ' ';
    else out += char(c);
  }
  return out;
}

std::string byteInitializer(const uint8_t* data, size_t size) {
  std::string out = "{";
  char buf[8];
  for (size_t i = 0; i < size; ++i) {
    if (i % 20 == 0) out += "\n  ";
    std::snprintf(buf, sizeof buf, "%u,", unsigned(data[i]));
    out += buf;
  }
  return out + "\n}";
}

std::string metadataBlock(const Variant& v) {
  std::string out = "/* " + std::string(kBegin) + "\n";
  out += "   kernel " + v.kernel + "\n";
  out += "   name " + v.name + "\n";
  out += "   signature " + commentSafe(v.signature) + "\n";
  out += "   arch " + v.arch + "\n";
  out += "   num_warps " + std::to_string(v.numWarps) + "\n";
  out += "   num_stages " + std::to_string(v.numStages) + "\n";
  out += "   grid " + (v.grid.empty() ? std::string("argument") : commentSafe(v.gridText)) + "\n";
  for (const CParam& p : v.params)
    out += "   param " + p.name + " " + p.ctype + " " + conditionName(p.condition) + "\n";
  return out + "   end */\n";
}

std::string readMetadata(const std::string& header, Variant& out) {
  size_t at = header.find(kBegin);
  if (at == std::string::npos) return "it is not a header that kiln aot wrote (no kiln-aot-variant block)";
  std::istringstream lines(header.substr(at + std::string(kBegin).size()));
  std::string line;
  bool ended = false, haveGrid = false;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string key;
    if (!(words >> key)) continue;
    if (key == "end") {
      ended = true;
      break;
    }
    std::string rest;
    std::getline(words, rest);
    if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    if (key == "kernel") out.kernel = rest;
    else if (key == "name") out.name = rest;
    else if (key == "signature") out.signature = rest;
    else if (key == "arch") out.arch = rest;
    else if (key == "num_warps") out.numWarps = std::atoi(rest.c_str());
    else if (key == "num_stages") out.numStages = std::atoi(rest.c_str());
    else if (key == "grid") {
      haveGrid = true;
      out.gridText = rest;
      // The dispatcher only needs to know whether the grid is an argument; the variant computes its own.
      out.grid.clear();
      if (rest != "argument") out.grid = {rest};
    } else if (key == "param") {
      CParam p;
      std::istringstream fields(rest);
      std::string condition, extra;
      // A type of two words ("unsigned int") never occurs: every ctype is one token.
      if (!(fields >> p.name >> p.ctype >> condition) || (fields >> extra) ||
          !conditionFromName(condition, p.condition))
        return "its kiln-aot-variant block has a malformed line 'param " + rest + "'";
      out.params.push_back(p);
    } else {
      return "its kiln-aot-variant block has an unknown line '" + line + "'";
    }
  }
  if (!ended || out.kernel.empty() || out.name.empty() || !haveGrid)
    return "its kiln-aot-variant block is incomplete";
  return "";
}

}  // namespace kiln::aot
