// tl.load and tl.store through a pointer or a tensor of pointers: mask and other/value broadcast to
// the pointer's shape, other/value cast to the pointee type, cache and eviction hints validated
// against Triton's sets. Pointers to i1 access memory as bytes (i8), as in Triton. The mask and shape
// checks serve the atomics too (builtins_atomic.cpp). Block pointers go to builtins_block_ptr.cpp.
#include "sema/block_access.h"

namespace kiln::sema {

using ir::Opcode;
using ir::Scalar;
using ir::Type;

namespace {

bool oneOf(const std::string& s, std::initializer_list<const char*> set) {
  for (const char* c : set)
    if (s == c) return true;
  return false;
}

std::string cacheAttr(const CallArgs& a, size_t i, bool store) {
  std::string c = a.strArg(i, "");
  bool ok = store ? oneOf(c, {"", ".wb", ".cg", ".cs", ".wt"}) : oneOf(c, {"", ".ca", ".cg", ".cv"});
  if (!ok)
    a.fail(a.display + "(): cache_modifier '" + c + "' is not supported; use " +
           (store ? "'', '.wb', '.cg', '.cs' or '.wt'" : "'', '.ca', '.cg' or '.cv'"));
  return c.empty() ? c : c.substr(1);  // the attribute holds the PTX qualifier without its dot
}

std::string evictAttr(const CallArgs& a, size_t i) {
  std::string e = a.strArg(i, "");
  if (!oneOf(e, {"", "evict_first", "evict_last"}))
    a.fail(a.display + "(): eviction_policy '" + e + "' is not supported; use '', 'evict_first' or 'evict_last'");
  return e;
}

ir::Value* pointerArg(const CallArgs& a, const char* verb) {
  const SValue& p = a.at(0);
  if (!p.isIR() || !p.ir->type.isPtr())
    a.fail(std::string(verb) + " expects a pointer or a tensor of pointers, got " + p.describe());
  return p.ir;
}

void rejectBlockPointerArgs(const CallArgs& a, size_t boundaryCheck, std::optional<size_t> padding) {
  bool bc = a.has(boundaryCheck) && !(a.get(boundaryCheck).kind == SValue::Kind::Tuple &&
                                      a.get(boundaryCheck).elts.empty());
  bool pad = padding && !a.strArg(*padding, "").empty();
  if (bc || pad)
    a.fail(a.display + "(): boundary_check and padding_option apply only to block pointers (tl.make_block_ptr): "
                       "the bounds of a tensor of pointers or a scalar pointer are unknown; use a mask");
}

// ptr<i1> is read and written as ptr<i8>.
ir::Value* bytePointer(Context& cx, ir::Value* ptr, const SourceLoc& loc) {
  if (ptr->type.pointee != Scalar::I1) return ptr;
  return emit(cx, Opcode::Bitcast, {ptr}, ptr->type.withElem(Type::ptr(Scalar::I8)), loc);
}

std::vector<ir::Attr> accessAttrs(const std::string& cache, const std::string& evict, bool isVolatile) {
  std::vector<ir::Attr> attrs;
  if (!cache.empty()) attrs.push_back({"cache", cache});
  if (!evict.empty()) attrs.push_back({"evict", evict});
  if (isVolatile) attrs.push_back({"volatile", int64_t(1)});
  return attrs;
}

SValue load(CallArgs& a) {
  Context& cx = *a.cx;
  if (a.at(0).kind == SValue::Kind::Block)
    return loadBlockPointer(a, accessAttrs(cacheAttr(a, 5, false), evictAttr(a, 6), a.boolArg(7, false)));
  ir::Value* ptr = pointerArg(a, "tl.load");
  ir::Value* mask = maskArg(a, 1);
  bool hasOther = a.has(2);
  if (hasOther && !mask) a.fail(a.display + "(): 'other' cannot be given without 'mask'");
  rejectBlockPointerArgs(a, 3, 4);
  std::string cache = cacheAttr(a, 5, false), evict = evictAttr(a, 6);
  bool isVolatile = a.boolArg(7, false);
  ir::Value* other = hasOther ? toTensor(cx, a.at(2), a.loc, a.display + "(): 'other'") : nullptr;
  Shape shape = ptr->type.shape;
  if (!ptr->type.isTensor()) {
    if ((mask && mask->type.isTensor()) || (other && other->type.isTensor()))
      a.fail(a.display + "(): mask and other must be scalars when loading through a single pointer");
  } else {
    if (mask) shape = broadcastShape(shape, mask->type.shape, a.loc);
    if (other) shape = broadcastShape(shape, other->type.shape, a.loc);
  }
  Type elem = Type::scalar(ptr->type.pointee);
  bool isBool = elem.isBool();
  Type memElem = isBool ? Type::scalar(Scalar::I8) : elem;
  ptr = broadcastTo(cx, bytePointer(cx, ptr, a.loc), shape, a.loc);
  std::vector<ir::Value*> operands{ptr};
  if (mask) operands.push_back(broadcastTo(cx, mask, shape, a.loc));
  if (other) operands.push_back(broadcastTo(cx, castElem(cx, other, memElem, a.loc), shape, a.loc));
  ir::Value* v = emit(cx, Opcode::Load, operands, memElem.withShape(shape), a.loc,
                      accessAttrs(cache, evict, isVolatile));
  if (isBool) v = castElem(cx, v, elem, a.loc);
  return SValue::irValue(v);
}

SValue store(CallArgs& a) {
  Context& cx = *a.cx;
  if (a.at(0).kind == SValue::Kind::Block)
    return storeBlockPointer(a, accessAttrs(cacheAttr(a, 4, true), evictAttr(a, 5), false));
  ir::Value* ptr = pointerArg(a, "tl.store");
  ir::Value* value = toTensor(cx, a.at(1), a.loc, a.display + "(): the value");
  ir::Value* mask = maskArg(a, 2);
  rejectBlockPointerArgs(a, 3, std::nullopt);
  std::string cache = cacheAttr(a, 4, true), evict = evictAttr(a, 5);
  const Shape& shape = ptr->type.shape;
  checkFitsPointer(a, ptr, value, "the value", "storing");
  checkFitsPointer(a, ptr, mask, "the mask", "storing");
  Type elem = Type::scalar(ptr->type.pointee);
  Type memElem = elem.isBool() ? Type::scalar(Scalar::I8) : elem;
  ptr = bytePointer(cx, ptr, a.loc);
  if (elem.isBool()) value = castElem(cx, value, elem, a.loc);  // i1 first (x != 0), then 0/1 bytes
  std::vector<ir::Value*> operands{ptr, broadcastTo(cx, castElem(cx, value, memElem, a.loc), shape, a.loc)};
  if (mask) operands.push_back(broadcastTo(cx, mask, shape, a.loc));
  cx.b.create(Opcode::Store, operands, {}, accessAttrs(cache, evict, false), a.loc);
  return SValue::none();
}

constexpr BuiltinDef kMemory[] = {
    {"load", kTl,
     "pointer mask? other? boundary_check? padding_option? cache_modifier? eviction_policy? volatile?", load},
    {"store", kTl | kMember, "pointer value mask? boundary_check? cache_modifier? eviction_policy?", store},
};

}  // namespace

ir::Value* maskArg(CallArgs& a, size_t i) {
  if (!a.has(i)) return nullptr;
  ir::Value* m = toTensor(*a.cx, a.at(i), a.loc, a.display + "(): the mask");
  if (!m->type.isBool()) a.fail(a.display + "(): the mask must be boolean (i1), got " + a.at(i).describe());
  return m;
}

void checkFitsPointer(const CallArgs& a, const ir::Value* ptr, ir::Value* v, const char* what, const char* verb) {
  if (!v) return;
  if (!ptr->type.isTensor() && v->type.isTensor())
    a.fail(a.display + "(): " + what + " must be a scalar when " + verb + " through a single pointer, got " +
           SValue::irValue(v).describe());
  const Shape& shape = ptr->type.shape;
  const Shape& vs = v->type.shape;
  bool ok = vs.size() <= shape.size();
  for (size_t i = 0; ok && i < vs.size(); ++i) {
    int64_t d = vs[vs.size() - 1 - i];
    ok = d == 1 || d == shape[shape.size() - 1 - i];
  }
  if (!ok)
    a.fail(a.display + "(): " + what + " of shape " + shapeStr(v->type.shape) +
           " does not broadcast to the pointer shape " + shapeStr(shape));
}

std::span<const BuiltinDef> memoryBuiltins() { return kMemory; }

}  // namespace kiln::sema
