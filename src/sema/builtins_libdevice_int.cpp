// libdevice's integer and bit functions (clz, popc, brev, ffs, byte_perm, mulhi, mul24, sad, hadd,
// rhadd) and its moves of float bits to and from integers (float_as_int, double2hiint, hiloint2double,
// ...), with Triton's signatures: the ops clz, popc, brev, mulhi and byte_perm, or compositions whose
// arithmetic runs on unsigned types, where wrapping is the meaning.
#include "sema/libdevice_args.h"

namespace kiln::sema {

namespace {

using namespace libdevice;
using ir::Opcode;
using ir::Scalar;

constexpr ArgTypes kI32{Scalar::I32}, kI64{Scalar::I64};

SValue val(ir::Value* v) { return SValue::irValue(v); }
Scalar unsignedOf(Scalar t) { return ir::bitWidth(t) == 64 ? Scalar::U64 : Scalar::U32; }

// clz and popc of a 64-bit integer count to at most 64: int32, as in Triton's table.
template <Opcode op>
SValue countFn(CallArgs& a) {
  ir::Value* x = externArgs(a, {kI32, kI64})[0];
  ir::Value* r = op1(a, op, x);
  return val(r->type.elem == Scalar::I32 ? r : cast(a, r, Scalar::I32));
}

SValue brevFn(CallArgs& a) { return val(op1(a, Opcode::Brev, externArgs(a, {kI32, kI64})[0])); }

// ffs: the position (from 1) of the lowest one bit, 0 for 0; x ^ (x - 1) has ones up to that bit.
SValue ffsFn(CallArgs& a) {
  ir::Value* x = externArgs(a, {kI32, kI64})[0];
  ir::Value* u = bitcast(a, x, unsignedOf(x->type.elem));
  ir::Value* below = op2(a, Opcode::Xor, u, op2(a, Opcode::Sub, u, intNum(a, 1, u->type)));
  ir::Value* n = op1(a, Opcode::Popc, below);
  ir::Value* r = select(a, cmp(a, "eq", u, intNum(a, 0, u->type)), intNum(a, 0, u->type), n);
  return val(cast(a, r, Scalar::I32));
}

SValue bytePermFn(CallArgs& a) {
  auto v = externArgs(a, {{Scalar::I32, Scalar::I32, Scalar::I32}});
  return val(emit(*a.cx, Opcode::BytePerm, {v[0], v[1], v[2]}, v[0]->type, a.loc));
}

SValue mulhiFn(CallArgs& a) {
  auto v = externArgs(a, {{Scalar::I32, Scalar::I32}, {Scalar::U32, Scalar::U32}, {Scalar::I64, Scalar::I64},
                          {Scalar::U64, Scalar::U64}});
  return val(op2(a, Opcode::MulHi, v[0], v[1]));
}

// mul24: the low 32 bits of the product of the low 24 bits of each (sign-extended for int32).
SValue mul24Fn(CallArgs& a) {
  auto v = externArgs(a, {{Scalar::I32, Scalar::I32}, {Scalar::U32, Scalar::U32}});
  const Scalar t = v[0]->type.elem;
  auto low24 = [&](ir::Value* x) {
    if (t == Scalar::U32) return op2(a, Opcode::And, x, intNum(a, 0xFFFFFF, x->type));
    ir::Value* ux = bitcast(a, x, Scalar::U32);
    ir::Value* up = op2(a, Opcode::Shl, ux, intNum(a, 8, ux->type));
    ir::Value* s = op2(a, Opcode::Shr, bitcast(a, up, Scalar::I32), intNum(a, 8, x->type));  // arithmetic
    return bitcast(a, s, Scalar::U32);
  };
  ir::Value* p = op2(a, Opcode::Mul, low24(v[0]), low24(v[1]));
  if (p->type.elem != Scalar::U32) p = bitcast(a, p, Scalar::U32);
  return val(t == Scalar::U32 ? p : bitcast(a, p, Scalar::I32));
}

// sad(x, y, z) = |x - y| + z, the difference taken exactly (as unsigned) and the sum wrapping.
SValue sadFn(CallArgs& a) {
  auto v = externArgs(a, {{Scalar::I32, Scalar::I32, Scalar::U32}, {Scalar::U32, Scalar::U32, Scalar::U32}});
  ir::Value *x = v[0], *y = v[1];
  ir::Value *ux = bitcast(a, x, Scalar::U32), *uy = bitcast(a, y, Scalar::U32);
  ir::Value* d = select(a, cmp(a, "gt", x, y), op2(a, Opcode::Sub, ux, uy), op2(a, Opcode::Sub, uy, ux));
  ir::Value* r = op2(a, Opcode::Add, d, v[2]);
  return val(x->type.elem == Scalar::U32 ? r : bitcast(a, r, Scalar::I32));
}

// hadd = (x + y) >> 1 and rhadd = (x + y + 1) >> 1 without the sum's overflow: (x & y) + ((x ^ y) >> 1)
// and (x | y) - ((x ^ y) >> 1), the shift arithmetic for int32.
template <bool roundUp>
SValue halvingAddFn(CallArgs& a) {
  auto v = externArgs(a, {{Scalar::I32, Scalar::I32}, {Scalar::U32, Scalar::U32}});
  ir::Value *x = v[0], *y = v[1];
  ir::Value* half = op2(a, Opcode::Shr, op2(a, Opcode::Xor, x, y), intNum(a, 1, x->type));
  ir::Value* base = bitcast(a, op2(a, roundUp ? Opcode::Or : Opcode::And, x, y), Scalar::U32);
  ir::Value* r = op2(a, roundUp ? Opcode::Sub : Opcode::Add, base, bitcast(a, half, Scalar::U32));
  return val(x->type.elem == Scalar::U32 ? r : bitcast(a, r, Scalar::I32));
}

// The moves of bits: a float's bits as an integer of its width and back. float_as_uint returns int32,
// as in Triton's table.
template <Scalar from, Scalar to>
SValue bitsFn(CallArgs& a) {
  return val(bitcast(a, externArgs(a, {{from}})[0], to));
}

SValue double2hiintFn(CallArgs& a) {
  ir::Value* b = bitsOf(a, externArgs(a, {{Scalar::F64}})[0]);
  return val(cast(a, op2(a, Opcode::Shr, b, intNum(a, 32, b->type)), Scalar::I32));
}
SValue double2lointFn(CallArgs& a) { return val(cast(a, bitsOf(a, externArgs(a, {{Scalar::F64}})[0]), Scalar::I32)); }
SValue hiloint2doubleFn(CallArgs& a) {
  auto v = externArgs(a, {{Scalar::I32, Scalar::I32}});
  auto word = [&](ir::Value* x) { return cast(a, bitcast(a, x, Scalar::U32), Scalar::U64); };
  ir::Value* hi = word(v[0]);
  hi = op2(a, Opcode::Shl, hi, intNum(a, 32, hi->type));
  return val(bitcast(a, op2(a, Opcode::Or, hi, word(v[1])), Scalar::F64));
}

constexpr BuiltinDef kDefs[] = {
    {"clz", kLibdevice, "arg0", countFn<Opcode::Clz>},
    {"popc", kLibdevice, "arg0", countFn<Opcode::Popc>},
    {"brev", kLibdevice, "arg0", brevFn},
    {"ffs", kLibdevice, "arg0", ffsFn},
    {"byte_perm", kLibdevice, "arg0 arg1 arg2", bytePermFn},
    {"mulhi", kLibdevice, "arg0 arg1", mulhiFn},
    {"mul24", kLibdevice, "arg0 arg1", mul24Fn},
    {"sad", kLibdevice, "arg0 arg1 arg2", sadFn},
    {"hadd", kLibdevice, "arg0 arg1", halvingAddFn<false>},
    {"rhadd", kLibdevice, "arg0 arg1", halvingAddFn<true>},
    {"int_as_float", kLibdevice, "arg0", bitsFn<Scalar::I32, Scalar::F32>},
    {"float_as_int", kLibdevice, "arg0", bitsFn<Scalar::F32, Scalar::I32>},
    {"uint_as_float", kLibdevice, "arg0", bitsFn<Scalar::U32, Scalar::F32>},
    {"float_as_uint", kLibdevice, "arg0", bitsFn<Scalar::F32, Scalar::I32>},
    {"longlong_as_double", kLibdevice, "arg0", bitsFn<Scalar::I64, Scalar::F64>},
    {"double_as_longlong", kLibdevice, "arg0", bitsFn<Scalar::F64, Scalar::I64>},
    {"double2hiint", kLibdevice, "arg0", double2hiintFn},
    {"double2loint", kLibdevice, "arg0", double2lointFn},
    {"hiloint2double", kLibdevice, "arg0 arg1", hiloint2doubleFn},
};

}  // namespace

std::span<const BuiltinDef> libdeviceIntBuiltins() { return kDefs; }

}  // namespace kiln::sema
