// The type rules of structured control flow: for, if and while against their regions' arguments and
// terminators, and where the terminators yield, condition and return may stand.
#include "ir/verifier_rules.h"

namespace kiln::ir {

namespace {

bool isScalarBool(const Type& t) { return !t.isTensor() && t.isBool(); }

}  // namespace

void checkControlTypeRule(const Op& op, const Block& parent, bool last) {
  auto T = [&](unsigned i) -> const Type& { return op.operands[i]->type; };
  const Op* parentOp = parent.parentOp;
  switch (op.opcode) {
    case Opcode::For: {
      const Type& lb = T(0);
      require(!lb.isTensor() && lb.isInt() && !lb.isBool(), op,
              [&] { return "bounds must be scalar integers, got " + lb.str(); });
      require(T(1) == lb && T(2) == lb, op, [&] { return "lower bound, upper bound and step need one type, got " +
                                                         typeList({T(0), T(1), T(2)}); });
      std::vector<Type> inits = typesOf(op.operands, 3);
      std::vector<Type> results;
      for (const auto& r : op.results) results.push_back(r->type);
      require(results == inits, op,
              [&] { return "results " + typeList(results) + " must match the initial values " + typeList(inits); });
      std::vector<Type> args = inits;
      args.insert(args.begin(), lb);
      require(argTypes(op.region(0)) == args, op,
              [&] { return "body arguments must be (induction variable, iteration values) " +
                           typeList(args) + ", got " + typeList(argTypes(op.region(0))); });
      terminatedBy(op, op.region(0), Opcode::Yield, inits, "the body");
      return;
    }
    case Opcode::If: {
      require(isScalarBool(T(0)), op, [&] { return "condition must be a scalar i1, got " + T(0).str(); });
      std::vector<Type> results;
      for (const auto& r : op.results) results.push_back(r->type);
      require(op.region(0).args.empty() && op.region(1).args.empty(), op, [&] { return "regions take no arguments"; });
      terminatedBy(op, op.region(0), Opcode::Yield, results, "the then region");
      terminatedBy(op, op.region(1), Opcode::Yield, results, "the else region");
      return;
    }
    case Opcode::While: {
      std::vector<Type> inits = typesOf(op.operands);
      require(argTypes(op.region(0)) == inits, op,
              [&] {
                return "before region arguments must match the initial values " + typeList(inits) + ", got " +
                       typeList(argTypes(op.region(0)));
              });
      const Op* cond = op.region(0).terminator();
      if (!cond || cond->opcode != Opcode::Condition) verifyFail(op, "the before region must end with 'condition'");
      if (cond->operands.empty() || !cond->operands[0]) verifyFail(*cond, "needs a condition operand");
      std::vector<Type> vals;
      for (size_t i = 1; i < cond->operands.size(); ++i) {
        if (!cond->operands[i]) verifyFail(*cond, "has a null operand");
        vals.push_back(cond->operands[i]->type);
      }
      std::vector<Type> results;
      for (const auto& r : op.results) results.push_back(r->type);
      require(results == vals, op,
              [&] { return "results " + typeList(results) + " must match the values passed by 'condition' " +
                           typeList(vals); });
      require(argTypes(op.region(1)) == vals, op,
              [&] { return "after region arguments must match the values passed by 'condition' " +
                           typeList(vals) + ", got " + typeList(argTypes(op.region(1))); });
      terminatedBy(op, op.region(1), Opcode::Yield, inits, "the after region");
      return;
    }
    case Opcode::Yield: {
      bool ok = parentOp && (parentOp->opcode == Opcode::For || parentOp->opcode == Opcode::If ||
                             parentOp->opcode == Opcode::WarpPartition || parentOp->opcode == Opcode::ReduceCombine ||
                             parentOp->opcode == Opcode::Scan ||
                             (parentOp->opcode == Opcode::While && parentOp->regions.size() == 2 &&
                              &parentOp->region(1) == &parent));
      require(ok, op, [&] {
        return "must end the body of 'for', a region of 'if', 'warp_partition', 'reduce_combine' or 'scan', or the "
               "after region of 'while'";
      });
      require(last, op, [&] { return "must be the last op of its region"; });
      return;
    }
    case Opcode::Condition:
      require(parentOp && parentOp->opcode == Opcode::While && !parentOp->regions.empty() &&
                  &parentOp->region(0) == &parent,
              op, [&] { return "must end the before region of 'while'"; });
      require(last, op, [&] { return "must be the last op of its region"; });
      require(isScalarBool(T(0)), op, [&] { return "condition must be a scalar i1, got " + T(0).str(); });
      return;
    case Opcode::Return:
      require(!parentOp && parent.parentFunc, op,
              [&] { return "must be the last op of the function body, not inside a region"; });
      require(last, op, [&] { return "must be the last op of the function body"; });
      return;
    default:
      break;
  }
  verifyFail(op, "is not for, if, while, yield, condition or return");
}

}  // namespace kiln::ir
