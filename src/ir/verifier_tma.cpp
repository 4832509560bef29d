// The type rules of the TMA ops (ops.def, docs/gpu-ir.md): `tensor_map` declares a tensor map the
// launcher encodes from kernel parameters and constants (driver/tensor_map_spec.h), `tma_load` fills a
// shared slot from it, completing on an mbarrier; `tma_store` copies a slot to it, `tma_store_wait` waits
// for those copies' reads.
#include <string>

#include "ir/verifier_rules.h"

namespace kiln::ir {

namespace {

bool isScalarInt(const Type& t) { return !t.isTensor() && !t.isShared() && t.isInt() && !t.isBool(); }

// The bytes TMA moves per element: fp8 and i8 are bytes; i1 and pointers have no tensor-map type.
int elemBytes(Scalar s) { return s == Scalar::I1 || s == Scalar::Ptr ? 0 : bitWidth(s) / 8; }

// A kernel parameter of the function whose body is `body`, or an integer constant.
bool isParamOrConstant(const Value* v, const Block& body) {
  if (v->isBlockArg()) return v->owner == &body;
  return v->def && v->def->opcode == Opcode::Constant;
}

void tensorMap(const Op& op, const Block& parent) {
  require(parent.parentFunc != nullptr, op, [] { return std::string("must stand in the kernel's body, not in a region"); });
  require(op.numOperands() % 2 == 1, op, [] { return std::string("takes a base pointer, then the shape and the strides"); });
  const unsigned rank = (op.numOperands() - 1) / 2;
  require(rank >= 1 && rank <= 5, op, [&] { return "a tensor map has 1 to 5 dims, got " + std::to_string(rank); });
  const Type& base = op.operand(0)->type;
  require(base.isPtr() && !base.isTensor() && elemBytes(base.pointee) > 0, op,
          [&] { return "the base must be a scalar pointer to a number type, got " + base.str(); });
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    const Value* v = op.operand(i);
    require(isParamOrConstant(v, parent), op, [&] {
      return "operand #" + std::to_string(i) + " must be a kernel parameter or a constant: the launcher encodes the map";
    });
    if (i > 0)
      require(isScalarInt(v->type), op,
              [&] { return "operand #" + std::to_string(i) + " must be an integer scalar, got " + v->type.str(); });
  }
  const Value* inner = op.operand(2 * rank);
  require(inner->def && inner->def->opcode == Opcode::Constant && inner->def->intAttr("value") == 1, op,
          [] { return std::string("the last stride must be the constant 1 (the contiguous dim)"); });
  require(op.intAttr("index") >= 0, op, [] { return std::string("index must not be negative"); });
  const int64_t guarded = op.intAttrOr("guarded", 0);
  require(guarded == 0 || guarded == 1, op,
          [&] { return "guarded must be 0 or 1, got " + std::to_string(guarded); });
  // The maps are the kernel's trailing parameters in index order: 0..n-1, each once.
  int64_t maps = 0, same = 0;
  for (const auto& other : parent.ops)
    if (other->opcode == Opcode::TensorMap) {
      ++maps;
      same += other->intAttrOr("index", -1) == op.intAttr("index");
    }
  require(same == 1 && op.intAttr("index") < maps, op, [&] {
    return "the kernel's " + std::to_string(maps) + " tensor maps must have the indices 0.." + std::to_string(maps - 1) +
           ", each once; got index " + std::to_string(op.intAttr("index")) +
           (same > 1 ? " " + std::to_string(same) + " times" : std::string());
  });
  const std::vector<int64_t>& box = op.listAttr("box");
  require(box.size() == rank, op, [&] { return "box must have " + std::to_string(rank) + " dims, got " + shapeText(box); });
  for (int64_t b : box)
    require(b >= 1 && b <= 256, op, [&] { return "each box dim must be from 1 to 256, got " + shapeText(box); });
  const int64_t swizzle = op.intAttr("swizzle"), rowBytes = box.back() * elemBytes(base.pointee);
  require(swizzle == 0 || swizzle == 32 || swizzle == 64 || swizzle == 128, op,
          [&] { return "swizzle must be 0, 32, 64 or 128, got " + std::to_string(swizzle); });
  require(rowBytes % 16 == 0 && (swizzle == 0 || rowBytes <= swizzle), op, [&] {
    return "the box's contiguous dim spans " + std::to_string(rowBytes) +
           " bytes: it must be a multiple of 16 and at most the swizzle (" + std::to_string(swizzle) + ")";
  });
}

const Op* findMap(const Function& fn, int64_t index) {
  for (const auto& op : fn.body.ops)
    if (op->opcode == Opcode::TensorMap && op->intAttr("index") == index) return op.get();
  return nullptr;
}

// The slot and coordinates of a copy between a slot and map `map` (operands from `first` on: the
// coordinates, one per dim of the map), and that the slot holds the map's box, repeated along the
// contiguous dim; the map may have more dims than the slot, leading ones with a box of one element.
void slotAndCoords(const Op& op, const Block& parent, unsigned first, unsigned trailing = 0) {
  const Type& slot = op.operand(0)->type;
  require(slot.isShared() && slot.slots == 1, op,
          [&] { return "operand #0 must be one slot of a shared buffer (shared_slot), got " + slot.str(); });
  const Function* fn = parent.function();
  const Op* map = fn ? findMap(*fn, op.intAttr("map")) : nullptr;
  require(map != nullptr, op, [&] { return "no tensor_map with index " + std::to_string(op.intAttr("map")); });
  const std::vector<int64_t>& box = map->listAttr("box");
  require(map->operand(0)->type.pointee == slot.elem && box.size() >= size_t(slot.rank()), op, [&] {
    return "the slot " + slot.str() + " does not hold the map's elements (" + map->operand(0)->type.str() + ", " +
           std::to_string(box.size()) + " dims)";
  });
  require(op.numOperands() == first + unsigned(box.size()) + trailing, op,
          [&] { return "takes one coordinate per dim of the map (" + std::to_string(box.size()) + ")"; });
  for (unsigned i = first; i < op.numOperands() - trailing; ++i)
    require(!op.operand(i)->type.isTensor() && !op.operand(i)->type.isShared() && op.operand(i)->type.elem == Scalar::I32,
            op, [&] { return "coordinate #" + std::to_string(i - first) + " must be an i32 scalar, got " + op.operand(i)->type.str(); });
  const size_t outer = box.size() - size_t(slot.rank());
  for (size_t d = 0; d < box.size(); ++d) {
    const bool ok = d < outer ? box[d] == 1
                    : d + 1 == box.size() ? slot.shape[d - outer] % box[d] == 0
                                          : slot.shape[d - outer] == box[d];
    require(ok, op, [&] {
      return "the slot " + shapeText(slot.shape) + " must be the map's box " + shapeText(box) +
             ", repeated along the contiguous dim (the box one element along the dims before the slot's)";
    });
  }
}

void tmaLoad(const Op& op, const Block& parent) {
  const Type& bar = op.operand(1)->type;
  require(bar.isShared() && bar.slots == 1 && bar.elem == Scalar::I64 && bar.shape == std::vector<int64_t>{1}, op,
          [&] { return "operand #1 must be an mbarrier, one slot of shared<1xi64>, got " + bar.str(); });
  // predicated = 1: a last i1 operand says whether to copy (else thread 0 only arrives, with no bytes)
  const int64_t predicated = op.intAttrOr("predicated", 0);
  require(predicated == 0 || predicated == 1, op, [&] { return "predicated must be 0 or 1, got " + std::to_string(predicated); });
  if (predicated) {
    const Type& copy = op.operands.back()->type;
    require(!copy.isTensor() && !copy.isShared() && copy.elem == Scalar::I1, op,
            [&] { return "with predicated = 1 the last operand must be an i1 scalar, got " + copy.str(); });
  }
  slotAndCoords(op, parent, 2, unsigned(predicated));
}

}  // namespace

void checkTmaTypeRule(const Op& op, const Block& parent) {
  if (op.opcode == Opcode::TensorMap) return tensorMap(op, parent);
  if (op.opcode == Opcode::TmaLoad) return tmaLoad(op, parent);
  if (op.opcode == Opcode::TmaStore) return slotAndCoords(op, parent, 1);
  require(op.intAttr("pending") >= 0, op, [&] { return "pending must not be negative, got " + std::to_string(op.intAttr("pending")); });
}

}  // namespace kiln::ir
