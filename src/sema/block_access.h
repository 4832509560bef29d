// Block pointers and tensor descriptors as ordinary pointer arithmetic: from the pieces a Block value
// holds (value.h), the tile of element addresses an access covers and the mask of its in-bounds
// elements. Loads and stores built from them carry the attribute block = "block_ptr" or
// "tensor_descriptor", so that a later pass can recognise them (TMA).
#pragma once
#include <string_view>
#include <vector>

#include "sema/ops_common.h"

namespace kiln::sema {

// The elts of a Block value.
enum BlockPiece : size_t { kBlockBase = 0, kBlockShape = 1, kBlockStrides = 2, kBlockOffsets = 3 };

struct BlockAddress {
  ir::Value* ptr = nullptr;   // tile of element pointers
  ir::Value* mask = nullptr;  // in-bounds elements; null when no dimension is checked
  // A tensor descriptor's block at `coords` (i32 scalars, one per dim) and the descriptor's `pieces`
  // (base, shape..., strides...): what a TMA copy needs (docs/ir.md, "load"). Empty otherwise.
  std::vector<ir::Value*> coords, pieces;
};

// The access covering, along each dimension d, the indices index[d] (a 1-D integer tile): the
// addresses base + sum_d index[d] * stride[d] (in 64 bits) as a tile of shape [len(index[0]), ...],
// masked to 0 <= index[d] < shape[d] along each dimension where check[d].
BlockAddress blockAddress(Context& cx, const SValue& block, const std::vector<ir::Value*>& index,
                          const std::vector<bool>& check, const SourceLoc& loc);
// offset[d] + arange(0, blockShape[d]) for each dimension: the indices of a block at `offsets`.
std::vector<ir::Value*> blockIndices(Context& cx, const std::vector<SValue>& offsets, const Shape& blockShape,
                                     const SourceLoc& loc);
// An offsets argument: a tuple (or list) of `rank` integers, constexpr or scalar runtime values.
std::vector<SValue> offsetList(const CallArgs& a, const SValue& v, size_t rank, std::string_view what);
// The base pointer argument of tl.make_block_ptr / tl.make_tensor_descriptor: a scalar pointer; a
// pointer to i1 becomes a pointer to i8 (blocks of booleans read and write bytes, as tl.load does).
ir::Value* blockBase(const CallArgs& a, const SValue& base);
// A tuple of `rank` integer pieces (shape or strides), each constexpr or a scalar integer value.
std::vector<SValue> integerPieces(const CallArgs& a, const SValue& v, std::string_view what);

// Fills at.coords and at.pieces when the offsets are 32-bit (see BlockAddress).
void describeForTma(Context& cx, const SValue& desc, const std::vector<SValue>& offsets, BlockAddress& at,
                    const SourceLoc& loc);
// A masked load of the access: masked-off elements read `padding` ("zero", "nan", or "": unspecified).
// With at.coords and zero padding the load also carries the TMA description (attribute `tma`, the
// coordinates and the pieces after `other`).
ir::Value* loadBlockAccess(Context& cx, const SValue& block, const BlockAddress& at, const std::string& padding,
                           std::vector<ir::Attr> attrs, const SourceLoc& loc);
// A masked store of `value` (already of the access's shape and element type). With at.coords the store
// also carries the TMA description after its mask (attribute `tma`, the coordinates and the pieces).
void storeBlockAccess(Context& cx, const SValue& block, const BlockAddress& at, ir::Value* value,
                      std::vector<ir::Attr> attrs, const SourceLoc& loc);

// tl.load / tl.store through a block pointer (builtins_memory.cpp dispatches here; the cache and
// eviction attributes are validated there).
SValue loadBlockPointer(CallArgs& a, std::vector<ir::Attr> attrs);
SValue storeBlockPointer(CallArgs& a, std::vector<ir::Attr> attrs);

}  // namespace kiln::sema
