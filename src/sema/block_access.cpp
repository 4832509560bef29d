// The addresses and in-bounds masks of block-pointer and tensor-descriptor accesses, the masked loads
// and stores built from them, the pieces' argument checks, and the attributes and methods of a Block
// value (desc.block_shape, desc.load, ptr.advance).
#include <cmath>

#include "sema/block_access.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using K = SValue::Kind;

namespace {

bool isIntegerPiece(const SValue& v) {
  return v.kind == K::Int || (v.isIR() && !v.ir->type.isTensor() && v.ir->type.isInt() && !v.ir->type.isBool());
}

// The tuple a shape/strides/offsets argument holds (a single value stands for a 1-tuple, as in Triton).
std::vector<SValue> elementsOf(const SValue& v) {
  if (v.kind == K::Tuple) return v.elts;
  return {v};
}

// `v` as the 1-D tile it is along dimension d of a rank-`rank` access: size-1 dims everywhere else.
ir::Value* alongDim(Context& cx, ir::Value* v, size_t d, size_t rank, const SourceLoc& loc) {
  if (rank == 1) return v;
  Shape s(rank, 1);
  s[d] = v->type.shape[0];
  return reshape(cx, v, s, loc);
}

}  // namespace

ir::Value* blockBase(const CallArgs& a, const SValue& base) {
  if (!base.isIR() || !base.ir->type.isPtr() || base.ir->type.isTensor())
    a.fail(a.display + "(): base must be a scalar pointer (not a tensor of pointers or a block), got " +
           base.describe());
  if (base.ir->type.pointee != Scalar::I1) return base.ir;
  return emit(*a.cx, Opcode::Bitcast, {base.ir}, Type::ptr(Scalar::I8), a.loc);
}

std::vector<SValue> integerPieces(const CallArgs& a, const SValue& v, std::string_view what) {
  std::vector<SValue> out = elementsOf(v);
  for (size_t i = 0; i < out.size(); ++i)
    if (!isIntegerPiece(out[i]))
      a.fail(a.display + "(): element " + std::to_string(i) + " of " + std::string(what) +
             " must be an integer (a constexpr or a scalar), got " + out[i].describe());
  return out;
}

std::vector<SValue> offsetList(const CallArgs& a, const SValue& v, size_t rank, std::string_view what) {
  std::vector<SValue> out = integerPieces(a, v, what);
  if (out.size() != rank)
    a.fail(a.display + "(): expected " + std::to_string(rank) + " " + std::string(what) + " (one per dimension), got " +
           std::to_string(out.size()));
  return out;
}

std::vector<ir::Value*> blockIndices(Context& cx, const std::vector<SValue>& offsets, const Shape& blockShape,
                                     const SourceLoc& loc) {
  std::vector<ir::Value*> out;
  for (size_t d = 0; d < blockShape.size(); ++d) {
    ir::Value* range = emit(cx, Opcode::Arange, {}, Type::tensor({blockShape[d]}, Scalar::I32), loc,
                            {{"end", blockShape[d]}, {"start", int64_t(0)}});
    out.push_back(binary(cx, ast::BinOp::Add, offsets[d], SValue::irValue(range), loc).ir);
  }
  return out;
}

BlockAddress blockAddress(Context& cx, const SValue& block, const std::vector<ir::Value*>& index,
                          const std::vector<bool>& check, const SourceLoc& loc) {
  const size_t rank = index.size();
  const std::vector<SValue>& shape = block.elts[kBlockShape].elts;
  const std::vector<SValue>& strides = block.elts[kBlockStrides].elts;
  SValue offset, mask;
  for (size_t d = 0; d < rank; ++d) {
    SValue idx = SValue::irValue(alongDim(cx, index[d], d, rank, loc));
    if (check[d]) {
      SValue lo = compare(cx, ast::CmpOp::GtE, idx, SValue::integer(0), loc);
      SValue hi = compare(cx, ast::CmpOp::Lt, idx, shape[d], loc);
      SValue in = binary(cx, ast::BinOp::BitAnd, lo, hi, loc);
      mask = mask.kind == K::None ? in : binary(cx, ast::BinOp::BitAnd, mask, in, loc);
    }
    // 64-bit products, as Triton computes block addresses: a block may span more than 2^31 elements.
    SValue term = SValue::irValue(castElem(cx, idx.ir, Type::scalar(Scalar::I64), loc));
    if (!(strides[d].kind == K::Int && strides[d].i == 1)) term = binary(cx, ast::BinOp::Mul, term, strides[d], loc);
    offset = offset.kind == K::None ? term : binary(cx, ast::BinOp::Add, offset, term, loc);
  }
  BlockAddress out;
  out.ptr = binary(cx, ast::BinOp::Add, block.elts[kBlockBase], offset, loc).ir;
  if (mask.kind != K::None) out.mask = broadcastTo(cx, mask.ir, out.ptr->type.shape, loc);
  return out;
}

void describeForTma(Context& cx, const SValue& desc, const std::vector<SValue>& offsets, BlockAddress& at,
                    const SourceLoc& loc) {
  std::vector<ir::Value*> coords, pieces{desc.elts[kBlockBase].ir};
  for (const SValue& o : offsets) {
    if (o.kind == K::Int && o.i >= INT32_MIN && o.i <= INT32_MAX) coords.push_back(materialize(cx, o, loc));
    else if (o.isIR() && !o.ir->type.isTensor() && o.ir->type.elem == Scalar::I32) coords.push_back(o.ir);
    else return;  // TMA coordinates are 32-bit
  }
  for (size_t piece : {kBlockShape, kBlockStrides})
    for (const SValue& v : desc.elts[piece].elts)
      pieces.push_back(v.kind == K::Int ? cx.b.intConst(v.i, Type::scalar(Scalar::I64), loc) : v.ir);
  at.coords = std::move(coords);
  at.pieces = std::move(pieces);
}

ir::Value* loadBlockAccess(Context& cx, const SValue& block, const BlockAddress& at, const std::string& padding,
                           std::vector<ir::Attr> attrs, const SourceLoc& loc) {
  const Type type = Type::tensor(at.ptr->type.shape, block.block->elem);
  std::vector<ir::Value*> operands{at.ptr};
  if (at.mask) {
    operands.push_back(at.mask);
    if (padding == "zero") operands.push_back(zeroOf(cx, type, loc));
    if (padding == "nan") operands.push_back(constantOf(cx, SValue::real(std::nan("")), type, loc));
  }
  if (!at.coords.empty() && operands.size() == 3 && padding == "zero") {
    operands.insert(operands.end(), at.coords.begin(), at.coords.end());
    operands.insert(operands.end(), at.pieces.begin(), at.pieces.end());
    attrs.push_back({"tma", int64_t(at.coords.size())});
  }
  attrs.push_back({"block", std::string(block.block->descriptor ? "tensor_descriptor" : "block_ptr")});
  return emit(cx, Opcode::Load, operands, type, loc, std::move(attrs));
}

void storeBlockAccess(Context& cx, const SValue& block, const BlockAddress& at, ir::Value* value,
                      std::vector<ir::Attr> attrs, const SourceLoc& loc) {
  std::vector<ir::Value*> operands{at.ptr, value};
  if (at.mask) operands.push_back(at.mask);
  if (!at.coords.empty() && at.mask) {
    operands.insert(operands.end(), at.coords.begin(), at.coords.end());
    operands.insert(operands.end(), at.pieces.begin(), at.pieces.end());
    attrs.push_back({"tma", int64_t(at.coords.size())});
  }
  attrs.push_back({"block", std::string(block.block->descriptor ? "tensor_descriptor" : "block_ptr")});
  cx.b.create(Opcode::Store, operands, {}, std::move(attrs), loc);
}

// ---- attributes and methods

namespace {

SValue intTuple(const std::vector<int64_t>& v) {
  std::vector<SValue> elts;
  for (int64_t x : v) elts.push_back(SValue::integer(x));
  return SValue::tuple(std::move(elts));
}

bool isMethod(const SValue& block, const std::string& name) {
  return findBuiltin(name, block.block->descriptor ? kDescriptorMember : kBlockPtrMember) != nullptr;
}

}  // namespace

bool hasBlockAttribute(const SValue& block, const std::string& name) {
  if (isMethod(block, name)) return true;
  return block.block->descriptor && (name == "block_shape" || name == "shape" || name == "strides" ||
                                     name == "dtype");
}

SValue blockAttribute(Context&, const SValue& block, const std::string& name, const SourceLoc& loc) {
  if (isMethod(block, name)) return SValue::method(block, name);
  if (block.block->descriptor) {
    if (name == "block_shape") return intTuple(block.block->blockShape);
    if (name == "shape") return block.elts[kBlockShape];
    if (name == "strides") return block.elts[kBlockStrides];
    if (name == "dtype") return SValue::dtype(Type::scalar(block.block->elem));
  }
  fail(loc, block.describe() + " has no attribute '" + name + "'");
}

}  // namespace kiln::sema
