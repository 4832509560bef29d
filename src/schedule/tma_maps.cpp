// The tensor maps of TMA copies (schedule/tma_maps.h).
#include "schedule/tma_maps.h"

#include <algorithm>

#include "schedule/scalar_form.h"

namespace kiln::schedule {

namespace {

using ir::Opcode;
using ir::Value;

int64_t lowestBit(int64_t v) { return v == 0 ? analysis::kMaxDivisibility : (v & -v); }

std::optional<TensorPiece> pieceOf(const Value* v) {
  const Value* hinted = v;
  v = unhinted(v);
  if (v->isBlockArg()) return v->owner->parentFunc ? std::optional<TensorPiece>(TensorPiece{v, {}, hinted}) : std::nullopt;
  if (v->def->opcode == Opcode::Constant && v->type.isInt()) return TensorPiece{nullptr, v->def->intAttr("value"), hinted};
  return std::nullopt;
}

bool samePiece(const Value* operand, const TensorPiece& p) {
  if (p.param) return operand == p.param;
  return operand->def && operand->def->opcode == Opcode::Constant && operand->def->intAttr("value") == *p.value;
}

}  // namespace

std::optional<std::vector<TensorPiece>> tensorPieces(const ir::Op& access) {
  std::vector<TensorPiece> out;
  for (unsigned k = 3 + unsigned(access.intAttr("tma")); k < access.numOperands(); ++k) {
    std::optional<TensorPiece> p = pieceOf(access.operand(k));
    if (!p) return std::nullopt;
    out.push_back(*p);
  }
  return out;
}

bool tmaEncodable(const std::vector<TensorPiece>& pieces, int64_t elemBytes, const analysis::AxisInfoAnalysis& axis,
                  std::vector<size_t>* checkedStrides) {
  const size_t rank = (pieces.size() - 1) / 2;
  if (pieces[2 * rank].value != 1) return false;  // the contiguous dim last
  auto divisibility = [&](size_t i) -> int64_t {
    return pieces[i].param ? axis.get(pieces[i].hinted).divisibility[0] : lowestBit(*pieces[i].value);
  };
  if (divisibility(0) % 16 != 0) return false;  // a pointer's divisibility is its byte address's
  for (size_t d = 0; d + 1 < rank; ++d) {
    if ((divisibility(1 + rank + d) * elemBytes) % 16 == 0) continue;
    if (!checkedStrides || !pieces[1 + rank + d].param) return false;
    checkedStrides->push_back(d);
  }
  return true;
}

int64_t declareTensorMap(ir::Function& fn, const std::vector<TensorPiece>& pieces, const std::vector<int64_t>& box,
                         int swizzle, bool guarded, const SourceLoc& loc) {
  int64_t count = 0;
  for (const auto& op : fn.body.ops) {
    if (op->opcode != Opcode::TensorMap) continue;
    ++count;
    bool same = op->listAttr("box") == box && op->intAttr("swizzle") == swizzle && op->numOperands() == pieces.size() &&
                op->intAttrOr("guarded", 0) == int64_t(guarded);
    for (size_t i = 0; same && i < pieces.size(); ++i) same = samePiece(op->operand(unsigned(i)), pieces[i]);
    if (same) return op->intAttr("index");
  }
  size_t at = 0;  // after the maps declared so far: their indices stay in program order
  for (size_t i = 0; i < fn.body.ops.size(); ++i)
    if (fn.body.ops[i]->opcode == Opcode::TensorMap) at = i + 1;
  ir::Builder entry(fn.body, at);
  std::vector<Value*> operands;
  for (const TensorPiece& piece : pieces)
    operands.push_back(piece.param ? const_cast<Value*>(piece.param)
                                   : entry.intConst(*piece.value, ir::Type::scalar(ir::Scalar::I64), loc));
  std::vector<ir::Attr> attrs{ir::Attr{"index", count}, ir::Attr{"box", box}, ir::Attr{"swizzle", int64_t(swizzle)}};
  if (guarded) attrs.push_back(ir::Attr{"guarded", int64_t(1)});
  entry.create(Opcode::TensorMap, operands, {}, std::move(attrs), loc);
  return count;
}

}  // namespace kiln::schedule
