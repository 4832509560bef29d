// The type rule of every Tile IR op: one switch over ops.def with no `default:`, so adding an op breaks
// the build until its rule is written here or in its family's verifier_*.cpp; and the helpers they share.
#include <algorithm>
#include <bit>

#include "ir/dot_precision.h"
#include "ir/scalar_eval.h"
#include "ir/verifier_rules.h"

namespace kiln::ir {

std::string shapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

bool isPermutation(const std::vector<int64_t>& order, int rank) {
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool perm = int(order.size()) == rank;
  for (size_t i = 0; perm && i < sorted.size(); ++i) perm = sorted[i] == int64_t(i);
  return perm;
}

namespace {

void stringIn(const Op& op, std::string_view attr, std::initializer_list<std::string_view> allowed,
              bool optional = false) {
  const AttrValue* v = op.findAttr(attr);
  if (!v && optional) return;
  const std::string& s = std::get<std::string>(*v);  // kind checked before the type rule
  if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return;
  std::string list;
  for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  verifyFail(op, std::string(attr) + " must be one of " + list + ", got \"" + s + "\"");
}

// Element-wise: operands and result share one non-pointer type.
void elementwise(const Op& op, bool intsOnly, bool floatsOnly) {
  const Type& t = op.result()->type;
  for (const Value* v : op.operands)
    require(v->type == t, op,
            [&] { return "needs operands and result of one type, got " + typeList(typesOf(op.operands)) + " -> " +
                         t.str(); });
  require(!t.isPtr(), op, [&] { return "does not take pointers (use ptr_add), got " + t.str(); });
  require(!intsOnly || t.isInt(), op, [&] { return "takes integers or i1, got " + t.str(); });
  require(!floatsOnly || t.isFloat(), op, [&] { return "takes floats, got " + t.str(); });
}

}  // namespace

std::string typeList(const std::vector<Type>& ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].str();
  return s + ")";
}

std::vector<Type> typesOf(const std::vector<Value*>& vs, size_t from) {
  std::vector<Type> out;
  for (size_t i = from; i < vs.size(); ++i) out.push_back(vs[i]->type);
  return out;
}

std::vector<Type> argTypes(const Block& b) {
  std::vector<Type> out;
  for (const auto& a : b.args) out.push_back(a->type);
  return out;
}

void terminatedBy(const Op& op, const Block& region, Opcode term, const std::vector<Type>& want, const char* what) {
  const Op* t = region.terminator();
  if (!t || t->opcode != term) verifyFail(op, std::string(what) + " must end with '" + info(term).spelling + "'");
  for (const Value* v : t->operands)
    if (!v) verifyFail(*t, "has a null operand");
  size_t from = term == Opcode::Condition ? 1 : 0;
  if (t->operands.size() < from) return;  // the terminator's own arity check reports it
  std::vector<Type> got = typesOf(t->operands, from);
  if (got != want)
    verifyFail(*t, "passes " + typeList(got) + " where " + what + " of '" + op.name() + "' needs " + typeList(want));
}

void checkTypeRule(const Op& op, const Block& parent, bool last) {
  auto T = [&](unsigned i) -> const Type& { return op.operands[i]->type; };
  auto R = [&]() -> const Type& { return op.results.at(0)->type; };

  switch (op.opcode) {
    case Opcode::Constant: {
      const AttrValue& v = *op.findAttr("value");
      require(!R().isPtr(), op, [&] { return "cannot produce a pointer"; });
      if (R().isFloat()) require(std::holds_alternative<double>(v), op,
                                 [&] { return "of type " + R().str() + " needs a float value (such as 1.0)"; });
      if (R().isInt()) require(std::holds_alternative<int64_t>(v), op,
                               [&] { return "of type " + R().str() + " needs an integer value"; });
      return;
    }
    case Opcode::ProgramId:
    case Opcode::NumPrograms: {
      require(R() == Type::scalar(Scalar::I32), op, [&] { return "produces an i32 scalar, got " + R().str(); });
      int64_t axis = op.intAttr("axis");
      require(axis >= 0 && axis <= 2, op, [&] { return "axis must be 0, 1 or 2, got " + std::to_string(axis); });
      return;
    }
    case Opcode::Arange: {
      int64_t start = op.intAttr("start"), end = op.intAttr("end");
      require(start >= INT32_MIN && end <= int64_t(INT32_MAX) + 1 && end > start, op,
              [&] {
                return "needs start < end within i32, got start " + std::to_string(start) + ", end " +
                       std::to_string(end);
              });
      int64_t n = end - start;
      require((n & (n - 1)) == 0, op,
              [&] { return "length end - start must be a power of two, got " + std::to_string(n); });
      require(R().withoutLayout() == Type::tensor({n}, Scalar::I32), op,
              [&] { return "produces tensor<" + std::to_string(n) + "xi32>, got " + R().str(); });
      return;
    }
    case Opcode::Splat:
      require(!T(0).isTensor(), op, [&] { return "takes a scalar, got " + T(0).str(); });
      require(R().isTensor() && R().element() == T(0), op,
              [&] { return "of " + T(0).str() + " cannot produce " + R().str(); });
      return;
    case Opcode::Broadcast: {
      const Type& a = T(0);
      bool ok = a.isTensor() && a.rank() == R().rank() && a.element() == R().element();
      for (int i = 0; ok && i < a.rank(); ++i) ok = a.shape[size_t(i)] == R().shape[size_t(i)] || a.shape[size_t(i)] == 1;
      require(ok, op,
              [&] { return "cannot broadcast " + a.str() + " to " + R().str() + " (same rank; each dim equal or 1)"; });
      return;
    }
    case Opcode::ExpandDims: {
      int64_t axis = op.intAttr("axis");
      require(axis >= 0 && axis <= T(0).rank(), op,
              [&] { return "axis " + std::to_string(axis) + " out of range for " + T(0).str(); });
      std::vector<int64_t> s = T(0).shape;
      s.insert(s.begin() + axis, 1);
      require(R().withoutLayout() == T(0).withShape(s), op,
              [&] { return "of " + T(0).str() + " at axis " + std::to_string(axis) + " produces " +
                           T(0).withShape(s).str() + ", got " + R().str(); });
      return;
    }
    case Opcode::Reshape:
      require(R().element() == T(0).element() && R().numel() == T(0).numel(), op,
              [&] { return "cannot reshape " + T(0).str() + " to " + R().str() + " (same element type and count)"; });
      return;
    case Opcode::Permute: {
      const auto& order = op.listAttr("order");
      require(isPermutation(order, T(0).rank()), op,
              [&] { return "order " + shapeText(order) + " is not a permutation of the dims of " + T(0).str(); });
      std::vector<int64_t> s;
      for (int64_t o : order) s.push_back(T(0).shape[size_t(o)]);
      require(R().withoutLayout() == T(0).withShape(s), op,
              [&] { return "of " + T(0).str() + " by " + shapeText(order) + " produces " +
                           T(0).withShape(s).str() + ", got " + R().str(); });
      return;
    }
    case Opcode::Cast:
      require(T(0).shape == R().shape, op,
              [&] { return "cannot change the shape: " + T(0).str() + " -> " + R().str(); });
      require(!T(0).isPtr() && !R().isPtr(), op,
              [&] { return "does not convert pointers (use bitcast): " + T(0).str() + " -> " + R().str(); });
      stringIn(op, "rounding", {"rtne", "rtz", "rtn", "rtp"}, true);
      if (op.strAttrOr("rounding", "rtne") == "rtn" || op.strAttrOr("rounding", "rtne") == "rtp")
        require(R().elem == Scalar::F32 || R().elem == Scalar::F64, op,
                [&] { return "rounds toward -inf or +inf only to f32 or f64, got " + R().str(); });
      return;
    case Opcode::Bitcast:
      require(T(0).shape == R().shape && bitWidth(T(0).elem) == bitWidth(R().elem), op,
              [&] { return "needs the same shape and bit width: " + T(0).str() + " -> " + R().str(); });
      return;

    case Opcode::Div:
      stringIn(op, "rounding", {"rn"}, true);
      return elementwise(op, false, false);
    case Opcode::Min:
    case Opcode::Max:
      require(op.intAttrOr("propagate_nan", 0) == 0 || op.intAttrOr("propagate_nan", 0) == 1, op,
              [&] { return "propagate_nan must be 0 or 1"; });
      return elementwise(op, false, false);
    case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Rem: case Opcode::Neg: case Opcode::Abs:
      return elementwise(op, false, false);
    case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Shl: case Opcode::Shr: case Opcode::Not:
    case Opcode::UMulHi:
      return elementwise(op, true, false);
    case Opcode::Sqrt:
      stringIn(op, "rounding", {"rn"}, true);
      return elementwise(op, false, true);
    case Opcode::Fma: case Opcode::Exp: case Opcode::Exp2: case Opcode::Log: case Opcode::Log2: case Opcode::Rsqrt:
    case Opcode::Sin: case Opcode::Cos: case Opcode::Tanh: case Opcode::Erf: case Opcode::Floor: case Opcode::Ceil:
    case Opcode::Trunc: case Opcode::Rint: case Opcode::Expm1: case Opcode::Log1p: case Opcode::Log10: case Opcode::Exp10:
    case Opcode::Tan: case Opcode::Asin: case Opcode::Acos: case Opcode::Atan: case Opcode::Sinh: case Opcode::Cosh:
    case Opcode::Asinh: case Opcode::Acosh: case Opcode::Atanh: case Opcode::Cbrt: case Opcode::Atan2: case Opcode::Hypot:
    case Opcode::BesselJ0: case Opcode::BesselJ1: case Opcode::BesselY0: case Opcode::BesselY1:
    case Opcode::BesselI0: case Opcode::BesselI1:
    case Opcode::Erfc: case Opcode::Normcdf: case Opcode::Erfinv: case Opcode::Erfcinv: case Opcode::Normcdfinv:
    case Opcode::Pow:
      return elementwise(op, false, true);
    case Opcode::RoundTf32:
      elementwise(op, false, true);
      require(R().elem == Scalar::F32, op, [&] { return "takes f32, got " + R().str(); });
      return;
    case Opcode::Clz: case Opcode::Popc: case Opcode::Brev: case Opcode::MulHi:
      elementwise(op, true, false);
      require(bitWidth(R().elem) >= 32, op, [&] { return "takes 32- or 64-bit integers, got " + R().str(); });
      return;
    case Opcode::BytePerm:
      elementwise(op, true, false);
      require(bitWidth(R().elem) == 32, op, [&] { return "takes 32-bit integers, got " + R().str(); });
      return;
    case Opcode::Rounded: {
      elementwise(op, false, true);
      require(R().elem == Scalar::F32 || R().elem == Scalar::F64, op, [&] { return "takes f32 or f64, got " + R().str(); });
      stringIn(op, "fn", {"add", "sub", "mul", "div", "fma", "sqrt", "rcp"});
      stringIn(op, "mode", {"rtne", "rtz", "rtn", "rtp"});
      RoundedFn fn;
      if (roundedFnFromName(op.strAttrOr("fn", ""), fn))
        require(int(op.numOperands()) == roundedArity(fn), op, [&] {
          int n = roundedArity(fn);
          return op.strAttr("fn") + " takes " + std::to_string(n) + (n == 1 ? " operand" : " operands") + ", got " +
                 std::to_string(op.numOperands());
        });
      return;
    }

    case Opcode::Cmp:
      require(T(0) == T(1), op, [&] { return "needs operands of one type, got " + typeList(typesOf(op.operands)); });
      require(R() == T(0).withElem(Scalar::I1), op,
              [&] { return "of " + T(0).str() + " produces " + T(0).withElem(Scalar::I1).str() +
                           ", got " + R().str(); });
      stringIn(op, "pred", {"eq", "ne", "lt", "le", "gt", "ge"});
      return;
    case Opcode::Select:
      require(T(0).isBool() && (T(0).shape == R().shape || !T(0).isTensor()), op,
              [&] { return "condition must be i1 of the result's shape (or a scalar i1), got " + T(0).str(); });
      require(T(1) == R() && T(2) == R(), op, [&] { return "needs both values of the result type, got " +
                                                           typeList(typesOf(op.operands, 1)) + " -> " + R().str(); });
      return;

    case Opcode::PtrAdd: case Opcode::Load: case Opcode::Store:
      return checkMemoryTypeRule(op);  // verifier_memory.cpp

    case Opcode::Reduce: {
      stringIn(op, "kind", {"sum", "max", "min", "argmax", "argmin"});
      const std::string& kind = op.strAttr("kind");
      int64_t axis = op.intAttr("axis");
      require(T(0).isTensor() && !T(0).isPtr(), op, [&] { return "takes a non-pointer tensor, got " + T(0).str(); });
      require(axis >= 0 && axis < T(0).rank(), op,
              [&] { return "axis " + std::to_string(axis) + " out of range for " + T(0).str(); });
      std::vector<int64_t> s = T(0).shape;
      s.erase(s.begin() + axis);
      require(R().shape == s, op,
              [&] { return "of " + T(0).str() + " along axis " + std::to_string(axis) + " has shape " +
                           shapeText(s) + ", got " + R().str(); });
      if (kind == "argmax" || kind == "argmin")
        require(R().elem == Scalar::I32, op, [&] { return kind + " produces i32 indices, got " + R().str(); });
      else if (kind != "sum")  // sum may accumulate in a wider type
        require(R().elem == T(0).elem, op,
                [&] { return kind + " keeps the element type " + T(0).element().str() + ", got " + R().str(); });
      else
        require(!R().isPtr(), op, [&] { return "sum cannot produce pointers"; });
      return;
    }
    case Opcode::ReduceCombine:
    case Opcode::Scan:
      return checkCombineTypeRule(op);  // verifier_combine.cpp
    case Opcode::Sort: {
      int64_t axis = op.intAttr("axis");
      require(T(0).isTensor() && !T(0).isPtr() && !T(0).isBool(), op,
              [&] { return "takes a tensor of numbers, got " + T(0).str(); });
      require(axis >= 0 && axis < T(0).rank(), op,
              [&] { return "axis " + std::to_string(axis) + " out of range for " + T(0).str(); });
      const int64_t n = T(0).shape[size_t(axis)];
      const int64_t k = R().rank() == T(0).rank() ? R().shape[size_t(axis)] : 0;
      std::vector<int64_t> s = T(0).shape;
      if (k > 0) s[size_t(axis)] = k;
      require(R().elem == T(0).elem && R().shape == s && k <= n && std::has_single_bit(uint64_t(k)) &&
                  std::has_single_bit(uint64_t(n)),
              op, [&] {
                return "of " + T(0).str() + " keeps its type, or takes a power of two up to " + std::to_string(n) +
                       " along axis " + std::to_string(axis) + ", got " + R().str();
              });
      int64_t d = op.intAttrOr("descending", 0);
      require(d == 0 || d == 1, op, [&] { return "descending must be 0 or 1, got " + std::to_string(d); });
      return;
    }
    case Opcode::Dot: {
      const Type &a = T(0), &b = T(1), &acc = T(2);
      int r = a.rank();
      bool ok = (r == 2 || r == 3) && b.rank() == r && acc.rank() == r;
      if (ok) {
        size_t m = size_t(r) - 2, k = size_t(r) - 1;
        ok = a.shape[k] == b.shape[m] && acc.shape[m] == a.shape[m] && acc.shape[k] == b.shape[k] &&
             (r == 2 || (a.shape[0] == b.shape[0] && acc.shape[0] == a.shape[0]));
      }
      require(ok, op,
              [&] {
                return "needs a[M,K], b[K,N], acc[M,N] (or batched [B,...]), got " + typeList(typesOf(op.operands));
              });
      require(a.elem == b.elem && !a.isPtr() && !acc.isPtr(), op,
              [&] { return "needs a and b of one non-pointer element type, got " + typeList(typesOf(op.operands)); });
      require(R() == acc, op, [&] { return "produces the accumulator type " + acc.str() + ", got " + R().str(); });
      stringIn(op, "input_precision", {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"}, true);
      // split_dots rewrites the split precisions of f32 dots in the Tile IR (passes/split_dots.cpp).
      require(!a.layout || !awaitsSplit(op), op, [&] { return "an f32 dot in GPU IR must be tf32 or ieee (split_dots rewrites the others)"; });
      return;
    }
    case Opcode::Gather:
    case Opcode::Histogram:
      return checkExchangeTypeRule(op);  // verifier_exchange.cpp
    case Opcode::MultipleOf:
    case Opcode::MaxContiguous: {
      require(R() == T(0), op, [&] { return "is an identity: result must be " + T(0).str() + ", got " + R().str(); });
      size_t want = size_t(std::max(1, T(0).rank()));
      require(op.listAttr("values").size() == want, op,
              [&] { return "values needs " + std::to_string(want) + " entries for " + T(0).str(); });
      return;
    }

    case Opcode::ConvertLayout:
      require(R().isTensor() && R().sameShapeAndElement(T(0)), op,
              [&] {
                return "keeps shape and element type: result must be " + T(0).withoutLayout().str() +
                       " with a layout, got " + R().str();
              });
      return;

    case Opcode::For: case Opcode::If: case Opcode::While: case Opcode::Yield: case Opcode::Condition:
    case Opcode::Return:
      return checkControlTypeRule(op, parent, last);  // verifier_control.cpp
    case Opcode::Assert:
      require(T(0).isBool(), op, [&] { return "condition must be i1, got " + T(0).str(); });
      return;
    case Opcode::AtomicRmw: case Opcode::AtomicCas:
      return checkAtomicTypeRule(op);  // verifier_atomic.cpp
    case Opcode::DebugBarrier:
      return;
    case Opcode::InlineAsm: case Opcode::Print:
      return checkAsmTypeRule(op);  // verifier_asm.cpp
    case Opcode::SharedAlloc: case Opcode::SharedSlot: case Opcode::SharedPermute: case Opcode::LocalStore: case Opcode::LocalLoad: case Opcode::ExtractSlice:
    case Opcode::AsyncCopy: case Opcode::AsyncCommit: case Opcode::AsyncWait: case Opcode::Barrier: case Opcode::FenceAsyncShared:
    case Opcode::MbarrierInit: case Opcode::MbarrierArrive: case Opcode::MbarrierExpectTx: case Opcode::AsyncCopyArrive: case Opcode::WarpgroupTurn:
    case Opcode::MbarrierWait: case Opcode::Mma: case Opcode::MmaWait: case Opcode::WarpPartition:
      return checkGpuTypeRule(op);  // verifier_gpu.cpp
    case Opcode::TensorMap: case Opcode::TmaLoad: case Opcode::TmaStore: case Opcode::TmaStoreWait:
      return checkTmaTypeRule(op, parent);  // verifier_tma.cpp
  }
  verifyFail(op, "has an opcode outside ops.def");
}

}  // namespace kiln::ir
