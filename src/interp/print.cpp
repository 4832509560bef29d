// print (tl.device_print, print in kernels) on the interpreter: the lines the GPU prints, formatted by
// the same printf format (ir/print_format.h), for every element in row-major order, operand by operand.
// A program prints its lines before the next program runs, so the output is deterministic.
#include <cstdio>
#include <vector>

#include "interp/machine.h"
#include "ir/print_format.h"

namespace kiln::interp {

using ir::PrintArg;

namespace {

struct Arg {
  PrintArg kind;
  ir::Elem v;
};

// One conversion of a printf format with one argument, by snprintf (the GPU's vprintf follows C's).
std::string convert(const std::string& spec, const Arg& a) {
  char buf[128];
  int n = 0;
  switch (a.kind) {
    case PrintArg::U32: n = std::snprintf(buf, sizeof buf, spec.c_str(), unsigned(a.v.u)); break;
    case PrintArg::I32: n = std::snprintf(buf, sizeof buf, spec.c_str(), int(a.v.i)); break;
    case PrintArg::U64: n = std::snprintf(buf, sizeof buf, spec.c_str(), (unsigned long long)a.v.u); break;
    case PrintArg::I64: n = std::snprintf(buf, sizeof buf, spec.c_str(), (long long)a.v.i); break;
    case PrintArg::F64: {
      // %f of a huge double is long: size the buffer for it.
      int len = std::snprintf(nullptr, 0, spec.c_str(), a.v.f);
      std::string s(size_t(len > 0 ? len : 0) + 1, '\0');
      std::snprintf(s.data(), s.size(), spec.c_str(), a.v.f);
      s.resize(size_t(len > 0 ? len : 0));
      return s;
    }
    case PrintArg::Ptr: n = std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)a.v.u); break;
  }
  return n > 0 ? std::string(buf, size_t(std::min<int>(n, int(sizeof buf) - 1))) : std::string();
}

// `fmt` with its conversions (%u, %3u, %lli, %f, %p, 0x%08x, ...) filled from `args` in order; "%%" is "%".
std::string format(const std::string& fmt, const std::vector<Arg>& args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < fmt.size() && std::string_view("uixfpd").find(fmt[j]) == std::string_view::npos) ++j;
    std::string spec = fmt.substr(i, j - i + 1);
    i = j;
    if (next < args.size()) out += convert(spec, args[next++]);
  }
  return out;
}

ir::Elem promoted(const ir::Type& t, bool hex, ir::Elem e) {
  if (t.isFloat() && hex) {  // the bits of the float
    ir::Scalar bits = ir::bitWidth(t.elem) == 64   ? ir::Scalar::U64
                      : ir::bitWidth(t.elem) == 32 ? ir::Scalar::U32
                      : ir::bitWidth(t.elem) == 16 ? ir::Scalar::U16
                                                   : ir::Scalar::U8;
    return ir::bitcast(t.elem, bits, e);
  }
  return e;  // ints are held sign- or zero-extended already, floats as doubles
}

}  // namespace

void Machine::print(const Inst& in) {
  const ir::Op& op = *in.op;
  const std::string& prefix = op.strAttr("prefix");
  const bool hex = op.intAttrOr("hex", 0) != 0;
  auto pid = [&](int k) { return Arg{PrintArg::U32, ir::intElem(int64_t(pid_[k]))}; };
  std::string out;
  if (in.in.empty()) out = format(ir::printFormatNoOperands(prefix), {pid(0), pid(1), pid(2)});
  for (size_t k = 0; k < in.in.size(); ++k) {
    const ir::Type& t = type(in.in[k]);
    const std::string fmt = ir::printFormat(t, prefix, hex, k, in.in.size());
    const PrintArg kind = ir::printArgOf(t, hex);
    const std::vector<Elem>& v = val(in.in[k]);
    std::vector<Arg> args(3 + t.shape.size() + 1, pid(0));
    args[1] = pid(1);
    args[2] = pid(2);
    for (size_t flat = 0; flat < v.size(); ++flat) {
      size_t rest = flat;
      for (size_t d = t.shape.size(); d-- > 0;) {
        args[3 + d] = Arg{PrintArg::U32, ir::intElem(int64_t(rest % size_t(t.shape[d])))};
        rest /= size_t(t.shape[d]);
      }
      args.back() = Arg{kind, promoted(t, hex, v[flat])};
      out += format(fmt, args);
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);  // in order with what the host program prints around the launch
}

}  // namespace kiln::interp
