// The hand-built "every opcode" function and the structural comparison used by the IR tests.
#include "ir_test_util.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "ir/text.h"
#include "layout/linear_layout.h"

namespace kiln::ir::testing {

std::unique_ptr<Module> buildEverything() {
  auto m = std::make_unique<Module>();
  Function& f = m->addFunction("everything");
  Value* x = f.body.addArg(Type::ptr(Scalar::F32), "x_ptr");
  Value* n = f.body.addArg(Type::scalar(Scalar::I32), "n");
  Value* flag = f.body.addArg(Type::scalar(Scalar::I1), "flag");
  Value* hp = f.body.addArg(Type::ptr(Scalar::F16), "");  // unnamed: printed as a number
  Builder b(f.body);
  using O = Opcode;
  const Type i32 = Type::scalar(Scalar::I32), f32 = Type::scalar(Scalar::F32), f64 = Type::scalar(Scalar::F64);
  const Type i1 = Type::scalar(Scalar::I1), i64 = Type::scalar(Scalar::I64);
  const Type vi = Type::tensor({16}, Scalar::I32), vf = Type::tensor({16}, Scalar::F32);
  const Type vb = Type::tensor({16}, Scalar::I1), vp = Type::tensor({16}, Scalar::Ptr).withElem(Type::ptr(Scalar::F32));

  Value* c0 = b.intConst(0, i32);
  Value* c1 = b.intConst(1, i32);
  b.intConst(-3, i64);
  b.intConst(std::numeric_limits<int64_t>::min(), i64);
  b.intConst(1, i1);
  b.floatConst(1e-06, f32);
  b.floatConst(0.1, f64);
  b.floatConst(std::numeric_limits<double>::infinity(), f64);
  b.floatConst(-std::numeric_limits<double>::infinity(), f64);
  b.floatConst(std::numeric_limits<double>::quiet_NaN(), f64);
  b.floatConst(-0.0, f64);
  b.floatConst(1e300, f64);
  b.floatConst(5e-324, f64);
  b.floatConst(3.0, f32);
  Value* pid = b.create1(O::ProgramId, {}, i32, {{"axis", int64_t(0)}});
  b.create1(O::NumPrograms, {}, i32, {{"axis", int64_t(2)}});
  Value* r = b.create1(O::Arange, {}, vi, {{"start", int64_t(0)}, {"end", int64_t(16)}});
  Value* s = b.create1(O::Splat, {pid}, vi);
  Value* e = b.create1(O::ExpandDims, {r}, Type::tensor({16, 1}, Scalar::I32), {{"axis", int64_t(1)}});
  Value* bc = b.create1(O::Broadcast, {e}, Type::tensor({16, 8}, Scalar::I32));
  b.create1(O::Reshape, {bc}, Type::tensor({128}, Scalar::I32));
  b.create1(O::Permute, {bc}, Type::tensor({8, 16}, Scalar::I32), {{"order", std::vector<int64_t>{1, 0}}});
  Value* fr = b.create1(O::Cast, {r}, vf, {{"rounding", std::string("rtne")}});
  b.create1(O::Bitcast, {fr}, vi);
  for (O op : {O::Add, O::Sub, O::Mul, O::Div, O::Rem, O::And, O::Or, O::Xor, O::Shl, O::Shr, O::Min, O::Max,
               O::UMulHi})
    b.create1(op, {s, r}, vi);
  b.create1(O::Max, {fr, fr}, vf, {{"propagate_nan", int64_t(1)}});
  b.create1(O::Div, {fr, fr}, vf, {{"rounding", std::string("rn")}});
  b.create1(O::Fma, {fr, fr, fr}, vf);
  b.create1(O::Neg, {fr}, vf);
  b.create1(O::Not, {r}, vi);
  b.create1(O::Abs, {r}, vi);
  for (O op : {O::Exp, O::Exp2, O::Log, O::Log2, O::Sqrt, O::Rsqrt, O::Sin, O::Cos, O::Tanh, O::Erf, O::Floor,
               O::Ceil, O::Trunc, O::Rint, O::RoundTf32, O::Expm1, O::Log1p, O::Log10, O::Exp10, O::Tan, O::Asin, O::Acos, O::Atan,
               O::Sinh, O::Cosh, O::Asinh, O::Acosh, O::Atanh, O::Cbrt, O::BesselJ0, O::BesselJ1, O::BesselY0,
               O::BesselY1, O::BesselI0, O::BesselI1, O::Erfc, O::Normcdf, O::Erfinv, O::Erfcinv,
               O::Normcdfinv})
    b.create1(op, {fr}, vf);
  for (O op : {O::Atan2, O::Hypot, O::Pow}) b.create1(op, {fr, fr}, vf);
  for (O op : {O::Clz, O::Popc, O::Brev}) b.create1(op, {r}, vi);
  b.create1(O::MulHi, {s, r}, vi);
  b.create1(O::BytePerm, {s, r, r}, vi);
  b.create1(O::Rounded, {fr, fr, fr}, vf, {{"fn", std::string("fma")}, {"mode", std::string("rtn")}});
  b.create1(O::Cast, {r}, vf, {{"rounding", std::string("rtp")}});
  Value* ns = b.create1(O::Splat, {n}, vi);
  Value* mask = b.create1(O::Cmp, {r, ns}, vb, {{"pred", std::string("lt")}});
  Value* sel = b.create1(O::Select, {mask, r, ns}, vi);
  Value* sp = b.create1(O::Splat, {x}, vp);
  Value* pa = b.create1(O::PtrAdd, {sp, sel}, vp);
  Value* zero = b.floatConst(0.0, vf);
  Value* ld = b.create1(O::Load, {pa, mask, zero}, vf, {{"cache", std::string(".cg")}, {"volatile", int64_t(1)}});
  b.create1(O::Load, {pa}, vf);
  b.create(O::Store, {pa, ld, mask}, {}, {{"evict", std::string("evict_last")}});
  const std::vector<Attr> order = {{"scope", std::string("gpu")}, {"sem", std::string("acq_rel")}};
  std::vector<Attr> rmw = order;
  rmw.push_back({"kind", std::string("add")});
  b.create1(O::AtomicRmw, {pa, ld, mask}, vf, rmw);
  b.create1(O::AtomicCas, {pa, ld, zero}, vf, order);
  b.create(O::DebugBarrier, {}, {});
  Value* sum = b.create1(O::Reduce, {ld}, f32, {{"kind", std::string("sum")}, {"axis", int64_t(0)}});
  b.create1(O::Reduce, {ld}, i32, {{"kind", std::string("argmax")}, {"axis", int64_t(0)}});
  b.create1(O::Sort, {ld}, vf, {{"axis", int64_t(0)}, {"descending", int64_t(1)}});
  // A reduction and a scan with combine regions (the scan reversed, over two tiles).
  Op* red = b.create(O::ReduceCombine, {ld}, {f32}, {{"axis", int64_t(0)}});
  {
    Block& rb = red->region(0);
    Value* x0 = rb.addArg(f32);
    Value* x1 = rb.addArg(f32);
    Builder rbb(rb);
    Value* m = rbb.create1(O::Max, {x0, x1}, f32);
    rbb.create(O::Yield, {m}, {});
  }
  Op* scan = b.create(O::Scan, {ld, r}, {vf, vi}, {{"axis", int64_t(0)}, {"reverse", int64_t(1)}});
  {
    Block& sb = scan->region(0);
    Value* va = sb.addArg(f32);
    Value* ia = sb.addArg(i32);
    sb.addArg(f32);
    Value* ib = sb.addArg(i32);
    Builder in(sb);
    Value* mixed = in.create1(O::Add, {va, in.create1(O::Cast, {ib}, f32)}, f32);
    in.create(O::Yield, {mixed, ia}, {});
  }
  Value* da = b.floatConst(1.0, Type::tensor({16, 16}, Scalar::F16));
  Value* acc = b.floatConst(0.0, Type::tensor({16, 16}, Scalar::F32));
  b.create1(O::Dot, {da, da, acc}, acc->type, {{"input_precision", std::string("ieee")}});
  b.create1(O::Gather, {ld, sel}, vf, {{"axis", int64_t(0)}});
  b.create1(O::Histogram, {r}, Type::tensor({8}, Scalar::I32));
  b.create(O::InlineAsm, {r, r}, {vi, vf},
           {{"asm", std::string("{ add.s32 $0, $2, $3;\n  cvt.rn.f32.s32 $1, $0; }")},
            {"constraints", std::string("=r,=f,r,r")}, {"pack", int64_t(1)}});
  b.create(O::Print, {r, n}, {}, {{"hex", int64_t(1)}, {"prefix", std::string(" x: ")}});
  b.create1(O::MultipleOf, {r}, vi, {{"values", std::vector<int64_t>{16}}});
  b.create1(O::MaxContiguous, {n}, i32, {{"values", std::vector<int64_t>{1}}});
  // GPU IR: a tile type carrying a layout, and a conversion between two layouts.
  auto rows = std::make_shared<const layout::LinearLayout>(
      layout::LinearLayout::parse("{register=[[1],[2]], lane=[[4],[8]], warp=[]} -> [dim0=16]"));
  auto cols = std::make_shared<const layout::LinearLayout>(
      layout::LinearLayout::parse("{register=[[4],[8]], lane=[[1],[2]], warp=[]} -> [dim0=16]"));
  Value* lr = b.create1(O::ConvertLayout, {r}, vi.withLayout(rows));
  b.create1(O::ConvertLayout, {lr}, vi.withLayout(cols));
  Value* hps = b.create1(O::Splat, {hp}, Type::tensor({16}, Scalar::Ptr).withElem(Type::ptr(Scalar::F16)));
  b.create1(O::Load, {hps}, Type::tensor({16}, Scalar::F16));
  // GPU IR's schedule: a shared buffer of two slots, a copy into one, a barrier, a load out of it, an
  // mbarrier, an mma from shared memory and a warp partition.
  auto offsets = std::make_shared<const layout::LinearLayout>(
      layout::LinearLayout::parse("{offset=[[1],[2],[4],[8]]} -> [dim0=16]"));
  Value* buf = b.create1(O::SharedAlloc, {}, Type::shared({16}, Scalar::F16, 2, offsets), {{"offset", int64_t(0)}});
  Value* slot = b.create1(O::SharedSlot, {buf, c1}, buf->type.withSlots(1));
  Value* hpr = b.create1(O::Splat, {hp}, Type::tensor({16}, Scalar::Ptr).withElem(Type::ptr(Scalar::F16)).withLayout(rows));
  Value* mr = b.create1(O::Splat, {flag}, Type::tensor({16}, Scalar::I1).withLayout(rows));
  b.create(O::AsyncCopy, {slot, hpr, mr}, {});
  b.create(O::AsyncCommit, {}, {});
  b.create(O::AsyncWait, {}, {}, {{"pending", int64_t(0)}});
  b.create(O::FenceAsyncShared, {}, {});
  b.create(O::Barrier, {}, {}, {{"id", int64_t(1)}, {"threads", int64_t(64)}});
  b.create(O::MmaWait, {}, {}, {{"pending", int64_t(1)}});
  Value* back = b.create1(O::LocalLoad, {slot}, Type::tensor({16}, Scalar::F16).withLayout(cols));
  b.create(O::LocalStore, {slot, back}, {});
  b.create1(O::SharedPermute, {slot}, slot->type.permuted({0}), {{"order", std::vector<int64_t>{0}}});
  b.create1(O::ExtractSlice, {back}, Type::tensor({8}, Scalar::F16).withLayout(std::make_shared<const layout::LinearLayout>(layout::LinearLayout::parse(
                "{register=[[4]], lane=[[1],[2]], warp=[]} -> [dim0=8]"))),
            {{"dim", int64_t(0)}, {"offset", int64_t(8)}});
  auto one = std::make_shared<const layout::LinearLayout>(layout::LinearLayout::parse("{offset=[]} -> [dim0=1]"));
  Value* bar = b.create1(O::SharedAlloc, {}, Type::shared({1}, Scalar::I64, 1, one), {{"offset", int64_t(128)}});
  b.create(O::MbarrierInit, {bar}, {}, {{"count", int64_t(64)}});
  b.create(O::MbarrierExpectTx, {bar}, {}, {{"bytes", int64_t(32)}});
  b.create(O::MbarrierArrive, {bar}, {});
  b.create(O::MbarrierWait, {bar, c0}, {});
  b.create(O::AsyncCopyArrive, {bar}, {});
  b.create(O::WarpgroupTurn, {}, {}, {{"barrier", int64_t(1)}, {"step", std::string("wait")}});
  // TMA: a map over the f16 argument (n elements, stride 1) and one box of it copied into the slot.
  b.create(O::TensorMap, {hp, n, c1}, {},
           {{"box", std::vector<int64_t>{16}}, {"index", int64_t(0)}, {"swizzle", int64_t(0)}});
  b.create(O::TmaLoad, {slot, bar, c0}, {}, {{"map", int64_t(0)}});
  b.create(O::TmaStore, {slot, c0}, {}, {{"map", int64_t(0)}});
  b.create(O::TmaStoreWait, {}, {}, {{"pending", int64_t(0)}});
  auto mk = [](const char* text) { return std::make_shared<const layout::LinearLayout>(layout::LinearLayout::parse(text)); };
  auto accL = mk("{register=[[0,1],[8,0],[0,8]], lane=[[0,2],[0,4],[1,0],[2,0],[4,0]], warp=[]} -> [dim0=16, dim1=16]");
  Value* tileA = b.create1(O::SharedAlloc, {}, Type::shared({16, 16}, Scalar::F16, 1,
                                                        mk("{offset=[[0,1],[0,2],[0,4],[0,8],[1,0],[2,0],[4,0],[8,0]]} -> [dim0=16, dim1=16]")),
                           {{"offset", int64_t(256)}});
  Value* accT = b.floatConst(0.0, Type::tensor({16, 16}, Scalar::F32).withLayout(accL));
  Value* prod = b.create1(O::Mma, {tileA, tileA, accT}, accT->type);
  b.create(O::MmaWait, {prod}, {prod->type}, {{"pending", int64_t(0)}});
  Op* parts = b.create(O::WarpPartition, {}, {}, {{"warps", std::vector<int64_t>{1, 1}}});
  for (int i = 0; i < 2; ++i) Builder(parts->addRegion()).create(O::Yield, {}, {});

  // for with results, holding an if with results and an if without.
  Op* loop = b.create(O::For, {c0, n, c1, sum, ld}, {f32, vf}, {{"num_stages", int64_t(3)}});
  Block& body = loop->region(0);
  Value* iv = body.addArg(i32);
  Value* a = body.addArg(f32);
  Value* v = body.addArg(vf);
  {
    Builder lb(body);
    Value* a2 = lb.create1(O::Add, {a, sum}, f32);  // uses a value of the enclosing block
    Value* lt = lb.create1(O::Cmp, {iv, n}, i1, {{"pred", std::string("lt")}});
    Op* br = lb.create(O::If, {lt}, {f32});
    Builder tb(br->region(0));
    Value* t2 = tb.create1(O::Mul, {a2, a2}, f32);
    tb.create(O::Yield, {t2}, {});
    Builder eb(br->region(1));
    eb.create(O::Yield, {a2}, {});
    Op* noRes = lb.create(O::If, {flag}, {});
    Builder nb(noRes->region(0));
    nb.create(O::Assert, {flag}, {}, {{"message", std::string("tab\there \"quoted\" back\\slash\n\x01 \xc3\xa9")}});
    nb.create(O::Yield, {}, {});
    Builder(noRes->region(1)).create(O::Yield, {}, {});
    lb.create(O::Yield, {br->result(0), v}, {});
  }
  // for without results
  Op* loop2 = b.create(O::For, {c0, n, c1}, {});
  loop2->region(0).addArg(i32);
  Builder(loop2->region(0)).create(O::Yield, {}, {});

  // while with results: while (i < n) i += 1
  Op* w = b.create(O::While, {c0}, {i32});
  Value* bi = w->region(0).addArg(i32);
  {
    Builder wb(w->region(0));
    Value* go = wb.create1(O::Cmp, {bi, n}, i1, {{"pred", std::string("lt")}});
    wb.create(O::Condition, {go, bi}, {});
    Value* ai = w->region(1).addArg(i32);
    Builder ab(w->region(1));
    ab.create(O::Yield, {ab.create1(O::Add, {ai, c1}, i32)}, {});
  }
  // while without results
  Op* w2 = b.create(O::While, {}, {});
  Builder(w2->region(0)).create(O::Condition, {flag}, {});
  Builder(w2->region(1)).create(O::Yield, {}, {});
  b.create(O::Assert, {mask}, {}, {{"message", std::string("")}});
  b.create(O::Return, {}, {});
  return m;
}

std::unique_ptr<Module> parseString(const std::string& text, const std::string& name) {
  return parseModule(makeSource(name, text));
}

namespace {

bool sameAttr(const AttrValue& x, const AttrValue& y) {
  if (x.index() != y.index()) return false;
  if (auto* dx = std::get_if<double>(&x)) {
    double dy = std::get<double>(y);
    if (std::isnan(*dx)) return std::isnan(dy);
    return std::memcmp(dx, &dy, sizeof dy) == 0;
  }
  return x == y;
}

struct Differ {
  std::unordered_map<const Value*, const Value*> map;  // a's values -> b's values
  std::string diff;

  bool value(const Value* x, const Value* y, const std::string& where) {
    map[x] = y;
    if (x->type != y->type) diff = where + ": type " + x->type.str() + " vs " + y->type.str();
    return diff.empty();
  }

  bool block(const Block& x, const Block& y, const std::string& where) {
    if (x.args.size() != y.args.size()) return (diff = where + ": argument count differs"), false;
    for (size_t i = 0; i < x.args.size(); ++i)
      if (!value(x.args[i].get(), y.args[i].get(), where + " arg " + std::to_string(i))) return false;
    if (x.ops.size() != y.ops.size()) return (diff = where + ": op count differs"), false;
    for (size_t i = 0; i < x.ops.size(); ++i) {
      const Op &p = *x.ops[i], &q = *y.ops[i];
      std::string at = where + " op " + std::to_string(i) + " (" + p.name() + ")";
      if (p.opcode != q.opcode) return (diff = at + ": opcode differs"), false;
      if (p.operands.size() != q.operands.size()) return (diff = at + ": operand count differs"), false;
      for (size_t k = 0; k < p.operands.size(); ++k) {
        auto it = map.find(p.operands[k]);
        if (it == map.end() || it->second != q.operands[k]) return (diff = at + ": operand " + std::to_string(k)), false;
      }
      if (p.attrs.size() != q.attrs.size()) return (diff = at + ": attribute count differs"), false;
      for (const Attr& a : p.attrs) {
        const AttrValue* o = q.findAttr(a.name);
        if (!o || !sameAttr(a.value, *o)) return (diff = at + ": attribute " + a.name), false;
      }
      if (p.results.size() != q.results.size()) return (diff = at + ": result count differs"), false;
      for (size_t k = 0; k < p.results.size(); ++k)
        if (!value(p.results[k].get(), q.results[k].get(), at)) return false;
      if (p.regions.size() != q.regions.size()) return (diff = at + ": region count differs"), false;
      for (size_t k = 0; k < p.regions.size(); ++k)
        if (!block(*p.regions[k], *q.regions[k], at + " region " + std::to_string(k))) return false;
    }
    return true;
  }
};

}  // namespace

std::string structuralDiff(const Function& a, const Function& b) {
  if (a.name != b.name) return "function names differ";
  Differ d;
  d.block(a.body, b.body, "@" + a.name);
  return d.diff;
}

}  // namespace kiln::ir::testing
