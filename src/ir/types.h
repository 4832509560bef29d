// Tile IR types: scalars (i1..u64, fp8, f16, bf16, f32, f64), pointers to a scalar element type,
// and tiles (a shape over one of those). Text form: i32, f16, ptr<f32>, tensor<64x32xf16>,
// tensor<128xptr<f32>>. In GPU IR a tile type also carries its register layout (a linear layout,
// docs/layouts.md): tensor<64x64xf32, {register=[...], lane=[...], warp=[...]} -> [dim0=64, dim1=64]>.
// GPU IR also has shared-memory buffers: `slots` tiles of one shape, each laid out by a shared layout
// (offset -> coordinates, docs/layouts.md): shared<64x32xf16, slots=3, {offset=[...]} -> [dim0=64, dim1=32]>;
// one slot of a buffer (what shared_slot gives) has slots=1, which the text leaves out.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::layout {
class LinearLayout;
}

namespace kiln::ir {

enum class Scalar : uint8_t {
  I1, I8, I16, I32, I64,
  U8, U16, U32, U64,
  F8E4M3, F8E5M2,
  F8E4B15, F8E4B8, F8E5B16,  // Triton's fp8e4b15 (bias 15, no inf/NaN), and the fnuz fp8e4b8, fp8e5b16
  F16, BF16, F32, F64,
  Ptr,  // a global-memory pointer; the element it points to is Type::pointee
};

bool isInt(Scalar s);      // i1..i64, u8..u64
bool isSigned(Scalar s);   // i8..i64 (i1 is unsigned, as in Triton)
bool isFloat(Scalar s);    // f8..f64
int bitWidth(Scalar s);    // Ptr is 64
std::string_view name(Scalar s);                          // IR spelling: "i32", "bf16", "ptr"
std::optional<Scalar> scalarFromName(std::string_view n);  // inverse of name(), not "ptr"

struct Type {
  Scalar elem = Scalar::I32;
  Scalar pointee = Scalar::I32;  // meaningful only when elem == Ptr
  std::vector<int64_t> shape;    // empty: a scalar
  // GPU IR: how the tile's elements are spread over registers, lanes and warps (a shared buffer: over
  // the element offsets of one slot). Null in Tile IR and for scalars. Compared by value.
  std::shared_ptr<const layout::LinearLayout> layout;
  // A shared-memory buffer of `slots` tiles (GPU IR only); 0: a value in registers.
  int64_t slots = 0;

  static Type scalar(Scalar s) { return Type{s, Scalar::I32, {}, nullptr}; }
  static Type ptr(Scalar pointee) { return Type{Scalar::Ptr, pointee, {}, nullptr}; }
  static Type tensor(std::vector<int64_t> shape, Scalar s) { return Type{s, Scalar::I32, std::move(shape), nullptr}; }

  // A shared-memory buffer of `slots` tiles of `shape` (GPU IR).
  static Type shared(std::vector<int64_t> shape, Scalar s, int64_t slots,
                     std::shared_ptr<const layout::LinearLayout> l) {
    return Type{s, Scalar::I32, std::move(shape), std::move(l), slots};
  }

  bool isTensor() const { return !shape.empty() && slots == 0; }  // a tile in registers
  bool isShared() const { return slots > 0; }
  // Bytes of one slot of a shared buffer (i1 as bytes), and the distance between slots: rounded up to
  // 128 bytes, so that every slot starts where the first does with respect to the swizzle patterns.
  int64_t slotBytes() const;
  int64_t slotStride() const { return (slotBytes() + 127) / 128 * 128; }
  bool isPtr() const { return elem == Scalar::Ptr; }
  bool isInt() const { return ir::isInt(elem); }
  bool isFloat() const { return ir::isFloat(elem); }
  bool isBool() const { return elem == Scalar::I1; }
  int64_t numel() const;  // 1 for scalars
  int rank() const { return int(shape.size()); }

  Type element() const { return Type{elem, pointee, {}, nullptr}; }  // the scalar type of one element
  // A new shape drops the layout (it described the old shape); a new element type keeps it.
  Type withShape(std::vector<int64_t> s) const { return Type{elem, pointee, std::move(s), nullptr, slots}; }
  Type withElem(Scalar s) const { return Type{s, Scalar::I32, shape, layout, slots}; }  // non-pointer element
  Type withElem(const Type& scalar) const { return Type{scalar.elem, scalar.pointee, shape, layout, slots}; }
  Type withLayout(std::shared_ptr<const layout::LinearLayout> l) const {
    return Type{elem, pointee, shape, std::move(l), slots};
  }
  Type withoutLayout() const { return Type{elem, pointee, shape, nullptr, slots}; }
  Type withSlots(int64_t n) const { return Type{elem, pointee, shape, layout, n}; }
  // The same elements seen with result dim i = dim order[i]: the shape and any layout's out dims
  // permuted (a permute of a tile, or a shared_permute view of a slot).
  Type permuted(const std::vector<int64_t>& order) const;

  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }
  // Equal but for layouts (a shared buffer and a register tile never are).
  bool sameShapeAndElement(const Type& o) const;

  std::string str() const;  // the text form above
};

}  // namespace kiln::ir
