// Attribute access and subscripts: tensor attributes and methods (x.dtype, x.shape, x.T, x.to),
// dtype attributes and predicates, members of the triton / triton.language / tl.math namespaces
// (one lookup over the builtin table), import paths, x[:, None] and tuple indexing, and the
// hasattr() predicate over all of these.
#include <algorithm>

#include "sema/ops_common.h"

namespace kiln::sema {

using ir::Scalar;
using ir::Type;
using K = SValue::Kind;

namespace {

struct DtypeName {
  const char* name;
  Scalar elem;  // Ptr: a pointer to i32 (tl.pi32_t)
};
constexpr DtypeName kDtypes[] = {
    {"int1", Scalar::I1},       {"int8", Scalar::I8},         {"int16", Scalar::I16},     {"int32", Scalar::I32},
    {"int64", Scalar::I64},     {"uint8", Scalar::U8},        {"uint16", Scalar::U16},    {"uint32", Scalar::U32},
    {"uint64", Scalar::U64},    {"float8e4nv", Scalar::F8E4M3}, {"float8e5", Scalar::F8E5M2}, {"float8e4b15", Scalar::F8E4B15},
    {"float8e4b8", Scalar::F8E4B8}, {"float8e5b16", Scalar::F8E5B16}, {"float16", Scalar::F16},
    {"bfloat16", Scalar::BF16}, {"float32", Scalar::F32},     {"float64", Scalar::F64},   {"pi32_t", Scalar::Ptr},
};
constexpr const char* kUnsupportedDtypes[] = {"void"};

// Sub-namespaces by their parent, and the BuiltinWhere bit of each namespace's functions.
struct NsInfo {
  const char* path;
  unsigned where;  // 0: no builtin functions
};
constexpr NsInfo kNamespaces[] = {
    {"triton", kTriton},
    {"triton.language", kTl},
    {"triton.language.math", kMath},
    {"triton.language.random", kRandom},
    {"triton.language.extra", 0},
    {"triton.language.extra.libdevice", kLibdevice},
    {"triton.language.extra.cuda", kCuda},
    {"triton.language.extra.cuda.libdevice", kLibdevice},
    {"triton.language.PropagateNan", 0},
};

const NsInfo* findNs(std::string_view path) {
  for (const NsInfo& n : kNamespaces)
    if (path == n.path) return &n;
  return nullptr;
}

// kiln's own module names are aliases of Triton's.
std::string canonicalPath(std::string_view path) {
  auto starts = [&](std::string_view p) {
    return path.substr(0, p.size()) == p && (path.size() == p.size() || path[p.size()] == '.');
  };
  if (starts("kiln")) return "triton" + std::string(path.substr(4));
  return std::string(path);
}

// The member `name` of the namespace `ns`; false when there is none.
bool tryMember(const std::string& ns, const std::string& name, SValue& out) {
  const NsInfo* info = findNs(ns);
  if (!info) return false;
  std::string sub = ns + "." + name;
  if (findNs(sub)) {
    out = SValue::ns(sub);
    return true;
  }
  if (ns == "triton.language.PropagateNan") {  // Triton's enum values
    if (name != "ALL" && name != "NONE") return false;
    out = SValue::integer(name == "ALL" ? 0xFFFF : 0);
    return true;
  }
  if (ns == "triton.language") {
    if (auto t = dtypeByName(name, SourceLoc{})) {
      out = SValue::dtype(*t);
      return true;
    }
    if (name == "TRITON_MAX_TENSOR_NUMEL") {  // the largest tile, as sema enforces it (ops_promote.cpp)
      out = SValue::integer(int64_t(1) << 20);
      return true;
    }
  }
  if (info->where && findBuiltin(name, info->where)) {
    out = SValue::builtin(sub);
    return true;
  }
  return false;
}

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t bestD = std::max<size_t>(1, name.size() / 3) + 1;
  for (const std::string& c : candidates) {
    size_t d = editDistance(name, c);
    if (d < bestD) bestD = d, best = c;
  }
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

SValue namespaceAttribute(const SValue& ns, const std::string& name, const SourceLoc& loc) {
  SValue out;
  if (tryMember(ns.str, name, out)) return out;
  if (ns.str == "triton.language")
    for (const char* u : kUnsupportedDtypes)
      if (name == u) fail(loc, "tl." + name + " is not supported by kiln");
  std::vector<std::string> candidates;
  if (const NsInfo* info = findNs(ns.str)) {
    if (info->where) candidates = builtinNames(info->where);
    for (const NsInfo& n : kNamespaces) {
      std::string p = n.path;
      if (p.size() > ns.str.size() && p.compare(0, ns.str.size() + 1, ns.str + ".") == 0)
        candidates.push_back(p.substr(ns.str.size() + 1));
    }
  }
  if (ns.str == "triton.language")
    for (const DtypeName& d : kDtypes) candidates.push_back(d.name);
  fail(loc, "module '" + ns.str + "' has no attribute '" + name + "'" + suggestion(name, candidates));
}

SValue tensorAttribute(Context& cx, const SValue& x, const std::string& name, const SourceLoc& loc) {
  const Type& t = x.ir->type;
  if (name == "T") {  // Triton's code generator turns x.T into a 2-D transpose
    if (t.rank() != 2) fail(loc, "x.T needs a 2-D tensor, got " + x.describe() + "; use tl.permute");
    return SValue::irValue(permute(cx, x.ir, {1, 0}, loc));
  }
  if (name == "dtype") return SValue::dtype(t.element());
  if (name == "type") return SValue::dtype(t);
  if (name == "numel") return SValue::integer(t.numel());
  if (name == "shape") {
    std::vector<SValue> dims;
    for (int64_t d : t.shape) dims.push_back(SValue::integer(d));
    return SValue::tuple(std::move(dims));
  }
  if (findBuiltin(name, kMember)) return SValue::method(x, name);
  fail(loc, x.describe() + " has no attribute '" + name + "'" + suggestion(name, builtinNames(kMember)));
}

// Python slice semantics on a sequence of length n: the selected indices.
std::vector<size_t> sliceIndices(const SValue& s, size_t n, const SourceLoc& loc) {
  auto bound = [&](size_t i) -> std::optional<int64_t> {
    if (s.elts.size() != 3 || s.elts[i].kind == K::None) return std::nullopt;
    if (s.elts[i].kind != K::Int && s.elts[i].kind != K::Bool)
      fail(loc, "slice bounds must be constexpr integers, got " + s.elts[i].describe());
    return s.elts[i].i;
  };
  int64_t step = bound(2).value_or(1), len = int64_t(n);
  if (step == 0) fail(loc, "slice step cannot be zero");
  auto clampIdx = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t i = *v < 0 ? *v + len : *v;
    return step > 0 ? std::clamp<int64_t>(i, 0, len) : std::clamp<int64_t>(i, -1, len - 1);
  };
  int64_t lo = clampIdx(bound(0), step > 0 ? 0 : len - 1), hi = clampIdx(bound(1), step > 0 ? len : -1);
  std::vector<size_t> out;
  for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) out.push_back(size_t(i));
  return out;
}

bool fullSlice(const SValue& s) {
  for (const SValue& e : s.elts)
    if (e.kind != K::None) return false;
  return true;
}

// Triton's tensor.__getitem__: each None inserts a size-1 dimension at its position and each ':'
// (bounds None or absent) keeps one, so a scalar takes x[None], x[None, :], x[None, None].
SValue subscriptTensor(Context& cx, const SValue& x, const std::vector<SValue>& indices, const SourceLoc& loc) {
  int64_t rank = x.ir->type.rank(), kept = 0, added = 0;
  for (const SValue& idx : indices) {
    if ((idx.kind == K::Slice && !fullSlice(idx)) || (idx.kind != K::Slice && idx.kind != K::None))
      fail(loc, "unsupported tensor index (" + idx.describe() + "): tensors take only ':' and None (x[:, None])");
    if (idx.kind == K::Slice) ++kept;
    else ++added;
  }
  if (kept > rank + added)
    fail(loc, "too many indices for " + x.describe() + ": " + std::to_string(kept) + " ':' for rank " +
                  std::to_string(rank) + (added ? " plus " + std::to_string(added) + " None" : ""));
  ir::Value* v = x.ir;
  for (size_t dim = 0; dim < indices.size(); ++dim) {
    if (indices[dim].kind != K::None) continue;
    if (int64_t(dim) > v->type.rank())
      fail(loc, "None at index position " + std::to_string(dim) + " is past the dimensions of " +
                    SValue::irValue(v).describe() + " (too many ':' before it)");
    v = expandDims(cx, v, int64_t(dim), loc);
  }
  return SValue::irValue(v);
}

}  // namespace

std::optional<Type> dtypeByName(std::string_view name, const SourceLoc&) {
  for (const DtypeName& d : kDtypes)
    if (name == d.name) return d.elem == Scalar::Ptr ? Type::ptr(Scalar::I32) : Type::scalar(d.elem);
  return std::nullopt;
}

SValue attribute(Context& cx, const SValue& obj, const std::string& name, const SourceLoc& loc) {
  switch (obj.kind) {
    case K::IR: return tensorAttribute(cx, obj, name, loc);
    case K::Dtype: return dtypeAttribute(obj, name, loc);
    case K::Namespace: return namespaceAttribute(obj, name, loc);
    case K::Int:
    case K::Float:
    case K::Bool:
      // Triton turns a number assigned to a name into a scalar of its literal type, so
      // `x = 5; x.dtype` is tl.int32 there; kiln keeps the constexpr and answers the same.
      if (name == "dtype") return SValue::dtype(literalType(obj));
      if (name == "value") return obj;
      break;
    case K::Str:
    case K::None:
    case K::Tuple:
      for (size_t i = 0; i < obj.fields.size() && i < obj.elts.size(); ++i)  // a NamedTuple's field
        if (obj.fields[i] == name) return obj.elts[i];
      if (name == "value" && obj.allConstexpr()) return obj;  // tl.constexpr's .value
      break;
    case K::Block: return blockAttribute(cx, obj, name, loc);
    case K::TupleClass:
      if (name == "_fields") {
        std::vector<SValue> names;
        for (const std::string& f : obj.fields) names.push_back(SValue::string(f));
        return SValue::tuple(std::move(names));
      }
      break;
    case K::Function:
    case K::Builtin:
    case K::Method:
    case K::Slice: break;
  }
  fail(loc, obj.describe() + " has no attribute '" + name + "'");
}

SValue subscript(Context& cx, const SValue& obj, const std::vector<SValue>& indices, const SourceLoc& loc) {
  if (obj.isIR()) return subscriptTensor(cx, obj, indices, loc);
  if (obj.kind != K::Tuple && obj.kind != K::Str) fail(loc, obj.describe() + " is not subscriptable");
  if (indices.size() != 1) fail(loc, std::string(pyTypeName(obj)) + " indices take one index, got " +
                                         std::to_string(indices.size()));
  const SValue& idx = indices[0];
  const std::vector<std::string> chars = obj.kind == K::Str ? characters(obj.str) : std::vector<std::string>{};
  size_t n = obj.kind == K::Tuple ? obj.elts.size() : chars.size();
  if (idx.kind == K::Slice) {
    SValue out = obj;
    out.elts.clear();
    out.str.clear();
    for (size_t i : sliceIndices(idx, n, loc)) {
      if (obj.kind == K::Tuple) out.elts.push_back(obj.elts[i]);
      else out.str += chars[i];
    }
    return out;
  }
  if (idx.kind != K::Int && idx.kind != K::Bool)
    fail(loc, std::string(pyTypeName(obj)) + " indices must be constexpr integers, got " + idx.describe());
  int64_t i = idx.i < 0 ? idx.i + int64_t(n) : idx.i;
  if (i < 0 || i >= int64_t(n))
    fail(loc, std::string(pyTypeName(obj)) + " index " + std::to_string(idx.i) + " out of range for length " +
                  std::to_string(n));
  if (obj.kind == K::Tuple) return obj.elts[size_t(i)];
  return SValue::string(chars[size_t(i)]);
}

// hasattr(obj, name) as Triton answers it: the code generator unwraps constexprs first, so a
// constexpr number, string, None or tuple has none of kiln's attributes (not even .value).
bool hasAttribute(const SValue& obj, const std::string& name) {
  switch (obj.kind) {
    case K::IR:
      if (name == "T") return obj.ir->type.rank() == 2;
      return name == "dtype" || name == "type" || name == "numel" || name == "shape" ||
             findBuiltin(name, kMember) != nullptr;
    case K::Dtype:
      try {
        dtypeAttribute(obj, name, SourceLoc{});  // pure: it builds no IR
        return true;
      } catch (const CompileError&) {
        return false;
      }
    case K::Namespace: {
      SValue out;
      return tryMember(obj.str, name, out);
    }
    case K::Int:
    case K::Float:
    case K::Bool:
    case K::Str:
    case K::None:
    case K::Tuple:
    case K::Function:
    case K::Builtin:
    case K::Method:
    case K::Slice: return false;
    case K::TupleClass: return name == "_fields";
    case K::Block: return hasBlockAttribute(obj, name);
  }
  return false;
}

bool lookupPythonBuiltin(std::string_view name, SValue& out) {
  if (!findBuiltin(name, kPy)) return false;
  out = SValue::builtin(std::string(name));
  return true;
}

bool resolveImportPath(std::string_view path, SValue& out) {
  std::string p = canonicalPath(path);
  if (findNs(p)) {
    out = SValue::ns(p);
    return true;
  }
  size_t dot = p.rfind('.');
  if (dot == std::string::npos) return false;
  return tryMember(p.substr(0, dot), p.substr(dot + 1), out);
}

}  // namespace kiln::sema
