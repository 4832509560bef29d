// The type rules of ptr_add, load and store: pointer arithmetic, and loads and stores through pointer
// tiles with their masks, a load's other value and a tensor descriptor's TMA description.
#include "ir/verifier_rules.h"

namespace kiln::ir {

namespace {

// A tensor-descriptor load's or store's TMA description (attribute `tma`): after its three leading
// operands (`lead` names them), rank i32 coordinates, the base pointer, rank dims and rank strides. A
// load's map may have up to 5 dims, more than the tile (dims it does not span, before the tile's).
void tmaDescription(const Op& op, const char* lead) {
  auto T = [&](unsigned i) -> const Type& { return op.operands[i]->type; };
  const int64_t tileRank = T(0).rank(), tma = op.intAttr("tma");
  const bool load = op.opcode == Opcode::Load;
  require(load ? tma >= tileRank && tma <= 5 : tma == tileRank, op, [&] {
    return "tma must be " + (load ? "from the tile's rank (" + std::to_string(tileRank) + ") to 5" : std::to_string(tileRank)) +
           ", got " + std::to_string(tma);
  });
  const size_t rank = size_t(tma);
  require(op.numOperands() == 3 + 3 * rank + 1, op, [&] {
    return "with tma = " + std::to_string(rank) + ", takes " + lead + ", " + std::to_string(rank) +
           " coordinates, the base, " + std::to_string(rank) + " dims and " + std::to_string(rank) + " strides";
  });
  for (unsigned i = 3; i < op.numOperands(); ++i) {
    const bool coord = i < 3 + rank, base = i == 3 + rank;
    const bool ok = !T(i).isTensor() && (coord ? T(i).elem == Scalar::I32 : base ? T(i).isPtr() : T(i).isInt() && !T(i).isBool());
    require(ok, op, [&] {
      return "operand #" + std::to_string(i) + " must be " + (coord ? "an i32 coordinate" : base ? "the base pointer" : "an integer") +
             ", got " + T(i).str();
    });
  }
}

}  // namespace

void checkMemoryTypeRule(const Op& op) {
  auto T = [&](unsigned i) -> const Type& { return op.operands[i]->type; };
  auto R = [&]() -> const Type& { return op.results.at(0)->type; };
  switch (op.opcode) {
    case Opcode::PtrAdd:
      require(T(0).isPtr(), op, [&] { return "takes a pointer first, got " + T(0).str(); });
      require(T(1).isInt() && T(1).shape == T(0).shape, op,
              [&] { return "needs an integer offset of the pointer's shape, got " + T(1).str(); });
      require(R() == T(0), op, [&] { return "produces the pointer type " + T(0).str() + ", got " + R().str(); });
      return;
    case Opcode::Load: {
      require(T(0).isPtr(), op, [&] { return "takes a pointer, got " + T(0).str(); });
      Type want = T(0).withElem(T(0).pointee);
      require(R() == want, op,
              [&] { return "through " + T(0).str() + " produces " + want.str() + ", got " + R().str(); });
      if (op.numOperands() > 1)
        require(T(1) == T(0).withElem(Scalar::I1), op,
                [&] { return "mask must be " + T(0).withElem(Scalar::I1).str() + ", got " + T(1).str(); });
      if (op.numOperands() > 2) require(T(2) == R(), op,
                                        [&] { return "other must be " + R().str() + ", got " + T(2).str(); });
      // guarded = 1: a pointer load's description, exact where the check before its loop holds
      require(!op.hasAttr("guarded") || (op.hasAttr("tma") && op.intAttr("guarded") == 1), op,
              [] { return std::string("guarded = 1 goes with a tma description"); });
      if (!op.hasAttr("tma")) {
        require(op.numOperands() <= 3, op, [] { return std::string("takes a pointer, a mask and other, no more"); });
        return;
      }
      return tmaDescription(op, "pointer, mask, other");
    }
    case Opcode::Store: {
      require(T(0).isPtr(), op, [&] { return "takes a pointer, got " + T(0).str(); });
      Type want = T(0).withElem(T(0).pointee);
      require(T(1) == want, op,
              [&] { return "through " + T(0).str() + " needs a value of type " + want.str() + ", got " + T(1).str(); });
      if (op.numOperands() > 2)
        require(T(2) == T(0).withElem(Scalar::I1), op,
                [&] { return "mask must be " + T(0).withElem(Scalar::I1).str() + ", got " + T(2).str(); });
      if (!op.hasAttr("tma")) {
        require(op.numOperands() <= 3, op, [] { return std::string("takes a pointer, a value and a mask, no more"); });
        return;
      }
      return tmaDescription(op, "pointer, value, mask");
    }
    default:
      break;
  }
  verifyFail(op, "is not ptr_add, load or store");
}

}  // namespace kiln::ir
