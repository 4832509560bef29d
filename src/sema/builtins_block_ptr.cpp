// Block pointers (Triton 3.6): tl.make_block_ptr, tl.advance (also ptr.advance) and tl.load / tl.store
// through one, with boundary_check and padding_option. An access checks the listed dimensions only
// (0 <= index < shape); an unchecked out-of-bounds element is accessed as computed, as in Triton.
#include "sema/block_access.h"

namespace kiln::sema {

using ir::Type;
using K = SValue::Kind;

namespace {

SValue makeBlockPtr(CallArgs& a) {
  ir::Value* basePtr = blockBase(a, a.at(0));
  std::vector<SValue> shape = integerPieces(a, a.at(1), "shape");
  std::vector<SValue> strides = integerPieces(a, a.at(2), "strides");
  std::vector<SValue> offsets = integerPieces(a, a.at(3), "offsets");
  BlockFacts facts;
  facts.elem = basePtr->type.pointee;
  facts.blockShape = a.intList(a.at(4), "block_shape");
  facts.order = a.intList(a.at(5), "order");
  const size_t rank = facts.blockShape.size();
  for (int64_t d : facts.blockShape)
    if (d <= 0 || d >= (int64_t(1) << 31))
      a.fail(a.display + "(): block_shape must hold positive int32 values, got " + shapeStr(facts.blockShape));
  validateShape(facts.blockShape, a.loc);
  std::vector<int64_t> sorted = facts.order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != int64_t(i))
      a.fail(a.display + "(): order must be a permutation of (0, 1, ..., len(order)-1), got " +
             shapeStr(facts.order));
  if (shape.size() != rank || strides.size() != rank || offsets.size() != rank || facts.order.size() != rank)
    a.fail(a.display + "(): shape, strides, offsets, block_shape and order must have the same length, got " +
           std::to_string(shape.size()) + ", " + std::to_string(strides.size()) + ", " +
           std::to_string(offsets.size()) + ", " + std::to_string(rank) + " and " +
           std::to_string(facts.order.size()));
  return SValue::blockRef(std::move(facts), {SValue::irValue(basePtr), SValue::tuple(std::move(shape)),
                                             SValue::tuple(std::move(strides)), SValue::tuple(std::move(offsets))});
}

const SValue& blockPointerArg(const CallArgs& a, std::string_view use) {
  const SValue& p = a.at(0);
  if (p.kind != K::Block || p.block->descriptor)
    a.fail(a.display + "() " + std::string(use) + " a block pointer (tl.make_block_ptr), got " + p.describe());
  return p;
}

SValue advance(CallArgs& a) {
  SValue p = blockPointerArg(a, "advances");
  std::vector<SValue> deltas = offsetList(a, a.at(1), p.block->blockShape.size(), "offsets");
  std::vector<SValue>& offsets = p.elts[kBlockOffsets].elts;
  for (size_t d = 0; d < offsets.size(); ++d) offsets[d] = binary(*a.cx, ast::BinOp::Add, offsets[d], deltas[d], a.loc);
  return p;
}

// Triton's canonical boundary_check: an int or a tuple of distinct dimensions of the block.
std::vector<bool> boundaryCheck(const CallArgs& a, size_t i, size_t rank) {
  std::vector<bool> check(rank, false);
  if (!a.has(i)) return check;
  for (int64_t d : a.intList(a.at(i), "boundary_check")) {
    if (d < 0 || d >= int64_t(rank))
      a.fail(a.display + "(): boundary_check dimension " + std::to_string(d) + " is out of range for a block of rank " +
             std::to_string(rank));
    if (check[size_t(d)]) a.fail(a.display + "(): duplicate dimension " + std::to_string(d) + " in boundary_check");
    check[size_t(d)] = true;
  }
  return check;
}

constexpr BuiltinDef kBlockPointer[] = {
    {"make_block_ptr", kTl, "base shape strides offsets block_shape order", makeBlockPtr},
    {"advance", kTl | kBlockPtrMember, "base offsets", advance},
};

}  // namespace

SValue loadBlockPointer(CallArgs& a, std::vector<ir::Attr> attrs) {
  const SValue& p = blockPointerArg(a, "loads through");
  if (a.has(1) || a.has(2))
    a.fail(a.display + "(): `mask` and `other` cannot be given when loading through a block pointer (use "
                       "boundary_check and padding_option)");
  std::string padding = a.strArg(4, "");
  if (padding != "" && padding != "zero" && padding != "nan")
    a.fail(a.display + "(): padding_option '" + padding + "' is not supported; use '', 'zero' or 'nan'");
  if (padding == "nan" && !ir::isFloat(p.block->elem))
    a.fail(a.display + "(): padding_option 'nan' is not supported for integer block pointers");
  const Shape& shape = p.block->blockShape;
  std::vector<bool> check = boundaryCheck(a, 3, shape.size());
  BlockAddress at = blockAddress(*a.cx, p, blockIndices(*a.cx, p.elts[kBlockOffsets].elts, shape, a.loc), check, a.loc);
  return SValue::irValue(loadBlockAccess(*a.cx, p, at, padding, std::move(attrs), a.loc));
}

SValue storeBlockPointer(CallArgs& a, std::vector<ir::Attr> attrs) {
  Context& cx = *a.cx;
  const SValue& p = blockPointerArg(a, "stores through");
  if (a.has(2)) a.fail(a.display + "(): `mask` cannot be given when storing through a block pointer (use boundary_check)");
  const Shape& shape = p.block->blockShape;
  ir::Value* value = toTensor(cx, a.at(1), a.loc, a.display + "(): the value");
  if (!value->type.isTensor()) value = broadcastTo(cx, value, shape, a.loc);
  if (value->type.shape != shape)
    a.fail(a.display + "(): the value of shape " + shapeStr(value->type.shape) + " does not match the block shape " +
           shapeStr(shape));
  if (value->type.elem != p.block->elem)
    a.fail(a.display + "(): the value's element type " + tritonDtypeName(value->type.element()) +
           " differs from the block's " + tritonDtypeName(Type::scalar(p.block->elem)) + " (convert it with .to())");
  std::vector<bool> check = boundaryCheck(a, 3, shape.size());
  BlockAddress at = blockAddress(cx, p, blockIndices(cx, p.elts[kBlockOffsets].elts, shape, a.loc), check, a.loc);
  storeBlockAccess(cx, p, at, value, std::move(attrs), a.loc);
  return SValue::none();
}

std::span<const BuiltinDef> blockPointerBuiltins() { return kBlockPointer; }

}  // namespace kiln::sema
