// The escape hatch and the debug output: tl.inline_asm_elementwise (the user's PTX, element-wise over
// broadcast arguments) and tl.device_print / print in kernels (one line per element at run time).
#include "ir/inline_asm.h"
#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Type;
using K = SValue::Kind;

namespace {

// Triton's device_print munges the prefix so lines read "... idx (3) x: 5": with arguments it ends in
// ": ", and a prefix longer than two characters starts with a space.
std::string tritonPrefix(std::string prefix, bool hasArgs) {
  if (hasArgs && (prefix.empty() || prefix.back() != ' ')) prefix += " ";
  if (hasArgs && (prefix.size() < 2 || prefix.compare(prefix.size() - 2, 2, ": ") != 0))
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  if (prefix.size() > 2 && prefix[0] != ' ') prefix = " " + prefix;
  return prefix;
}

SValue printValues(CallArgs& a, const SValue& prefixArg, const std::vector<SValue>& values, bool hex) {
  if (prefixArg.kind != K::Str)
    a.fail(a.display + "(): the prefix (the first argument) must be a constexpr string, got " + prefixArg.describe());
  for (unsigned char c : prefixArg.str)
    if (c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f'))
      a.fail(a.display + "(): the prefix must be printable ASCII, got " + pyRepr(prefixArg));
  std::vector<ir::Value*> operands;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].kind == K::Str)
      a.fail(a.display + "(): argument " + std::to_string(i + 1) +
             " is a string; only the first argument (the prefix) may be one");
    operands.push_back(toTensor(*a.cx, values[i], a.loc, a.display + "'s argument " + std::to_string(i + 1)));
  }
  std::vector<ir::Attr> attrs = {{"prefix", tritonPrefix(prefixArg.str, !operands.empty())}};
  if (hex) attrs.push_back({"hex", int64_t(1)});
  a.cx->b.create(Opcode::Print, operands, {}, std::move(attrs), a.loc);
  return SValue::none();
}

SValue devicePrint(CallArgs& a) { return printValues(a, a.at(0), a.rest, a.boolArg(1, false)); }

// print(...) in a kernel is Triton's device_print: its first argument is the prefix.
SValue pyPrint(CallArgs& a) {
  if (a.rest.empty()) a.fail("print() in a kernel needs a string prefix first, as tl.device_print does");
  std::vector<SValue> values(a.rest.begin() + 1, a.rest.end());
  return printValues(a, a.rest[0], values, a.boolArg(0, false));
}

SValue inlineAsmElementwise(CallArgs& a) {
  Context& cx = *a.cx;
  const std::string asmText = a.strArg(0, ""), constraints = a.strArg(1, "");
  if (!a.has(0) || !a.has(1)) a.fail(a.display + "(): asm and constraints must be constexpr strings");
  const SValue& args = a.at(2);
  std::vector<SValue> argList = args.kind == K::Tuple ? args.elts : std::vector<SValue>{args};
  const SValue& dt = a.at(3);
  const bool several = dt.kind == K::Tuple;
  std::vector<SValue> dtypes = several ? dt.elts : std::vector<SValue>{dt};
  if (dtypes.empty()) a.fail(a.display + "(): dtype must be a dtype or a non-empty tuple of dtypes");
  std::vector<Type> resultElems;
  for (const SValue& d : dtypes) {
    if (d.kind != K::Dtype || d.type.isTensor())
      a.fail(a.display + "(): dtype must be a dtype or a tuple of dtypes, got " + d.describe());
    if (d.type.isPtr()) a.fail(a.display + "(): results cannot be pointers, got " + dtypeExpr(d.type));
    resultElems.push_back(d.type);
  }
  const bool pure = a.boolArg(4, false);
  const int64_t pack = a.intArg(5);

  // The arguments broadcast to one shape and keep their own element types (Triton's
  // binary_op_type_checking_impl without the arithmetic promotion).
  std::vector<ir::Value*> operands;
  Shape shape;
  for (size_t i = 0; i < argList.size(); ++i) {
    if (!argList[i].isIR() && !argList[i].isNumber())
      a.fail(a.display + "(): argument " + std::to_string(i) + " must be a tensor or a number, got " +
             argList[i].describe());
    operands.push_back(toTensor(cx, argList[i], a.loc, a.display + "'s argument " + std::to_string(i)));
    shape = broadcastShape(shape, operands.back()->type.shape, a.loc);
  }
  std::vector<Type> operandTypes, resultTypes;
  for (ir::Value*& v : operands) {
    v = broadcastTo(cx, v, shape, a.loc);
    operandTypes.push_back(v->type);
  }
  for (const Type& t : resultElems) resultTypes.push_back(shape.empty() ? t : t.withShape(shape));
  std::vector<ir::AsmConstraint> parsed;
  std::string problem = ir::parseInlineAsm(asmText, constraints, pack, operandTypes, resultTypes, parsed);
  if (!problem.empty()) a.fail(a.display + "(): " + problem);

  std::vector<ir::Attr> attrs = {{"asm", asmText}, {"constraints", constraints}, {"pack", pack}};
  if (pure) attrs.push_back({"pure", int64_t(1)});
  ir::Op* op = cx.b.create(Opcode::InlineAsm, operands, resultTypes, std::move(attrs), a.loc);
  if (!several) return SValue::irValue(op->result(0));
  std::vector<SValue> results;
  for (unsigned i = 0; i < op->numResults(); ++i) results.push_back(SValue::irValue(op->result(i)));
  return SValue::tuple(std::move(results));
}

constexpr BuiltinDef kDebug[] = {
    {"device_print", kTl, "prefix *args hex?", devicePrint},
    {"print", kPy, "*args hex?", pyPrint},
    {"inline_asm_elementwise", kTl, "asm constraints args dtype is_pure pack", inlineAsmElementwise},
};

}  // namespace

std::span<const BuiltinDef> debugBuiltins() { return kDebug; }

}  // namespace kiln::sema
