// Scalar kinds and the text form of types.
#include "ir/types.h"

#include "layout/linear_layout.h"

namespace kiln::ir {

bool isInt(Scalar s) { return s <= Scalar::U64; }
bool isSigned(Scalar s) { return s >= Scalar::I8 && s <= Scalar::I64; }
bool isFloat(Scalar s) { return s >= Scalar::F8E4M3 && s <= Scalar::F64; }

int bitWidth(Scalar s) {
  switch (s) {
    case Scalar::I1: return 1;
    case Scalar::I8: case Scalar::U8: case Scalar::F8E4M3: case Scalar::F8E5M2:
    case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16: return 8;
    case Scalar::I16: case Scalar::U16: case Scalar::F16: case Scalar::BF16: return 16;
    case Scalar::I32: case Scalar::U32: case Scalar::F32: return 32;
    case Scalar::I64: case Scalar::U64: case Scalar::F64: case Scalar::Ptr: return 64;
  }
  return 0;
}

std::string_view name(Scalar s) {
  switch (s) {
    case Scalar::I1: return "i1";
    case Scalar::I8: return "i8";
    case Scalar::I16: return "i16";
    case Scalar::I32: return "i32";
    case Scalar::I64: return "i64";
    case Scalar::U8: return "u8";
    case Scalar::U16: return "u16";
    case Scalar::U32: return "u32";
    case Scalar::U64: return "u64";
    case Scalar::F8E4M3: return "f8e4m3";
    case Scalar::F8E5M2: return "f8e5m2";
    case Scalar::F8E4B15: return "f8e4b15";
    case Scalar::F8E4B8: return "f8e4b8";
    case Scalar::F8E5B16: return "f8e5b16";
    case Scalar::F16: return "f16";
    case Scalar::BF16: return "bf16";
    case Scalar::F32: return "f32";
    case Scalar::F64: return "f64";
    case Scalar::Ptr: return "ptr";
  }
  return "?";
}

std::optional<Scalar> scalarFromName(std::string_view n) {
  for (int i = 0; i < int(Scalar::Ptr); ++i)
    if (name(Scalar(i)) == n) return Scalar(i);
  return std::nullopt;
}

int64_t Type::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Type::slotBytes() const { return numel() * (elem == Scalar::I1 ? 1 : bitWidth(elem) / 8); }

Type Type::permuted(const std::vector<int64_t>& order) const {
  std::vector<int64_t> s;
  std::vector<std::string> names;  // result dim i is dim order[i]
  for (int64_t o : order) {
    s.push_back(shape.at(size_t(o)));
    names.push_back(layout::dimName(int(o)));
  }
  Type out = withShape(std::move(s));
  if (layout)
    out.layout = std::make_shared<const layout::LinearLayout>(
        layout->transposeOuts(names).renameOuts(layout::standardOutDims(int(order.size()))));
  return out;
}

bool Type::sameShapeAndElement(const Type& o) const {
  return elem == o.elem && shape == o.shape && (elem != Scalar::Ptr || pointee == o.pointee) &&
         slots == o.slots;
}

bool Type::operator==(const Type& o) const {
  if (!sameShapeAndElement(o)) return false;
  if (layout == o.layout) return true;
  return layout && o.layout && *layout == *o.layout;
}

std::string Type::str() const {
  std::string e = isPtr() ? "ptr<" + std::string(name(pointee)) + ">" : std::string(name(elem));
  if (shape.empty()) return e;
  std::string s = isShared() ? "shared<" : "tensor<";
  for (int64_t d : shape) s += std::to_string(d) + "x";
  s += e;
  if (slots > 1) s += ", slots=" + std::to_string(slots);
  if (layout) s += ", " + layout->str();
  return s + ">";
}

}  // namespace kiln::ir
