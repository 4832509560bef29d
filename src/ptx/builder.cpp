// The PTX builder: register naming, operand text, entry and module printing.
#include "ptx/builder.h"

#include <bit>
#include <charconv>
#include <cstdio>

#include "support/diagnostic.h"

namespace kiln::ptx {

namespace {

[[noreturn]] void bug(const std::string& msg) { throw InternalError({}, "ptx builder: " + msg); }

std::string hex(uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llX", digits, static_cast<unsigned long long>(v));
  return buf;
}

std::string_view paramTypeName(ParamType t) {
  switch (t) {
    case ParamType::U8: return ".u8";
    case ParamType::S8: return ".s8";
    case ParamType::U16: return ".u16";
    case ParamType::S16: return ".s16";
    case ParamType::B16: return ".b16";
    case ParamType::U32: return ".u32";
    case ParamType::S32: return ".s32";
    case ParamType::U64: return ".u64";
    case ParamType::S64: return ".s64";
    case ParamType::F32: return ".f32";
    case ParamType::F64: return ".f64";
    case ParamType::Ptr: return ".u64";
    case ParamType::B8: return ".b8";
  }
  return "";
}

// The register class a parameter is loaded into: 8/16-bit integers widen to .b32 (PTX extends by
// the parameter type's signedness), f16/bf16 bits stay .b16.
RegClass paramRegClass(ParamType t) {
  switch (t) {
    case ParamType::U8: case ParamType::S8: case ParamType::U16: case ParamType::S16:
    case ParamType::U32: case ParamType::S32:
      return RegClass::B32;
    case ParamType::B16: case ParamType::B8: return RegClass::B16;
    case ParamType::U64: case ParamType::S64: case ParamType::Ptr: return RegClass::B64;
    case ParamType::F32: return RegClass::F32;
    case ParamType::F64: return RegClass::F64;
  }
  return RegClass::B32;
}

bool validIdentifier(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

std::string dims(const std::array<int, 3>& d) {
  return std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]);
}

}  // namespace

// ---------------------------------------------------------------- target, registers, operands

std::string Target::name() const { return "sm_" + std::to_string(sm) + (archSpecific ? "a" : ""); }

std::optional<Target> Target::parse(std::string_view s) {
  if (s.substr(0, 3) != "sm_" || s.size() < 5) return std::nullopt;
  std::string_view rest = s.substr(3);
  bool a = rest.back() == 'a';
  if (a) rest.remove_suffix(1);
  if (rest.empty() || rest.size() > 3) return std::nullopt;
  int sm = 0;
  for (char c : rest) {
    if (c < '0' || c > '9') return std::nullopt;
    sm = sm * 10 + (c - '0');
  }
  if (sm < 80) return std::nullopt;  // kiln emits mma.sync, cp.async and min.NaN: sm_80 is the floor
  return Target{sm, a};
}

std::string_view regTypeName(RegClass c) {
  switch (c) {
    case RegClass::Pred: return ".pred";
    case RegClass::B16: return ".b16";
    case RegClass::B32: return ".b32";
    case RegClass::B64: return ".b64";
    case RegClass::F32: return ".f32";
    case RegClass::F64: return ".f64";
  }
  return "";
}

std::string_view regPrefix(RegClass c) {
  switch (c) {
    case RegClass::Pred: return "%p";
    case RegClass::B16: return "%h";
    case RegClass::B32: return "%r";
    case RegClass::B64: return "%rd";
    case RegClass::F32: return "%f";
    case RegClass::F64: return "%fd";
  }
  return "";
}

int regBits(RegClass c) {
  switch (c) {
    case RegClass::Pred: return 1;
    case RegClass::B16: return 16;
    case RegClass::B32: case RegClass::F32: return 32;
    case RegClass::B64: case RegClass::F64: return 64;
  }
  return 0;
}

std::string Reg::str() const {
  if (!valid()) bug("use of an unallocated register");
  std::string out;
  appendTo(out);
  return out;
}

void Reg::appendTo(std::string& out) const {
  if (!valid()) bug("use of an unallocated register");
  char digits[16];
  const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, id);
  out += regPrefix(cls);
  out.append(digits, end.ptr);
}

Operand::Operand(Reg r) : text(r.str()) {}
Operand::Operand(int64_t v) : text(std::to_string(v)) {}
Operand Operand::raw(std::string t) {
  Operand o(0);
  o.text = std::move(t);
  return o;
}

Operand hexImm(uint64_t v) { return Operand::raw("0x" + hex(v, 1)); }
Operand f32Bits(uint32_t bits) { return Operand::raw("0f" + hex(bits, 8)); }
Operand f32Imm(float v) { return f32Bits(std::bit_cast<uint32_t>(v)); }
Operand f64Bits(uint64_t bits) { return Operand::raw("0d" + hex(bits, 16)); }
Operand f64Imm(double v) { return f64Bits(std::bit_cast<uint64_t>(v)); }
Operand sym(std::string_view name) { return Operand::raw(std::string(name)); }

namespace {
std::string addrText(std::string base, int64_t offset) {
  if (offset == 0) return "[" + base + "]";
  return "[" + base + "+" + std::to_string(offset) + "]";  // "+-4" is PTX's spelling of -4
}
}  // namespace

Operand addr(Reg base, int64_t offset) { return Operand::raw(addrText(base.str(), offset)); }
Operand addr(std::string_view symbol, int64_t offset) { return Operand::raw(addrText(std::string(symbol), offset)); }

Operand vec(std::span<const Reg> regs) {
  std::string s;
  s.reserve(2 + regs.size() * 7);
  s += '{';
  for (size_t i = 0; i < regs.size(); ++i) {
    if (i) s += ", ";
    regs[i].appendTo(s);
  }
  s += '}';
  return Operand::raw(std::move(s));
}

Operand vec(std::initializer_list<Operand> items) {
  std::string s = "{";
  bool first = true;
  for (const Operand& o : items) {
    s += (first ? "" : ", ") + o.text;
    first = false;
  }
  return Operand::raw(s + "}");
}

// ---------------------------------------------------------------- entry

int Entry::addParam(std::string_view name, ParamType type, int ptrAlign) {
  if (!validIdentifier(name)) bug("bad parameter name '" + std::string(name) + "'");
  if (ptrAlign < 0 || (ptrAlign & (ptrAlign - 1)) != 0) bug("pointer alignment must be a power of two");
  std::string symbol = name_ + "_" + std::string(name);
  for (const Param& p : params_)
    if (p.symbol == symbol) bug("duplicate parameter '" + std::string(name) + "'");
  params_.push_back(Param{symbol, type, type == ParamType::Ptr ? ptrAlign : 0, false});
  return int(params_.size()) - 1;
}

int Entry::addBoolParam(std::string_view name) {
  int i = addParam(name, ParamType::U8);
  params_[size_t(i)].isBool = true;
  return i;
}

int Entry::addByteArrayParam(std::string_view name, int bytes, int align) {
  if (bytes <= 0 || align <= 0 || (align & (align - 1)) != 0) bug("a byte array parameter needs a size and a power-of-two alignment");
  int i = addParam(name, ParamType::B8);
  params_[size_t(i)].arrayBytes = bytes;
  params_[size_t(i)].arrayAlign = align;
  return i;
}

Reg Entry::loadParam(int index) {
  if (index < 0 || size_t(index) >= params_.size()) bug("no parameter " + std::to_string(index));
  const Param& p = params_[size_t(index)];
  if (p.arrayBytes) bug("parameter " + p.symbol + " is a byte array: read it through its address");
  Reg r = reg(paramRegClass(p.type));
  // .u8 for fp8 bits: zero-extended, as every fp8 register holds them
  inst("ld.param" + std::string(p.type == ParamType::B8 ? ".u8" : paramTypeName(p.type)), {r, addr(p.symbol)});
  if (!p.isBool) return r;
  Reg b = reg(RegClass::Pred);
  inst("setp.ne.u32", {b, r, 0});
  return b;
}

void Entry::setMaxNtid(int x, int y, int z) {
  if (reqNtid_[0]) bug(".maxntid and .reqntid exclude each other");
  maxNtid_ = {x, y, z};
}

void Entry::setReqNtid(int x, int y, int z) {
  if (maxNtid_[0]) bug(".maxntid and .reqntid exclude each other");
  reqNtid_ = {x, y, z};
}

std::string Entry::addShared(std::string_view name, int64_t bytes, int align) {
  if (!validIdentifier(name)) bug("bad shared array name '" + std::string(name) + "'");
  if (bytes <= 0 || align <= 0 || (align & (align - 1)) != 0) bug("bad shared array size or alignment");
  std::string symbol = name_ + "_" + std::string(name);
  sharedDecls_.push_back(".shared .align " + std::to_string(align) + " .b8 " + symbol + "[" +
                         std::to_string(bytes) + "];");
  return symbol;
}

std::string Entry::addLocal(std::string_view name, int64_t bytes, int align) {
  if (!validIdentifier(name)) bug("bad local array name '" + std::string(name) + "'");
  if (bytes <= 0 || align <= 0 || (align & (align - 1)) != 0) bug("bad local array size or alignment");
  std::string symbol = name_ + "_" + std::string(name);
  std::string decl = ".local .align " + std::to_string(align) + " .b8 " + symbol + "[" + std::to_string(bytes) + "];";
  for (const std::string& d : sharedDecls_)  // asked for again (every print shares one buffer): the same array
    if (d == decl) return symbol;
  sharedDecls_.push_back(decl);
  return symbol;
}

std::string Entry::addGlobalString(std::string_view bytes) {
  for (const auto& [b, sym] : strings_)
    if (b == bytes) return sym;
  std::string symbol = name_ + "_str" + std::to_string(strings_.size());
  std::string decl = ".global .align 1 .b8 " + symbol + "[" + std::to_string(bytes.size() + 1) + "] = {";
  for (unsigned char c : bytes) decl += std::to_string(unsigned(c)) + ", ";
  globalDecls_.push_back(decl + "0};");
  strings_.emplace_back(std::string(bytes), symbol);
  return symbol;
}

Reg Entry::dynamicSharedBase() {
  usesDynamicShared_ = true;
  Reg r = reg(RegClass::B32);
  inst("mov.u32", {r, sym(kDynamicShared)});
  return r;
}

Reg Entry::reg(RegClass c) { return Reg{c, regCount_[size_t(c)]++}; }

void Entry::inst(std::string_view opcode, const std::vector<Operand>& operands, Guard guard) {
  std::string line;
  size_t bytes = 4 + opcode.size() + 1 + (guard.active() ? 12 : 0);
  for (const Operand& o : operands) bytes += o.text.size() + 2;
  line.reserve(bytes);
  line += "    ";
  if (guard.active()) {
    line += guard.negate ? "@!" : "@";
    guard.pred.appendTo(line);
    line += ' ';
  }
  line += opcode;
  for (size_t i = 0; i < operands.size(); ++i) {
    line += i ? ", " : " ";
    line += operands[i].text;
  }
  line += ';';
  addLine(std::move(line));
}

void Entry::comment(std::string_view text) { addLine("    // " + std::string(text)); }

void Entry::verbatim(std::string_view text) {
  hasVerbatim_ = true;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(start, nl - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.find_first_not_of(" \t") != std::string_view::npos) addLine("    " + std::string(l));
    start = nl + 1;
  }
}

Label Entry::newLabel(std::string_view hint) {
  std::string n = "$L" + std::to_string(labelCount_++);
  if (!hint.empty()) {
    if (!validIdentifier(hint)) bug("bad label hint '" + std::string(hint) + "'");
    n += "_" + std::string(hint);
  }
  return Label{n};
}

void Entry::label(const Label& l) { addLine(l.name + ":"); }
void Entry::bra(const Label& target, Guard guard) { inst("bra", {sym(target.name)}, guard); }
void Entry::mov(Reg dst, Reg src, Guard guard) {
  static constexpr const char* kMov[] = {"mov.pred", "mov.b16", "mov.b32", "mov.b64", "mov.f32", "mov.f64"};
  if (dst.cls != src.cls) bug("mov between register classes: " + dst.str() + ", " + src.str());
  inst(kMov[size_t(dst.cls)], {dst, src}, guard);
}

void Entry::braUni(const Label& target) { inst("bra.uni", {sym(target.name)}); }
void Entry::ret() { inst("ret"); }

std::string Entry::str() const {
  std::string s = ".visible .entry " + name_ + "(";
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& p = params_[i];
    s += i ? ",\n" : "\n";
    s += "    .param ";
    if (p.arrayBytes) {
      s += ".align " + std::to_string(p.arrayAlign) + " .b8 " + p.symbol + "[" + std::to_string(p.arrayBytes) + "]";
      continue;
    }
    s += std::string(paramTypeName(p.type));
    if (p.type == ParamType::Ptr) {
      s += " .ptr .global";
      if (p.ptrAlign) s += " .align " + std::to_string(p.ptrAlign);
    }
    s += " " + p.symbol;
  }
  s += params_.empty() ? ")\n" : "\n)\n";
  if (maxNtid_[0]) s += ".maxntid " + dims(maxNtid_) + "\n";
  if (reqNtid_[0]) s += ".reqntid " + dims(reqNtid_) + "\n";
  if (minNCtaPerSm_) s += ".minnctapersm " + std::to_string(minNCtaPerSm_) + "\n";
  if (maxNReg_) s += ".maxnreg " + std::to_string(maxNReg_) + "\n";
  s += "{\n";
  bool decls = false;
  for (int c = 0; c < kNumRegClasses; ++c) {
    if (!regCount_[size_t(c)]) continue;
    RegClass rc = RegClass(c);
    s += "    .reg " + std::string(regTypeName(rc)) + " " + std::string(regPrefix(rc)) + "<" +
         std::to_string(regCount_[size_t(c)]) + ">;\n";
    decls = true;
  }
  for (const std::string& d : sharedDecls_) {
    s += "    " + d + "\n";
    decls = true;
  }
  if (decls && !body_.empty()) s += "\n";
  size_t bodyBytes = 0;
  for (const std::string& line : body_) bodyBytes += line.size() + 1;
  s.reserve(s.size() + bodyBytes + 2);
  for (const std::string& line : body_) {
    s += line;
    s += '\n';
  }
  s += "}\n";
  return s;
}

// ---------------------------------------------------------------- module

Entry& Module::addEntry(std::string name) {
  if (!validIdentifier(name)) bug("bad entry name '" + name + "'");
  for (const auto& e : entries_)
    if (e->name() == name) bug("duplicate entry '" + name + "'");
  entries_.push_back(std::make_unique<Entry>(std::move(name), target_));
  return *entries_.back();
}

std::string Module::str() const {
  std::string s = ".version " + std::string(kPtxVersion) + "\n.target " + target_.name() + "\n.address_size 64\n";
  int align = 0;
  for (const auto& e : entries_)
    if (e->usesDynamicShared()) align = std::max(align, e->dynamicSharedAlign());
  if (align > 0)
    s += "\n.extern .shared .align " + std::to_string(align) + " .b8 " + std::string(Entry::kDynamicShared) + "[];\n";
  for (const auto& e : entries_) {
    if (!e->usesVprintf()) continue;
    s += "\n.extern .func (.param .b32 func_retval0) vprintf\n(\n    .param .b64 vprintf_param_0,\n"
         "    .param .b64 vprintf_param_1\n);\n";
    break;
  }
  for (const auto& e : entries_) {
    if (!e->globalDecls().empty()) s += "\n";
    for (const std::string& d : e->globalDecls()) s += d + "\n";
  }
  for (const auto& e : entries_) {
    s += '\n';
    s += e->str();
  }
  return s;
}

}  // namespace kiln::ptx
