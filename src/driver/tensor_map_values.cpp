// TensorMapReader (tensor_map_values.h): a tensor-map spec bound to a kernel's parameters, read per launch.
#include "driver/tensor_map_values.h"

#include <cstdio>
#include <cstring>

namespace kiln {

namespace {

// The CU_TENSOR_MAP_DATA_TYPE_* of an element type; -1 where TMA has none (i1, pointers). fp8 and i8
// travel as bytes: TMA copies them without looking.
int tmaDataType(ir::Scalar s) {
  using ir::Scalar;
  switch (s) {
    case Scalar::I8: case Scalar::U8:
    case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F8E4B15: case Scalar::F8E4B8: case Scalar::F8E5B16:
      return runtime::cu::kTensorMapDataTypeUint8;
    case Scalar::I16: case Scalar::U16: return runtime::cu::kTensorMapDataTypeUint16;
    case Scalar::I32: return runtime::cu::kTensorMapDataTypeInt32;
    case Scalar::U32: return runtime::cu::kTensorMapDataTypeUint32;
    case Scalar::I64: return runtime::cu::kTensorMapDataTypeInt64;
    case Scalar::U64: return runtime::cu::kTensorMapDataTypeUint64;
    case Scalar::F16: return runtime::cu::kTensorMapDataTypeFloat16;
    case Scalar::BF16: return runtime::cu::kTensorMapDataTypeBfloat16;
    case Scalar::F32: return runtime::cu::kTensorMapDataTypeFloat32;
    case Scalar::F64: return runtime::cu::kTensorMapDataTypeFloat64;
    case Scalar::I1: case Scalar::Ptr: return -1;
  }
  return -1;
}

int swizzleMode(int bytes) {
  switch (bytes) {
    case 0: return runtime::cu::kTensorMapSwizzleNone;
    case 32: return runtime::cu::kTensorMapSwizzle32B;
    case 64: return runtime::cu::kTensorMapSwizzle64B;
    case 128: return runtime::cu::kTensorMapSwizzle128B;
  }
  return -1;
}

std::string listText(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

constexpr int64_t kMaxDim = int64_t(1) << 32;
constexpr int64_t kStrideLimitBytes = int64_t(1) << 40;

}  // namespace

std::optional<TensorMapReader> TensorMapReader::bind(const TensorMapSpec& spec, size_t index,
                                                     std::span<const Param> params, std::string& whyNot) {
  const bool baseOk = spec.base.param >= 0 && size_t(spec.base.param) < params.size();
  const std::string map = "tensor map " + std::to_string(index) +
                          (baseOk ? " over parameter '" + params[size_t(spec.base.param)].name + "'" : "");
  auto fail = [&](const std::string& why) {
    whyNot = map + ": " + why;
    return std::nullopt;
  };
  if (!baseOk)
    return fail("its base must be a kernel parameter, got " +
                (spec.base.param < 0 ? "a constant" : "parameter #" + std::to_string(spec.base.param)));
  const Param& base = params[size_t(spec.base.param)];
  if (!base.pointer) return fail("its base must be a pointer parameter, got " + base.type);
  const size_t rank = spec.shape.size();
  if (rank < 1 || rank > runtime::cu::kTensorMapMaxRank)
    return fail("TMA takes 1 to 5 dims, got " + std::to_string(rank));
  if (spec.strides.size() != rank || spec.box.size() != rank)
    return fail("shape, strides and box must have one entry per dim, got " + std::to_string(rank) + ", " +
                std::to_string(spec.strides.size()) + " and " + std::to_string(spec.box.size()));
  TensorMapReader r;
  r.elem_ = spec.elem;
  r.fixed_.dataType = tmaDataType(spec.elem);
  if (r.fixed_.dataType < 0)
    return fail("TMA has no data type for " + std::string(ir::name(spec.elem)) + " elements");
  r.elemBytes_ = ir::bitWidth(spec.elem) / 8;
  r.base_ = spec.base.param;
  r.fixed_.rank = uint32_t(rank);
  r.fixed_.swizzle = swizzleMode(spec.swizzle);
  if (r.fixed_.swizzle < 0)
    return fail("swizzle must be 0, 32, 64 or 128 bytes, got " + std::to_string(spec.swizzle));
  for (size_t d = 0; d < rank; ++d) {
    if (spec.box[d] < 1 || spec.box[d] > 256)
      return fail("each box dim must be from 1 to 256 elements, got " + listText(spec.box));
    r.fixed_.box[rank - 1 - d] = uint32_t(spec.box[d]);
  }
  const int64_t rowBytes = spec.box.back() * r.elemBytes_;
  if (rowBytes % 16 != 0 || (spec.swizzle != 0 && rowBytes > spec.swizzle))
    return fail("the box " + listText(spec.box) + " spans " + std::to_string(rowBytes) +
                " bytes along the contiguous dim; TMA needs a multiple of 16" +
                (spec.swizzle ? " and at most the swizzle (" + std::to_string(spec.swizzle) + " bytes)" : ""));
  auto operand = [&](const TensorMapOperand& o, const char* what, size_t d, Operand& out) -> bool {
    if (o.param < 0) {
      out.value = o.value;
      return true;
    }
    if (size_t(o.param) >= params.size()) {
      whyNot = map + ": its " + what + " " + std::to_string(d) + " names parameter #" + std::to_string(o.param) +
               ", but the kernel has " + std::to_string(params.size());
      return false;
    }
    const Param& p = params[size_t(o.param)];
    std::optional<ir::Scalar> s = ir::scalarFromName(p.type);
    if (p.pointer || !s || !ir::isInt(*s) || *s == ir::Scalar::I1) {
      whyNot = map + ": its " + what + " " + std::to_string(d) + " is parameter '" + p.name + "' of type " + p.type +
               ", not an integer";
      return false;
    }
    out.param = o.param;
    out.bytes = ir::bitWidth(*s) / 8;
    out.isSigned = ir::isSigned(*s);
    return true;
  };
  r.shape_.resize(rank);
  r.strides_.resize(rank);
  for (size_t d = 0; d < rank; ++d)
    if (!operand(spec.shape[d], "dim", d, r.shape_[d]) || !operand(spec.strides[d], "stride", d, r.strides_[d]))
      return std::nullopt;
  if (r.strides_.back().param >= 0 || r.strides_.back().value != 1)
    return fail("its contiguous (last) stride must be the constant 1");
  return r;
}

int64_t TensorMapReader::valueOf(const Operand& o, void* const* kernelParams, bool& beyondInt64) const {
  beyondInt64 = false;
  if (o.param < 0) return o.value;
  const auto* p = static_cast<const unsigned char*>(kernelParams[o.param]);
  switch (o.bytes) {
    case 1: { uint8_t v; std::memcpy(&v, p, 1); return o.isSigned ? int64_t(int8_t(v)) : int64_t(v); }
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return o.isSigned ? int64_t(int16_t(v)) : int64_t(v); }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return o.isSigned ? int64_t(int32_t(v)) : int64_t(v); }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      beyondInt64 = !o.isSigned && v > uint64_t(INT64_MAX);
      return beyondInt64 ? INT64_MAX : int64_t(v);
    }
  }
}

std::optional<std::string> TensorMapReader::read(void* const* kernelParams, std::span<const std::string> where,
                                                 runtime::TensorMapValues& out) const {
  out = fixed_;
  uint64_t address;
  std::memcpy(&address, kernelParams[base_], 8);
  const std::string& base = where[size_t(base_)];
  if (address % 16 != 0) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
    return base + ": the tensor map over it needs a 16-byte aligned address; got " + text;
  }
  out.address = address;
  const size_t rank = shape_.size();
  // "argument 1 ('M'): the tensor map over argument 0 ('a_ptr') needs ...; got 5", or for a constant
  // operand "the tensor map over argument 0 ('a_ptr') needs ...; got the constant 5 (dim 1)".
  auto problem = [&](const Operand& o, const std::string& needs, const std::string& got, const char* what, size_t d) {
    if (o.param >= 0)
      return where[size_t(o.param)] + ": the tensor map over " + base + " needs " + needs + "; got " + got;
    return "the tensor map over " + base + " needs " + needs + "; got the constant " + got + " (" + what + " " +
           std::to_string(d) + ")";
  };
  for (size_t d = 0; d < rank; ++d) {
    bool huge = false;
    const int64_t dim = valueOf(shape_[d], kernelParams, huge);
    if (huge || dim < 1 || dim > kMaxDim)
      return problem(shape_[d], "dims from 1 to 2^32 elements",
                     huge ? std::to_string(*static_cast<const uint64_t*>(kernelParams[shape_[d].param]))
                          : std::to_string(dim),
                     "dim", d);
    out.dims[rank - 1 - d] = uint64_t(dim);
  }
  for (size_t d = 0; d + 1 < rank; ++d) {
    bool huge = false;
    const int64_t stride = valueOf(strides_[d], kernelParams, huge);
    auto got = [&] {
      if (huge)
        return std::to_string(*static_cast<const uint64_t*>(kernelParams[strides_[d].param])) + " elements";
      std::string text =
          std::to_string(stride) + " element" + (stride == 1 ? "" : "s") + " of " + std::string(ir::name(elem_));
      if (stride > 0 && stride < kStrideLimitBytes) text += " = " + std::to_string(stride * elemBytes_) + " bytes";
      return text;
    };
    if (!huge && stride < 1) return problem(strides_[d], "positive row strides", got(), "stride", d);
    if (huge || stride >= kStrideLimitBytes / elemBytes_)
      return problem(strides_[d], "row strides below 2^40 bytes", got(), "stride", d);
    if (stride * elemBytes_ % 16 != 0)
      return problem(strides_[d], "row strides that are multiples of 16 bytes", got(), "stride", d);
    out.strides[rank - 2 - d] = uint64_t(stride * elemBytes_);
  }
  return std::nullopt;
}

}  // namespace kiln
