// The type rules of inline_asm and print: the escape hatch's shapes and constraints, the debug output's
// attributes.
#include "ir/inline_asm.h"
#include "ir/verifier_rules.h"

namespace kiln::ir {

namespace {

void inlineAsm(const Op& op) {
  require(op.numResults() >= 1, op, [] { return "needs at least one result"; });
  const Type& shapeOf = op.result(0)->type;
  auto sameShape = [&](const Type& t) { return t.isTensor() == shapeOf.isTensor() && t.shape == shapeOf.shape; };
  std::vector<Type> ins = typesOf(op.operands), outs;
  for (const auto& r : op.results) outs.push_back(r->type);
  for (const Type& t : ins)
    require(sameShape(t), op, [&] {
      return "needs arguments and results of one shape, got " + typeList(ins) + " -> " + typeList(outs);
    });
  for (const Type& t : outs) {
    require(sameShape(t), op, [&] { return "needs results of one shape, got " + typeList(outs); });
    require(!t.isPtr(), op, [&] { return "cannot produce pointers, got " + t.str(); });
  }
  int64_t pure = op.intAttrOr("pure", 0);
  require(pure == 0 || pure == 1, op, [&] { return "pure must be 0 or 1, got " + std::to_string(pure); });
  std::vector<AsmConstraint> cs;
  std::string problem = parseInlineAsm(op.strAttr("asm"), op.strAttr("constraints"), op.intAttr("pack"), ins, outs, cs);
  require(problem.empty(), op, [&] { return problem; });
}

}  // namespace

void checkAsmTypeRule(const Op& op) {
  switch (op.opcode) {
    case Opcode::InlineAsm: return inlineAsm(op);
    case Opcode::Print: {
      int64_t hex = op.intAttrOr("hex", 0);
      require(hex == 0 || hex == 1, op, [&] { return "hex must be 0 or 1, got " + std::to_string(hex); });
      return;
    }
    default:
      break;
  }
  verifyFail(op, "is not inline_asm or print");
}

}  // namespace kiln::ir
