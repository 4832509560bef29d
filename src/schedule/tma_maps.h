// The tensor maps of TMA copies (docs/gpu-ir.md "TMA (sm_90)"), shared by the pipeline's loads
// (pipeline_tma.cpp) and the stores (tma_stores.cpp): which tensors the launcher can encode a map for,
// which TMA may copy, and the kernel's one `tensor_map` per tensor, box and swizzle.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/axis_info.h"
#include "ir/ir.h"

namespace kiln::schedule {

// A piece of a descriptor access's tensor (base, shape..., strides...) as the launcher can take it: a
// kernel parameter or an integer constant. `hinted` is the operand itself, whose facts (tl.multiple_of,
// the specialization's hints) axis info knows.
struct TensorPiece {
  const ir::Value* param = nullptr;
  std::optional<int64_t> value;
  const ir::Value* hinted = nullptr;
};

// The pieces of a load or store that carries a TMA description (attribute `tma`: its operands from
// 3 + tma on, docs/ir.md), or nothing when one of them is neither a kernel parameter nor a constant.
std::optional<std::vector<TensorPiece>> tensorPieces(const ir::Op& access);

// Whether TMA may copy elements of `elemBytes` bytes of that tensor without the launcher refusing the
// map: the contiguous dim last (the constant stride 1), the base 16-byte aligned and every other stride
// a multiple of 16 bytes, as far as axis info proves. With `checkedStrides`, a stride that is a kernel
// parameter not proven aligned is taken too and its dim listed there: the kernel must check it at run
// time before it copies (tma_versioning.h), the map being guarded.
bool tmaEncodable(const std::vector<TensorPiece>& pieces, int64_t elemBytes, const analysis::AxisInfoAnalysis& axis,
                  std::vector<size_t>* checkedStrides = nullptr);

// The index of the kernel's tensor_map over `pieces` with this box, swizzle and guard: one declared
// already (another copy's of the same tensor), else a new one at the kernel's entry, after the maps
// before it. A guarded map (`guarded = 1`) is one the kernel reads only after checking the values it
// is encoded from (tma_versioning.h): the launcher passes zeros where it cannot encode it.
int64_t declareTensorMap(ir::Function& fn, const std::vector<TensorPiece>& pieces, const std::vector<int64_t>& box,
                         int swizzle, bool guarded, const SourceLoc& loc);

}  // namespace kiln::schedule
