// libdevice's arithmetic in a chosen rounding direction (add_rz, div_ru, fma_rd, sqrt_rz, rcp_rn, ...:
// the `rounded` op), rsqrt_rn, and its conversions with a rounding direction (double2float_rd,
// int2float_ru, float2int_rn, ll2double_rz, ...: casts with a `rounding`, or float -> int casts of
// rint/floor/ceil), with Triton's signatures.
#include "ir/scalar_eval.h"
#include "sema/libdevice_args.h"

namespace kiln::sema {

namespace {

using namespace libdevice;
using ir::Opcode;
using ir::RoundedFn;
using ir::RoundMode;
using ir::Scalar;

constexpr RoundMode kRn = RoundMode::NearestEven, kRz = RoundMode::TowardZero, kRd = RoundMode::Down,
                    kRu = RoundMode::Up;

SValue val(ir::Value* v) { return SValue::irValue(v); }

template <RoundedFn fn, RoundMode m>
SValue roundedFn(CallArgs& a) {
  auto v = externArgs(a, size_t(ir::roundedArity(fn)), Floats::Both);
  return val(emit(*a.cx, Opcode::Rounded, v, v[0]->type, a.loc,
                  {ir::Attr{"fn", std::string(ir::roundedFnName(fn))},
                   ir::Attr{"mode", std::string(ir::roundModeName(m))}}));
}

// rsqrt_rn (f32): 1 / sqrt(x) in f64, each step rounded to nearest, then rounded to f32. That is the
// correctly rounded result for every f32 x: checked exhaustively over [1, 4), and scaling x by 4^k
// scales every step exactly (tests/unit/ir/rsqrt_rn_test.cpp).
SValue rsqrtRnFn(CallArgs& a) {
  ir::Value* x = cast(a, externArgs(a, 1, Floats::F32)[0], Scalar::F64);
  ir::Value* s = emit(*a.cx, Opcode::Sqrt, {x}, x->type, a.loc, {ir::Attr{"rounding", std::string("rn")}});
  ir::Value* r = emit(*a.cx, Opcode::Div, {num(a, 1.0, x->type), s}, x->type, a.loc,
                      {ir::Attr{"rounding", std::string("rn")}});
  return val(cast(a, r, Scalar::F32));
}

// A conversion to a float type in direction m: a cast carrying the rounding.
template <Scalar from, Scalar to, RoundMode m>
SValue toFloatFn(CallArgs& a) {
  ir::Value* x = externArgs(a, {{from}})[0];
  std::vector<ir::Attr> attrs;
  if (m != kRn) attrs.push_back(ir::Attr{"rounding", std::string(ir::roundModeName(m))});
  return val(emit(*a.cx, Opcode::Cast, {x}, x->type.withElem(to), a.loc, std::move(attrs)));
}

// A conversion to an integer in direction m: rounded to an integral value first (rint, floor, ceil),
// then the cast (toward zero, saturating, NaN -> 0). The unsigned ones return their bits as the signed
// type of Triton's table (float2uint_rn: int32).
template <Scalar from, Scalar to, RoundMode m>
SValue toIntFn(CallArgs& a) {
  ir::Value* x = externArgs(a, {{from}})[0];
  if (m == kRn) x = op1(a, Opcode::Rint, x);
  if (m == kRd) x = op1(a, Opcode::Floor, x);
  if (m == kRu) x = op1(a, Opcode::Ceil, x);
  ir::Value* r = cast(a, x, to);
  if (to == Scalar::U32) r = bitcast(a, r, Scalar::I32);
  if (to == Scalar::U64) r = bitcast(a, r, Scalar::I64);
  return val(r);
}

constexpr BuiltinDef kDefs[] = {
    {"add_rn", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Add, kRn>},
    {"add_rz", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Add, kRz>},
    {"add_rd", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Add, kRd>},
    {"add_ru", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Add, kRu>},
    {"sub_rn", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Sub, kRn>},
    {"sub_rz", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Sub, kRz>},
    {"sub_rd", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Sub, kRd>},
    {"sub_ru", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Sub, kRu>},
    {"mul_rn", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Mul, kRn>},
    {"mul_rz", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Mul, kRz>},
    {"mul_rd", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Mul, kRd>},
    {"mul_ru", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Mul, kRu>},
    {"div_rn", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Div, kRn>},
    {"div_rz", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Div, kRz>},
    {"div_rd", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Div, kRd>},
    {"div_ru", kLibdevice, "arg0 arg1", roundedFn<RoundedFn::Div, kRu>},
    {"fma_rz", kLibdevice, "arg0 arg1 arg2", roundedFn<RoundedFn::Fma, kRz>},
    {"fma_rd", kLibdevice, "arg0 arg1 arg2", roundedFn<RoundedFn::Fma, kRd>},
    {"fma_ru", kLibdevice, "arg0 arg1 arg2", roundedFn<RoundedFn::Fma, kRu>},
    {"rcp_rn", kLibdevice, "arg0", roundedFn<RoundedFn::Rcp, kRn>},
    {"rcp_rz", kLibdevice, "arg0", roundedFn<RoundedFn::Rcp, kRz>},
    {"rcp_rd", kLibdevice, "arg0", roundedFn<RoundedFn::Rcp, kRd>},
    {"rcp_ru", kLibdevice, "arg0", roundedFn<RoundedFn::Rcp, kRu>},
    {"sqrt_rz", kLibdevice, "arg0", roundedFn<RoundedFn::Sqrt, kRz>},
    {"sqrt_rd", kLibdevice, "arg0", roundedFn<RoundedFn::Sqrt, kRd>},
    {"sqrt_ru", kLibdevice, "arg0", roundedFn<RoundedFn::Sqrt, kRu>},
    {"rsqrt_rn", kLibdevice, "arg0", rsqrtRnFn},
    {"double2float_rn", kLibdevice, "arg0", toFloatFn<Scalar::F64, Scalar::F32, kRn>},
    {"double2float_rz", kLibdevice, "arg0", toFloatFn<Scalar::F64, Scalar::F32, kRz>},
    {"double2float_rd", kLibdevice, "arg0", toFloatFn<Scalar::F64, Scalar::F32, kRd>},
    {"double2float_ru", kLibdevice, "arg0", toFloatFn<Scalar::F64, Scalar::F32, kRu>},
    {"double2int_rn", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::I32, kRn>},
    {"double2int_rz", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::I32, kRz>},
    {"double2int_rd", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::I32, kRd>},
    {"double2int_ru", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::I32, kRu>},
    {"double2uint_rn", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::U32, kRn>},
    {"double2uint_rz", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::U32, kRz>},
    {"double2uint_rd", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::U32, kRd>},
    {"double2uint_ru", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::U32, kRu>},
    {"int2double_rn", kLibdevice, "arg0", toFloatFn<Scalar::I32, Scalar::F64, kRn>},
    {"uint2double_rn", kLibdevice, "arg0", toFloatFn<Scalar::U32, Scalar::F64, kRn>},
    {"float2int_rn", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::I32, kRn>},
    {"float2int_rz", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::I32, kRz>},
    {"float2int_rd", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::I32, kRd>},
    {"float2int_ru", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::I32, kRu>},
    {"float2uint_rn", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::U32, kRn>},
    {"float2uint_rz", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::U32, kRz>},
    {"float2uint_rd", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::U32, kRd>},
    {"float2uint_ru", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::U32, kRu>},
    {"int2float_rn", kLibdevice, "arg0", toFloatFn<Scalar::I32, Scalar::F32, kRn>},
    {"int2float_rz", kLibdevice, "arg0", toFloatFn<Scalar::I32, Scalar::F32, kRz>},
    {"int2float_rd", kLibdevice, "arg0", toFloatFn<Scalar::I32, Scalar::F32, kRd>},
    {"int2float_ru", kLibdevice, "arg0", toFloatFn<Scalar::I32, Scalar::F32, kRu>},
    {"uint2float_rn", kLibdevice, "arg0", toFloatFn<Scalar::U32, Scalar::F32, kRn>},
    {"uint2float_rz", kLibdevice, "arg0", toFloatFn<Scalar::U32, Scalar::F32, kRz>},
    {"uint2float_rd", kLibdevice, "arg0", toFloatFn<Scalar::U32, Scalar::F32, kRd>},
    {"uint2float_ru", kLibdevice, "arg0", toFloatFn<Scalar::U32, Scalar::F32, kRu>},
    {"float2ll_rn", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::I64, kRn>},
    {"float2ll_rz", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::I64, kRz>},
    {"float2ll_rd", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::I64, kRd>},
    {"float2ll_ru", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::I64, kRu>},
    {"float2ull_rn", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::U64, kRn>},
    {"float2ull_rz", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::U64, kRz>},
    {"float2ull_rd", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::U64, kRd>},
    {"float2ull_ru", kLibdevice, "arg0", toIntFn<Scalar::F32, Scalar::U64, kRu>},
    {"double2ll_rn", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::I64, kRn>},
    {"double2ll_rz", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::I64, kRz>},
    {"double2ll_rd", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::I64, kRd>},
    {"double2ll_ru", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::I64, kRu>},
    {"double2ull_rn", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::U64, kRn>},
    {"double2ull_rz", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::U64, kRz>},
    {"double2ull_rd", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::U64, kRd>},
    {"double2ull_ru", kLibdevice, "arg0", toIntFn<Scalar::F64, Scalar::U64, kRu>},
    {"ll2float_rn", kLibdevice, "arg0", toFloatFn<Scalar::I64, Scalar::F32, kRn>},
    {"ll2float_rz", kLibdevice, "arg0", toFloatFn<Scalar::I64, Scalar::F32, kRz>},
    {"ll2float_rd", kLibdevice, "arg0", toFloatFn<Scalar::I64, Scalar::F32, kRd>},
    {"ll2float_ru", kLibdevice, "arg0", toFloatFn<Scalar::I64, Scalar::F32, kRu>},
    {"ull2float_rn", kLibdevice, "arg0", toFloatFn<Scalar::U64, Scalar::F32, kRn>},
    {"ull2float_rz", kLibdevice, "arg0", toFloatFn<Scalar::U64, Scalar::F32, kRz>},
    {"ull2float_rd", kLibdevice, "arg0", toFloatFn<Scalar::U64, Scalar::F32, kRd>},
    {"ull2float_ru", kLibdevice, "arg0", toFloatFn<Scalar::U64, Scalar::F32, kRu>},
    {"ll2double_rn", kLibdevice, "arg0", toFloatFn<Scalar::I64, Scalar::F64, kRn>},
    {"ll2double_rz", kLibdevice, "arg0", toFloatFn<Scalar::I64, Scalar::F64, kRz>},
    {"ll2double_rd", kLibdevice, "arg0", toFloatFn<Scalar::I64, Scalar::F64, kRd>},
    {"ll2double_ru", kLibdevice, "arg0", toFloatFn<Scalar::I64, Scalar::F64, kRu>},
    {"ull2double_rn", kLibdevice, "arg0", toFloatFn<Scalar::U64, Scalar::F64, kRn>},
    {"ull2double_rz", kLibdevice, "arg0", toFloatFn<Scalar::U64, Scalar::F64, kRz>},
    {"ull2double_rd", kLibdevice, "arg0", toFloatFn<Scalar::U64, Scalar::F64, kRd>},
    {"ull2double_ru", kLibdevice, "arg0", toFloatFn<Scalar::U64, Scalar::F64, kRu>},
};

}  // namespace

std::span<const BuiltinDef> libdeviceRoundingBuiltins() { return kDefs; }

}  // namespace kiln::sema
