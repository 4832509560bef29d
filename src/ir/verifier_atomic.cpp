// The type rules of atomic_rmw and atomic_cas: which element types each kind is defined on (what the
// interpreter and the PTX `atom` instructions implement), and operands of the pointer's shape.
#include "ir/verifier_rules.h"

namespace kiln::ir {

namespace {

bool isWord(Scalar t) { return isInt(t) && t != Scalar::I1 && bitWidth(t) >= 32; }  // i32 u32 i64 u64

// Why `kind` (one of the seven) is not defined on elements of `t`, or "" when it is.
std::string unsupported(const std::string& kind, Scalar t) {
  if (kind == "add") {
    bool ok = isWord(t) || t == Scalar::F16 || t == Scalar::BF16 || t == Scalar::F32 || t == Scalar::F64;
    return ok ? "" : "add takes i32, u32, i64, u64, f16, bf16, f32 or f64";
  }
  if (kind == "and" || kind == "or" || kind == "xor" || kind == "max" || kind == "min")
    return isWord(t) ? "" : kind + " takes i32, u32, i64 or u64 (sema builds float max and min from integer ones)";
  return isWord(t) || t == Scalar::F32 || t == Scalar::F64 ? "" : "xchg takes i32, u32, i64, u64, f32 or f64";
}

void semAndScope(const Op& op) {
  const std::string& sem = op.strAttr("sem");
  const std::string& scope = op.strAttr("scope");
  require(sem == "relaxed" || sem == "acquire" || sem == "release" || sem == "acq_rel", op,
          [&] { return "sem must be one of relaxed, acquire, release, acq_rel, got \"" + sem + "\""; });
  require(scope == "cta" || scope == "gpu" || scope == "sys", op,
          [&] { return "scope must be one of cta, gpu, sys, got \"" + scope + "\""; });
}

}  // namespace

void checkAtomicTypeRule(const Op& op) {
  auto T = [&](unsigned i) -> const Type& { return op.operands[i]->type; };
  const Type& r = op.results.at(0)->type;
  require(T(0).isPtr(), op, [&] { return "takes a pointer first, got " + T(0).str(); });
  const Type want = T(0).withElem(T(0).pointee);
  require(r == want, op, [&] { return "through " + T(0).str() + " produces " + want.str() + ", got " + r.str(); });
  semAndScope(op);
  if (op.opcode == Opcode::AtomicCas) {
    require(T(1) == want && T(2) == want, op,
            [&] { return "needs cmp and val of type " + want.str() + ", got " + T(1).str() + " and " + T(2).str(); });
    Scalar t = want.elem;
    require(t != Scalar::I1 && t != Scalar::Ptr && (bitWidth(t) == 16 || bitWidth(t) == 32 || bitWidth(t) == 64), op,
            [&] { return "takes 16-, 32- or 64-bit elements, got " + want.str(); });
    return;
  }
  require(T(1) == want, op, [&] { return "needs a value of type " + want.str() + ", got " + T(1).str(); });
  if (op.numOperands() > 2)
    require(T(2) == T(0).withElem(Scalar::I1), op,
            [&] { return "mask must be " + T(0).withElem(Scalar::I1).str() + ", got " + T(2).str(); });
  const std::string& kind = op.strAttr("kind");
  require(kind == "add" || kind == "and" || kind == "or" || kind == "xor" || kind == "xchg" || kind == "max" ||
              kind == "min",
          op, [&] { return "kind must be one of add, and, or, xor, xchg, max, min, got \"" + kind + "\""; });
  const std::string why = unsupported(kind, want.elem);
  require(why.empty(), op, [&] { return why + ", got " + want.str(); });
}

}  // namespace kiln::ir
