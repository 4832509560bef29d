// Soundness of the axis-info analysis: random programs over integer, mask and pointer tiles
// (arithmetic, comparisons, selects, shape ops, pointers, loops, ifs) are evaluated on random
// inputs, and every fact the analysis states must hold of every value computed. An optimistic fact
// is a miscompile, so this is the test that matters most. Inputs that overflow i32 are skipped:
// the analysis assumes index arithmetic does not overflow (as Triton does).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>

#include "analysis/axis_info.h"
#include "ir/scalar_eval.h"
#include "ir/text.h"
#include "support/diagnostic.h"

namespace kiln::analysis::test {
namespace {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using ir::Value;

struct Overflow {};

// ---------------------------------------------------------------- random programs

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  std::unique_ptr<ir::Module> program() {
    auto m = std::make_unique<ir::Module>();
    ir::Function& f = m->addFunction("fuzz");
    ir::Builder b(f.body);
    std::vector<Value*> pool;
    Value* x = f.body.addArg(Type::ptr(Scalar::F32), "x");
    Value* h = f.body.addArg(Type::ptr(Scalar::F16), "h");
    Value* n = f.body.addArg(Type::scalar(Scalar::I32), "n");
    Value* k = f.body.addArg(Type::scalar(Scalar::I32), "k");
    for (Value* a : {x, h, n, k}) {
      hints_.push_back(pick({0, 4, 8, 16}));
      pool.push_back(hints_.back() ? b.create1(Opcode::MultipleOf, {a}, a->type, {{"values", std::vector<int64_t>{hints_.back()}}}) : a);
    }
    pool.push_back(b.create1(Opcode::ProgramId, {}, i32(), {{"axis", int64_t(0)}}));
    pool.push_back(b.create1(Opcode::ProgramId, {}, i32(), {{"axis", int64_t(1)}}));
    for (int64_t size : {4, 8}) pool.push_back(arange(b, size));
    int ops = int(pick({20, 30, 40}));
    for (int i = 0; i < ops; ++i) step(b, pool, 0);
    b.create(Opcode::Return, {}, {});
    return m;
  }

  std::vector<int64_t> hints_;  // multiple_of applied to x, h, n, k (0: none)

 private:
  std::mt19937_64 rng_;

  int64_t pick(std::vector<int64_t> v) { return v[rng_() % v.size()]; }
  bool chance(int percent) { return int(rng_() % 100) < percent; }
  static Type i32() { return Type::scalar(Scalar::I32); }

  Value* arange(ir::Builder& b, int64_t size) {
    int64_t start = pick({0, 0, 0, 4, 8, 3, -8, 16});
    return b.create1(Opcode::Arange, {}, Type::tensor({size}, Scalar::I32),
                     {{"start", start}, {"end", start + size}});
  }
  Value* constant(ir::Builder& b, const Type& t) {
    int64_t v = pick({0, 1, 1, 2, 3, 4, 4, 8, 16, 32, 64, -1, -4, 5, 6, 7, 12, 24, 48, 63, 31, 15});
    if (t.isBool()) v &= 1;
    return b.create1(Opcode::Constant, {}, t, {{"value", v}});
  }
  Value* any(const std::vector<Value*>& pool, const std::function<bool(const Value*)>& ok) {
    std::vector<Value*> c;
    for (Value* v : pool)
      if (ok(v)) c.push_back(v);
    if (c.empty()) return nullptr;
    // Half the time one of the latest: chains of ops on fresh index tiles find more corners.
    size_t window = chance(50) ? std::min<size_t>(c.size(), 6) : c.size();
    return c[c.size() - 1 - rng_() % window];
  }
  Value* sameType(ir::Builder& b, const std::vector<Value*>& pool, const Type& t) {
    Value* v = chance(40) ? nullptr : any(pool, [&](const Value* w) { return w->type == t; });
    return v ? v : constant(b, t);
  }

  void step(ir::Builder& b, std::vector<Value*>& pool, int depth) {
    auto isI32 = [](const Value* v) { return v->type.elem == Scalar::I32 || v->type.elem == Scalar::U32; };
    int kind = int(rng_() % 100);
    Value* r = nullptr;
    if (kind < 32) {  // integer arithmetic
      Value* a = any(pool, isI32);
      static const Opcode kOps[] = {Opcode::Add, Opcode::Add, Opcode::Sub, Opcode::Mul, Opcode::Div, Opcode::Rem,
                                    Opcode::And, Opcode::Or, Opcode::Xor, Opcode::Shl, Opcode::Shr, Opcode::Min,
                                    Opcode::Max, Opcode::Neg, Opcode::Not, Opcode::Abs};
      Opcode op = kOps[rng_() % std::size(kOps)];
      if (op == Opcode::Neg || op == Opcode::Not || op == Opcode::Abs) {
        r = b.create1(op, {a}, a->type);
      } else {
        Value* c = (op == Opcode::Shl || op == Opcode::Shr) && chance(80)
                       ? b.create1(Opcode::Constant, {}, a->type, {{"value", pick({0, 1, 2, 3, 5, 31, 40})}})
                       : sameType(b, pool, a->type);
        r = chance(50) ? b.create1(op, {a, c}, a->type) : b.create1(op, {c, a}, a->type);
      }
    } else if (kind < 42) {  // splat a scalar
      Value* s = any(pool, [](const Value* v) { return !v->type.isTensor() && !v->type.isBool(); });
      std::vector<int64_t> shape = pick({0, 1, 2}) == 0 ? std::vector<int64_t>{8}
                                   : chance(50)         ? std::vector<int64_t>{4}
                                                        : std::vector<int64_t>{4, 8};
      r = b.create1(Opcode::Splat, {s}, s->type.withShape(shape));
    } else if (kind < 52) {  // 1-D -> 2-D
      Value* a = any(pool, [](const Value* v) { return v->type.rank() == 1 && v->type.shape[0] <= 8; });
      if (!a) return;
      int64_t n = a->type.shape[0], other = n == 8 ? 4 : 8, axis = int64_t(rng_() % 2);
      std::vector<int64_t> e = axis ? std::vector<int64_t>{n, 1} : std::vector<int64_t>{1, n};
      r = b.create1(Opcode::ExpandDims, {a}, a->type.withShape(e), {{"axis", axis}});
      pool.push_back(r);
      std::vector<int64_t> full = axis ? std::vector<int64_t>{n, other} : std::vector<int64_t>{other, n};
      r = b.create1(Opcode::Broadcast, {r}, a->type.withShape(full));
    } else if (kind < 62) {  // compare, then maybe combine masks
      Value* a = any(pool, [](const Value* v) { return !v->type.isBool(); });
      Value* c = a->type.isPtr() ? any(pool, [&](const Value* v) { return v->type == a->type; }) : sameType(b, pool, a->type);
      static const char* kPreds[] = {"lt", "lt", "ge", "gt", "le", "eq", "ne"};
      r = b.create1(Opcode::Cmp, {a, c}, a->type.withElem(Scalar::I1), {{"pred", std::string(kPreds[rng_() % 7])}});
      Value* m = any(pool, [&](const Value* v) { return v->type == r->type; });
      if (m && chance(50)) {
        pool.push_back(r);
        r = b.create1(pick({0, 1}) ? Opcode::And : Opcode::Or, {r, m}, r->type);
      }
    } else if (kind < 68) {  // select
      Value* a = any(pool, [](const Value* v) { return !v->type.isBool(); });
      Value* c = a->type.isPtr() || chance(70) ? any(pool, [&](const Value* v) { return v->type == a->type; })
                                               : sameType(b, pool, a->type);
      Value* cond = any(pool, [&](const Value* v) {
        return v->type.isBool() && (v->type.shape == a->type.shape || !v->type.isTensor());
      });
      if (!cond) return;
      r = b.create1(Opcode::Select, {cond, a, c}, a->type);
    } else if (kind < 78) {  // pointer arithmetic
      Value* off = any(pool, isI32);
      Value* p = any(pool, [&](const Value* v) { return v->type.isPtr() && v->type.shape == off->type.shape; });
      if (!p) {
        Value* s = any(pool, [](const Value* v) { return v->type.isPtr() && !v->type.isTensor(); });
        p = off->type.isTensor() ? b.create1(Opcode::Splat, {s}, s->type.withShape(off->type.shape)) : s;
        pool.push_back(p);
      }
      r = b.create1(Opcode::PtrAdd, {p, off}, p->type);
    } else if (kind < 84) {  // shape ops
      Value* a = any(pool, [](const Value* v) { return v->type.rank() == 2 && !v->type.isBool(); });
      if (!a) return;
      std::vector<int64_t> s = a->type.shape;
      int which = int(rng_() % 3);
      if (which == 0) {
        r = b.create1(Opcode::Permute, {a}, a->type.withShape({s[1], s[0]}), {{"order", std::vector<int64_t>{1, 0}}});
      } else if (which == 1) {
        r = b.create1(Opcode::Reshape, {a}, a->type.withShape({s[0] * s[1]}));
      } else if (!a->type.isPtr()) {
        int64_t axis = int64_t(rng_() % 2);
        r = b.create1(Opcode::Reduce, {a}, a->type.withShape({s[size_t(1 - axis)]}),
                      {{"axis", axis}, {"kind", std::string(pick({0, 1}) ? "sum" : "max")}});
      }
    } else if (kind < 88) {  // casts through i64 and to u32
      Value* a = any(pool, isI32);
      r = b.create1(Opcode::Cast, {a}, a->type.withElem(chance(50) ? Scalar::I64 : Scalar::U32));
      pool.push_back(r);
      r = chance(50) ? b.create1(Opcode::Cast, {r}, a->type) : r;
    } else if (kind < 91) {
      r = arange(b, pick({4, 8}));
    } else if (kind < 94) {  // an index tile: scalar * block + arange, the shape of most offsets
      Value* s = any(pool, [](const Value* v) { return v->type == i32(); });
      Value* block = b.create1(Opcode::Constant, {}, i32(), {{"value", pick({1, 2, 4, 8, 16, 3})}});
      Value* start = b.create1(Opcode::Mul, {s, block}, i32());
      Value* range = arange(b, pick({4, 8}));
      Value* starts = b.create1(Opcode::Splat, {start}, range->type);
      pool.push_back(start);
      pool.push_back(starts);
      r = b.create1(Opcode::Add, {starts, range}, range->type);
    } else if (kind < 97 && depth < 2) {
      loop(b, pool, depth);
    } else if (depth < 2) {
      ifOp(b, pool, depth);
    }
    if (r) pool.push_back(r);
  }

  // Yields, for each type, a value of that type from the body (a fresh one when it has some).
  std::vector<Value*> yields(ir::Builder& b, const std::vector<Value*>& inner, size_t firstNew,
                             const std::vector<Type>& types) {
    std::vector<Value*> out;
    for (const Type& t : types) {
      std::vector<Value*> fresh(inner.begin() + long(firstNew), inner.end());
      Value* v = any(fresh, [&](const Value* w) { return w->type == t; });
      if (!v) v = any(inner, [&](const Value* w) { return w->type == t; });
      out.push_back(v);
    }
    b.create(Opcode::Yield, out, {});
    return out;
  }

  void loop(ir::Builder& b, std::vector<Value*>& pool, int depth) {
    std::vector<Value*> operands = {b.intConst(pick({0, 0, 1, 4}), i32()), b.intConst(pick({0, 1, 3, 6}), i32()),
                                    b.intConst(pick({1, 1, 2}), i32())};
    std::vector<Type> types;
    for (int i = 0, n = int(pick({1, 2})); i < n; ++i) {
      Value* v = any(pool, [](const Value* w) { return !w->type.isBool(); });
      operands.push_back(v);
      types.push_back(v->type);
    }
    ir::Op* op = b.create(Opcode::For, operands, types);
    ir::Block& body = op->region(0);
    std::vector<Value*> inner = pool;
    size_t firstNew = inner.size();
    inner.push_back(body.addArg(i32()));
    for (const Type& t : types) inner.push_back(body.addArg(t));
    ir::Builder ib(body);
    for (int i = 0, n = int(pick({3, 5, 8})); i < n; ++i) step(ib, inner, depth + 1);
    yields(ib, inner, firstNew, types);
    for (auto& r : op->results) pool.push_back(r.get());
  }

  void ifOp(ir::Builder& b, std::vector<Value*>& pool, int depth) {
    Value* cond = any(pool, [](const Value* v) { return v->type.isBool() && !v->type.isTensor(); });
    if (!cond) return;
    std::vector<Type> types;
    for (int i = 0, n = int(pick({1, 2})); i < n; ++i)
      types.push_back(any(pool, [](const Value* w) { return !w->type.isBool(); })->type);
    ir::Op* op = b.create(Opcode::If, {cond}, types);
    for (unsigned reg = 0; reg < 2; ++reg) {
      std::vector<Value*> inner = pool;
      size_t firstNew = inner.size();
      ir::Builder ib(op->region(reg));
      for (int i = 0, n = int(pick({0, 2, 4})); i < n; ++i) step(ib, inner, depth + 1);
      yields(ib, inner, firstNew, types);
    }
    for (auto& r : op->results) pool.push_back(r.get());
  }
};

// ---------------------------------------------------------------- concrete evaluation and checking

using Data = std::vector<int64_t>;  // row-major elements (pointers: byte addresses)

class Checker {
 public:
  Checker(const AxisInfoAnalysis& a, std::map<const Value*, Data> args, int64_t pid0, int64_t pid1)
      : a_(a), env_(std::move(args)), pid_{pid0, pid1} {
    for (auto& [v, d] : env_) check(v);
  }

  void block(const ir::Block& b) {
    for (const auto& op : b.ops) this->op(*op);
  }
  int checked = 0;

 private:
  const AxisInfoAnalysis& a_;
  std::map<const Value*, Data> env_;
  int64_t pid_[2];

  static int64_t numel(const Type& t) { return t.numel(); }

  void set(const Value* v, Data d) {
    env_[v] = std::move(d);
    check(v);
  }

  void check(const Value* v) {
    const Type& t = v->type;
    if (!t.isInt() && !t.isPtr()) return;
    const AxisInfo& x = a_.get(v);
    const Data& d = env_.at(v);
    const std::string what = v->type.str();
    ++checked;
    if (x.constant) {
      for (int64_t e : d) ASSERT_EQ(e, *x.constant) << what << " constant";
    }
    if (x.nonNegative && ir::isSigned(t.elem)) {
      for (int64_t e : d) ASSERT_GE(e, 0) << what << " nonNegative";
    }
    int64_t unit = t.isPtr() ? std::max(1, ir::bitWidth(t.pointee) / 8) : 1;
    std::vector<int64_t> shape = t.isTensor() ? t.shape : std::vector<int64_t>{1};
    for (size_t dim = 0; dim < shape.size(); ++dim) {
      int64_t stride = 1;
      for (size_t j = dim + 1; j < shape.size(); ++j) stride *= shape[j];
      int64_t n = shape[dim], C = x.contiguity[dim], K = x.constancy[dim], D = x.divisibility[dim];
      for (int64_t base = 0; base < int64_t(d.size()); ++base) {
        if ((base / stride) % n != 0) continue;  // visit each line along dim once, from its start
        for (int64_t i = 0; i < n; ++i) {
          int64_t at = base + i * stride;
          if (i % C == 0) {
            ASSERT_EQ(uint64_t(d[size_t(at)]) & uint64_t(D - 1), 0u) << what << " divisibility " << D << " dim " << dim;
            for (int64_t k = 1; k < C; ++k)
              ASSERT_EQ(d[size_t(at + k * stride)], d[size_t(at)] + k * unit) << what << " contiguity dim " << dim;
          }
          if (i % K == 0) {
            for (int64_t k = 1; k < K; ++k)
              ASSERT_EQ(d[size_t(at + k * stride)], d[size_t(at)]) << what << " constancy dim " << dim;
          }
        }
      }
    }
  }

  // Element-wise integer ops in i32 that would give another result in i64 overflowed.
  static bool overflows(Opcode op, const ir::ElementwiseFn& fn, const ir::Elem* e, const ir::Elem& out) {
    if (fn.t != Scalar::I32 && fn.t != Scalar::U32) return false;
    if (op != Opcode::Add && op != Opcode::Sub && op != Opcode::Mul && op != Opcode::Shl && op != Opcode::Neg &&
        op != Opcode::Abs && op != Opcode::Div)
      return false;
    ir::ElementwiseFn wide = fn;
    wide.t = fn.t == Scalar::I32 ? Scalar::I64 : Scalar::U64;  // u32 elements are held zero-extended
    ir::Elem w;
    bool dz = false;
    ir::Elem args[3] = {e[0], e[1], e[2]};
    if (op == Opcode::Shl) args[1] = ir::intElem(int64_t(uint32_t(e[1].i)));  // 32-bit ops read the amount unsigned
    ir::evalElementwise(wide, args, w, dz);
    return w.i != out.i;
  }

  void op(const ir::Op& op) {
    const Type& t = op.numResults() ? op.result(0)->type : Type{};
    auto in = [&](unsigned i) -> const Data& { return env_.at(op.operand(i)); };
    std::vector<int64_t> shape = t.shape;
    // Not a switch: the element-wise ops at the end are the rest, and switches over opcodes list
    // every op (house rule).
    const Opcode o = op.opcode;
    if (o == Opcode::Constant)
      return set(op.result(0), Data(size_t(numel(t)), ir::normalize(t.elem, ir::intElem(op.intAttr("value"))).i));
    if (o == Opcode::ProgramId) return set(op.result(0), Data{pid_[op.intAttr("axis")]});
    if (o == Opcode::Arange) {
      Data d;
      for (int64_t i = op.intAttr("start"); i < op.intAttr("end"); ++i) d.push_back(i);
      return set(op.result(0), d);
    }
    if (o == Opcode::Splat) return set(op.result(0), Data(size_t(numel(t)), in(0).at(0)));
    if (o == Opcode::ExpandDims || o == Opcode::Reshape || o == Opcode::MultipleOf) return set(op.result(0), in(0));
    if (o == Opcode::Broadcast || o == Opcode::Permute) {
      const std::vector<int64_t>& from = op.operand(0)->type.shape;
      Data d(size_t(numel(t)));
      for (int64_t i = 0; i < int64_t(d.size()); ++i) {
        int64_t r = i / shape[1], c = i % shape[1];
        if (op.opcode == Opcode::Permute) std::swap(r, c);
        d[size_t(i)] = in(0)[size_t((from[0] == 1 ? 0 : r) * from[1] + (from[1] == 1 ? 0 : c))];
      }
      return set(op.result(0), d);
    }
    if (o == Opcode::Cast) {
      Data d;
      for (int64_t e : in(0)) d.push_back(ir::convert(op.operand(0)->type.elem, t.elem, ir::intElem(e)).i);
      return set(op.result(0), d);
    }
    if (o == Opcode::PtrAdd) {
      Data d;
      int64_t unit = std::max(1, ir::bitWidth(t.pointee) / 8);
      for (size_t i = 0; i < in(0).size(); ++i) d.push_back(int64_t(uint64_t(in(0)[i]) + uint64_t(in(1)[i] * unit)));
      return set(op.result(0), d);
    }
    if (o == Opcode::Reduce) {
      int64_t axis = op.intAttr("axis");
      const std::vector<int64_t>& s = op.operand(0)->type.shape;
      Data d(size_t(s[size_t(1 - axis)]));
      for (int64_t o = 0; o < int64_t(d.size()); ++o) {
        int64_t acc = 0;
        for (int64_t j = 0; j < s[size_t(axis)]; ++j) {
          int64_t e = in(0)[size_t(axis ? o * s[1] + j : j * s[1] + o)];
          acc = op.strAttr("kind") == "sum" ? acc + e : (j ? std::max(acc, e) : e);
        }
        if (acc != int64_t(int32_t(acc))) throw Overflow{};
        d[size_t(o)] = acc;
      }
      return set(op.result(0), d);
    }
    if (o == Opcode::For) {
      const ir::Block& body = op.region(0);
      std::vector<Data> iters;
      for (unsigned i = 3; i < op.numOperands(); ++i) iters.push_back(in(i));
      for (int64_t iv = in(0)[0]; iv < in(1)[0]; iv += in(2)[0]) {
        set(body.arg(0), Data{iv});
        for (size_t i = 0; i < iters.size(); ++i) set(body.arg(unsigned(i + 1)), iters[i]);
        block(body);
        for (size_t i = 0; i < iters.size(); ++i) iters[i] = env_.at(body.terminator()->operand(unsigned(i)));
      }
      for (size_t i = 0; i < iters.size(); ++i) set(op.result(unsigned(i)), iters[i]);
      return;
    }
    if (o == Opcode::If) {
      const ir::Block& taken = op.region(in(0)[0] ? 0 : 1);
      block(taken);
      for (unsigned i = 0; i < op.numResults(); ++i) set(op.result(i), env_.at(taken.terminator()->operand(i)));
      return;
    }
    if (o == Opcode::Yield || o == Opcode::Return) return;
    const Type& ot = op.operand(op.opcode == Opcode::Select ? 1 : 0)->type;
    ir::ElementwiseFn fn;
    ASSERT_TRUE(ir::decodeElementwise(op, ot.elem, fn)) << "the checker cannot evaluate " << op.name();
    Data d(size_t(numel(t)));
    for (size_t i = 0; i < d.size(); ++i) {
      ir::Elem e[3]{};
      for (unsigned j = 0; j < op.numOperands(); ++j) {
        const Data& src = in(j);
        e[j] = ir::intElem(src.size() == 1 ? src[0] : src[i]);
      }
      ir::Elem out;
      bool dz = false;
      ir::evalElementwise(fn, e, out, dz);
      if (overflows(op.opcode, fn, e, out)) throw Overflow{};
      d[i] = out.i;
    }
    set(op.result(0), d);
  }
};

TEST(AxisInfoSoundness, RandomProgramsOnRandomInputs) {
  std::mt19937_64 rng(20240601);
  int programs = 0, runs = 0, skipped = 0, values = 0;
  for (int p = 0; p < 1000; ++p) {
    Generator gen(rng());
    auto m = gen.program();
    const ir::Function& f = *m->functions[0];
    if (auto d = ir::verify(f)) FAIL() << "generated IR does not verify: " << d->render() << "\n" << ir::print(f);
    AxisInfoAnalysis a(f);
    ++programs;
    for (int input = 0; input < 8; ++input) {
      auto aligned = [&](int64_t hint, int64_t unit) { return std::max(hint, unit); };
      std::map<const Value*, Data> args;
      args[f.body.arg(0)] = {int64_t(4096 + (rng() % 100000) * aligned(gen.hints_[0], 4))};
      args[f.body.arg(1)] = {int64_t(4096 + (rng() % 100000) * aligned(gen.hints_[1], 2))};
      for (unsigned i = 2; i < 4; ++i) {
        int64_t v = int64_t(rng() % 401) - 100;
        if (gen.hints_[i]) v -= ((v % gen.hints_[i]) + gen.hints_[i]) % gen.hints_[i];
        args[f.body.arg(i)] = {v};
      }
      Checker c(a, args, int64_t(rng() % 20), int64_t(rng() % 5));
      try {
        c.block(f.body);
        ++runs;
      } catch (const Overflow&) {
        ++skipped;
      }
      values += c.checked;
      if (::testing::Test::HasFatalFailure()) {
        ADD_FAILURE() << "program " << p << ", input " << input << ":\n" << printWithAxisInfo(f, a);
        return;
      }
    }
  }
  EXPECT_GT(runs, programs * 4);  // most inputs do not overflow
  EXPECT_GT(values, 100000);
  std::printf("%d programs, %d runs checked (%d skipped for overflow), %d values\n", programs, runs, skipped, values);
}

}  // namespace
}  // namespace kiln::analysis::test
