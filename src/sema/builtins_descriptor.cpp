// Tensor descriptors (Triton 3.6): tl.make_tensor_descriptor, desc.load / desc.store (also
// tl.load_tensor_descriptor / tl.store_tensor_descriptor), the reductions desc.atomic_add ... _xor, and
// desc.gather / desc.scatter of rows. Every dimension is bounds-checked, as TMA does: out-of-bounds
// elements load the descriptor's padding (zero or NaN) and are not stored.
#include "sema/block_access.h"

namespace kiln::sema {

using ir::Scalar;
using ir::Type;
using K = SValue::Kind;

namespace {

constexpr int kMaxRank = 5;

SValue makeTensorDescriptor(CallArgs& a) {
  ir::Value* basePtr = blockBase(a, a.at(0));
  std::vector<SValue> shape = integerPieces(a, a.at(1), "shape");
  std::vector<SValue> strides = integerPieces(a, a.at(2), "strides");
  const size_t rank = shape.size();
  if (rank < 1 || rank > kMaxRank)
    a.fail(a.display + "(): expected 1 <= ndim <= " + std::to_string(kMaxRank) + " but got " + std::to_string(rank) +
           " dimensions");
  if (strides.size() != rank)
    a.fail(a.display + "(): expected " + std::to_string(rank) + " strides but got " + std::to_string(strides.size()));
  BlockFacts facts;
  facts.descriptor = true;
  facts.blockShape = a.shapeArg(a.at(3), "block_shape");
  if (facts.blockShape.size() != rank)
    a.fail(a.display + "(): expected block_shape to have " + std::to_string(rank) + " dimensions but got " +
           std::to_string(facts.blockShape.size()));
  validateShape(facts.blockShape, a.loc);
  facts.elem = basePtr->type.pointee;
  const int64_t rowBytes = facts.blockShape.back() * ir::bitWidth(facts.elem) / 8;
  if (rowBytes < 16)
    a.fail(a.display + "(): Descriptor block shape must have at least 16 bytes in the last dimension, but got " +
           std::to_string(facts.blockShape.back()) + " * " + std::to_string(ir::bitWidth(facts.elem) / 8) + " = " +
           std::to_string(rowBytes) + " bytes");
  if (strides.back().kind != K::Int || strides.back().i != 1)
    a.fail(a.display + "(): the last dimension must be contiguous: its stride must be the constexpr 1, got " +
           strides.back().describe());
  facts.padding = a.strArg(4, "zero");
  if (facts.padding != "zero" && facts.padding != "nan")
    a.fail(a.display + "(): padding_option '" + facts.padding + "' is not supported; use 'zero' or 'nan'");
  if (facts.padding == "nan" && !ir::isFloat(facts.elem))
    a.fail(a.display + "(): padding_option 'nan' is not supported for integer blocks");
  return SValue::blockRef(std::move(facts), {SValue::irValue(basePtr), SValue::tuple(std::move(shape)),
                                             SValue::tuple(std::move(strides))});
}

const SValue& descriptorArg(const CallArgs& a) {
  const SValue& d = a.at(0);
  if (d.kind != K::Block || !d.block->descriptor)
    a.fail(a.display + "() expects a tensor descriptor (tl.make_tensor_descriptor), got " + d.describe());
  return d;
}

// The access of a whole block at `offsets`, every dimension checked.
BlockAddress blockAt(CallArgs& a, const SValue& desc, const SValue& offsetsArg) {
  const Shape& shape = desc.block->blockShape;
  std::vector<SValue> offsets = offsetList(a, offsetsArg, shape.size(), "offsets");
  return blockAddress(*a.cx, desc, blockIndices(*a.cx, offsets, shape, a.loc), std::vector<bool>(shape.size(), true),
                      a.loc);
}

// A value to store or reduce: a tensor of exactly `shape`, converted to the descriptor's element type.
ir::Value* blockValue(CallArgs& a, const SValue& desc, const SValue& v, const Shape& shape) {
  ir::Value* value = toTensor(*a.cx, v, a.loc, a.display + "(): the value");
  if (value->type.shape != shape)
    a.fail(a.display + "(): the value of shape " + shapeStr(value->type.shape) + " does not match the block shape " +
           shapeStr(shape));
  return castElem(*a.cx, value, Type::scalar(desc.block->elem), a.loc);
}

SValue load(CallArgs& a) {
  const SValue& d = descriptorArg(a);
  BlockAddress at = blockAt(a, d, a.at(1));
  describeForTma(*a.cx, d, offsetList(a, a.at(1), d.block->blockShape.size(), "offsets"), at, a.loc);
  return SValue::irValue(loadBlockAccess(*a.cx, d, at, d.block->padding, {}, a.loc));
}

SValue storeAt(CallArgs& a, const SValue& offsets, const SValue& value) {
  const SValue& d = descriptorArg(a);
  ir::Value* v = blockValue(a, d, value, d.block->blockShape);
  BlockAddress at = blockAt(a, d, offsets);
  describeForTma(*a.cx, d, offsetList(a, offsets, d.block->blockShape.size(), "offsets"), at, a.loc);
  storeBlockAccess(*a.cx, d, at, v, {}, a.loc);
  return SValue::none();
}
SValue store(CallArgs& a) { return storeAt(a, a.at(1), a.at(2)); }

// desc.atomic_OP(offsets, value): the element-wise atomic of the in-bounds elements (relaxed, as a TMA
// reduction is), with the element types Triton's descriptor reductions take.
SValue reduce(CallArgs& a, const char* op, std::initializer_list<Scalar> types, const char* typeNames) {
  const SValue& d = descriptorArg(a);
  if (std::find(types.begin(), types.end(), d.block->elem) == types.end())
    a.fail(a.display + "() does not support " + tritonDtypeName(Type::scalar(d.block->elem)) + " elements (it takes " +
           typeNames + ")");
  ir::Value* v = blockValue(a, d, a.at(2), d.block->blockShape);
  BlockAddress at = blockAt(a, d, a.at(1));
  const BuiltinDef* atomic = findBuiltin(std::string("atomic_") + op, kTl);
  invokeBuiltin(*a.cx, *atomic, a.display, {SValue::irValue(at.ptr), SValue::irValue(v), SValue::irValue(at.mask)},
                {{"sem", SValue::string("relaxed")}}, a.loc);
  return SValue::none();
}
SValue atomicAdd(CallArgs& a) {
  return reduce(a, "add", {Scalar::U32, Scalar::I32, Scalar::U64, Scalar::F32, Scalar::F16, Scalar::BF16},
                "uint32, int32, uint64, fp32, fp16 or bf16");
}
SValue atomicMin(CallArgs& a) {
  return reduce(a, "min", {Scalar::U32, Scalar::I32, Scalar::U64, Scalar::I64, Scalar::F16, Scalar::BF16},
                "uint32, int32, uint64, int64, fp16 or bf16");
}
SValue atomicMax(CallArgs& a) {
  return reduce(a, "max", {Scalar::U32, Scalar::I32, Scalar::U64, Scalar::I64, Scalar::F16, Scalar::BF16},
                "uint32, int32, uint64, int64, fp16 or bf16");
}
constexpr std::initializer_list<Scalar> kBitwise = {Scalar::U32, Scalar::I32, Scalar::U64, Scalar::I64};
SValue atomicAnd(CallArgs& a) { return reduce(a, "and", kBitwise, "uint32, int32, uint64 or int64"); }
SValue atomicOr(CallArgs& a) { return reduce(a, "or", kBitwise, "uint32, int32, uint64 or int64"); }
SValue atomicXor(CallArgs& a) { return reduce(a, "xor", kBitwise, "uint32, int32, uint64 or int64"); }

// desc.gather(x_offsets, y_offset) and desc.scatter(value, x_offsets, y_offset): rows x_offsets of a
// 2-D descriptor whose block is one row, columns y_offset + arange(block columns).
BlockAddress rowsAt(CallArgs& a, const SValue& d, const SValue& xArg, const SValue& yArg) {
  const Shape& shape = d.block->blockShape;
  if (shape.size() != 2 || shape[0] != 1)
    a.fail(a.display + "() needs a 2-D descriptor whose block is one row, got " + d.describe());
  if (!xArg.isIR() || xArg.ir->type.rank() != 1 || !xArg.ir->type.isInt() || xArg.ir->type.isBool())
    a.fail(a.display + "(): x_offsets must be a 1-D tensor of integers, got " + xArg.describe());
  const int64_t rows = xArg.ir->type.shape[0];
  if (rows < 8) a.fail(a.display + "() needs at least 8 rows, got " + std::to_string(rows));
  const int bits = ir::bitWidth(d.block->elem);
  const int64_t minCols = 32 / bits * 8;
  if (shape[1] < minCols)
    a.fail(a.display + "() of " + tritonDtypeName(Type::scalar(d.block->elem)) + " needs at least " +
           std::to_string(minCols) + " columns, got " + std::to_string(shape[1]));
  std::vector<SValue> y = offsetList(a, yArg, 1, "y_offset");
  std::vector<ir::Value*> index{xArg.ir, blockIndices(*a.cx, y, {shape[1]}, a.loc)[0]};
  return blockAddress(*a.cx, d, index, {true, true}, a.loc);
}

SValue gather(CallArgs& a) {
  const SValue& d = descriptorArg(a);
  BlockAddress at = rowsAt(a, d, a.at(1), a.at(2));
  return SValue::irValue(loadBlockAccess(*a.cx, d, at, d.block->padding, {}, a.loc));
}

SValue scatter(CallArgs& a) {
  const SValue& d = descriptorArg(a);
  BlockAddress at = rowsAt(a, d, a.at(2), a.at(3));
  ir::Value* v = blockValue(a, d, a.at(1), at.ptr->type.shape);
  storeBlockAccess(*a.cx, d, at, v, {}, a.loc);
  return SValue::none();
}

SValue loadTensorDescriptor(CallArgs& a) { return load(a); }
SValue storeTensorDescriptor(CallArgs& a) { return storeAt(a, a.at(1), a.at(2)); }

constexpr BuiltinDef kDescriptor[] = {
    {"make_tensor_descriptor", kTl, "base shape strides block_shape padding_option?", makeTensorDescriptor},
    {"load_tensor_descriptor", kTl, "desc offsets", loadTensorDescriptor},
    {"store_tensor_descriptor", kTl, "desc offsets value", storeTensorDescriptor},
    {"load", kDescriptorMember, "desc offsets", load},
    {"store", kDescriptorMember, "desc offsets value", store},
    {"atomic_add", kDescriptorMember, "desc offsets value", atomicAdd},
    {"atomic_min", kDescriptorMember, "desc offsets value", atomicMin},
    {"atomic_max", kDescriptorMember, "desc offsets value", atomicMax},
    {"atomic_and", kDescriptorMember, "desc offsets value", atomicAnd},
    {"atomic_or", kDescriptorMember, "desc offsets value", atomicOr},
    {"atomic_xor", kDescriptorMember, "desc offsets value", atomicXor},
    {"gather", kDescriptorMember, "desc x_offsets y_offset", gather},
    {"scatter", kDescriptorMember, "desc value x_offsets y_offset", scatter},
};

}  // namespace

std::span<const BuiltinDef> descriptorBuiltins() { return kDescriptor; }

bool isHostDescriptor(const SValue& v) {
  static const std::vector<std::string> kFields = {"base", "shape", "strides", "block_shape", "padding"};
  return v.kind == K::Tuple && v.str == "TensorDescriptor" && v.fields == kFields;
}

SValue hostDescriptor(Context& cx, const SValue& v, const SourceLoc& loc) {
  return invokeBuiltin(cx, kDescriptor[0], "TensorDescriptor", v.elts, {}, loc);
}

}  // namespace kiln::sema
