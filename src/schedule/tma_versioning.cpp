// Two versions of a loop for TMA copies of pointer-built tiles (tma_versioning.h).
#include "schedule/tma_versioning.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "schedule/tma_maps.h"
#include "schedule/value_uses.h"

namespace kiln::schedule {

using ir::Opcode;
using ir::Scalar;
using ir::Type;
using ir::Value;

namespace {

bool isParam(const Value* v) { return unhinted(v)->isBlockArg() && unhinted(v)->owner->parentFunc; }

// The checks of the header's drawing, and-ed into one i1 before the loop; null when none is needed.
class Check {
 public:
  Check(ir::Builder& b, SourceLoc loc) : b_(b), loc_(std::move(loc)) {}

  void atLeast(const ScalarForm& f, int64_t k) {
    if (f.isConstant()) {
      if (f.constant < k) always_false_ = true;
      return;
    }
    if (const Value* atom = f.soleAtom(); atom && isParam(atom)) {  // a parameter checked once
      if (std::find(checked_.begin(), checked_.end(), std::make_pair(atom, k)) != checked_.end()) return;
      checked_.emplace_back(atom, k);
    }
    Value* v = emitForm(b_, f, nullptr, nullptr, loc_);
    both(b_.create1(Opcode::Cmp, {v, b_.intConst(k, i32(), loc_)}, i1(), {ir::Attr{"pred", std::string("ge")}}, loc_));
  }
  void atMost(const ScalarForm& f, const Value* limit) {
    Value* v = emitForm(b_, f, nullptr, nullptr, loc_);
    both(b_.create1(Opcode::Cmp, {v, const_cast<Value*>(limit)}, i1(), {ir::Attr{"pred", std::string("le")}}, loc_));
  }
  void multipleOf(const Value* v, int64_t k) {  // k a power of two: v & (k - 1) == 0
    if (std::find(aligned_.begin(), aligned_.end(), std::make_pair(v, k)) != aligned_.end()) return;
    aligned_.emplace_back(v, k);
    Value* low = b_.create1(Opcode::And, {const_cast<Value*>(v), b_.intConst(k - 1, i32(), loc_)}, i32(), {}, loc_);
    both(b_.create1(Opcode::Cmp, {low, b_.intConst(0, i32(), loc_)}, i1(), {ir::Attr{"pred", std::string("eq")}}, loc_));
  }
  Value* result() {
    if (always_false_) return b_.intConst(0, i1(), loc_);
    return all_ ? all_ : b_.intConst(1, i1(), loc_);
  }

 private:
  static Type i32() { return Type::scalar(Scalar::I32); }
  static Type i1() { return Type::scalar(Scalar::I1); }
  void both(Value* c) { all_ = all_ ? b_.create1(Opcode::And, {all_, c}, i1(), {}, loc_) : c; }

  ir::Builder& b_;
  SourceLoc loc_;
  Value* all_ = nullptr;
  bool always_false_ = false;
  std::vector<std::pair<const Value*, int64_t>> checked_;  // parameter, k of atLeast
  std::vector<std::pair<const Value*, int64_t>> aligned_;  // value, k of multipleOf
};

// The box's dims in the tensor's order, its contiguous dim last: the load's, or for a box contiguous
// along dim 0 (a K-contiguous B, a column-major A) swapped.
std::vector<size_t> tensorOrder(const PointerBox& box) {
  if (box.contiguousDim() == 0) return {1, 0};
  return {0, 1};
}

// The dims of the box's tensor map, outermost first: those the tile does not span, then the load's in
// the tensor's order.
std::vector<BoxDim> mapDims(const PointerBox& box) {
  std::vector<BoxDim> out = box.outer;
  for (size_t i : tensorOrder(box)) out.push_back(box.dims[i]);
  return out;
}

// The check of `boxes`, whose starts are forms over `n` (a loop's iteration atom, or null) and values
// before `b`'s insertion point.
Value* checkBoxes(ir::Builder& b, const SourceLoc& loc, const Value* n, const std::vector<const PointerBox*>& boxes) {
  Check check(b, loc);
  for (const PointerBox* box : boxes)
    for (const BoxDim& d : mapDims(*box)) {
      const ScalarForm first = d.start.without(n);  // coordinates only grow from there
      check.atLeast(first, 0);
      if (d.modulus && !d.wrappedLanesDead) check.atMost(ScalarForm(first).add(ScalarForm::of(d.size)), d.modulus);
      if (d.extentParam) check.atLeast(ScalarForm::atom(d.extentParam), 1);
      if (d.stride) check.atLeast(ScalarForm::atom(unhinted(d.stride)), 1);
      if (d.checkedStrideMultiple) check.multipleOf(unhinted(d.stride), d.checkedStrideMultiple);
    }
  return check.result();
}

// A load of the copy whose box runs along dim 0 replaced by a load of the swapped tile (pointer, mask
// and `other` permuted) and a permute of its result back: the pipeline copies the swapped tile with TMA
// in the tensor's order, and the dots read it through the permute as they do a descriptor load's `b.T`.
ir::Op* swapped(ir::Op& load) {
  ir::Builder b(*load.parent, load.parent->indexOf(&load));
  const std::vector<int64_t> swap{1, 0};
  std::vector<Value*> operands;
  for (Value* v : load.operands) {
    const Type t = v->type.permuted(swap);
    if (v->def && v->def->opcode == Opcode::Constant)  // (a constant `other` stays one: the pipeline asks)
      operands.push_back(b.create1(Opcode::Constant, {}, t, v->def->attrs, load.loc));
    else
      operands.push_back(b.create1(Opcode::Permute, {v}, t, {ir::Attr{"order", swap}}, load.loc));
  }
  ir::Op* tile = b.create(Opcode::Load, operands, {load.result(0)->type.permuted(swap)}, load.attrs, load.loc);
  Value* back = b.create1(Opcode::Permute, {tile->result(0)}, load.result(0)->type, {ir::Attr{"order", swap}}, load.loc);
  ir::replaceAllUses(*load.parent, load.result(0), back);
  load.parent->remove(&load);
  return tile;
}

// Gives `copied` (a load of the copy, whose induction variable is `iv`) the TMA description of `box`:
// after its mask and `other` (made explicit when absent), the coordinates, computed in the body, then
// the base, extents and strides, in the tensor's order (the load swapped first where that is not its).
void describe(ir::Op& copied, const PointerBox& box, const ir::Op* originalLoop, Value* iv) {
  ir::Builder b(*copied.parent, copied.parent->indexOf(&copied));
  const SourceLoc& loc = copied.loc;
  const Type i32 = Type::scalar(Scalar::I32);
  const Type& ptrType = copied.operand(0)->type;
  const bool store = copied.opcode == Opcode::Store;
  const unsigned maskIndex = store ? 2 : 1;
  if (copied.numOperands() <= maskIndex) copied.operands.push_back(b.intConst(1, ptrType.withElem(Scalar::I1), loc));
  if (!store && copied.numOperands() < 3) {
    const Type& t = copied.result(0)->type;
    copied.operands.push_back(ir::isFloat(t.elem) ? b.floatConst(0.0, t, loc) : b.intConst(0, t, loc));
  }
  ir::Op& load = tensorOrder(box)[0] == 0 ? copied : *swapped(copied);
  b.setInsertionPointBefore(&load);
  std::vector<Value*> coords, extents, strides;
  const std::vector<BoxDim> dims = mapDims(box);
  for (const BoxDim& d : dims) {
    coords.push_back(emitForm(b, d.start, originalLoop, iv, loc));
    extents.push_back(d.extentParam ? const_cast<Value*>(d.extentParam) : b.intConst(d.extentValue, i32, loc));
    strides.push_back(d.stride ? const_cast<Value*>(d.stride) : b.intConst(d.strideValue, i32, loc));
  }
  load.operands.insert(load.operands.end(), coords.begin(), coords.end());
  load.operands.push_back(const_cast<Value*>(box.base));
  load.operands.insert(load.operands.end(), extents.begin(), extents.end());
  load.operands.insert(load.operands.end(), strides.begin(), strides.end());
  load.setAttr("tma", int64_t(dims.size()));
  load.setAttr("guarded", int64_t(1));
}

bool writesGlobal(const ir::Op& op) {
  switch (op.opcode) {
    case Opcode::Store: case Opcode::AtomicRmw: case Opcode::AtomicCas: return true;
    case Opcode::InlineAsm: return op.intAttrOr("pure", 0) == 0;
    default: return false;
  }
}

}  // namespace

bool globalWritesMayPrecede(const ir::Function& fn, const ir::Op& forOp) {
  std::vector<const ir::Block*> around;  // the bodies of the loop and of every loop around it
  for (const ir::Op* o = &forOp; o; o = o->parentOp())
    if ((o->opcode == Opcode::For && !o->intAttrOr("persistent", 0)) || o->opcode == Opcode::While)
      for (const auto& r : o->regions) around.push_back(r.get());
  auto inAround = [&](const ir::Op& op) {
    for (const ir::Block* b = op.parent; b; b = b->parentOp ? b->parentOp->parent : nullptr)
      if (std::find(around.begin(), around.end(), b) != around.end()) return true;
    return false;
  };
  bool seenLoop = false, writes = false;
  std::function<void(const ir::Block&)> visit = [&](const ir::Block& b) {
    for (const auto& op : b.ops) {
      if (op.get() == &forOp) seenLoop = true;
      if (writesGlobal(*op) && (!seenLoop || inAround(*op))) writes = true;
      for (const auto& r : op->regions) visit(*r);
    }
  };
  visit(fn.body);
  return writes;
}

namespace {

// Whether the launcher can encode a map of `box`'s tensor (tmaEncodable), strides not proven aligned
// marked for the check.
bool boxEncodable(PointerBox& box, ir::Scalar elem, const analysis::AxisInfoAnalysis& axis) {
  const std::vector<BoxDim> dims = mapDims(box);
  std::vector<TensorPiece> pieces{TensorPiece{unhinted(box.base), {}, box.base}};
  for (const BoxDim& d : dims)
    pieces.push_back(d.extentParam ? TensorPiece{d.extentParam, {}, d.extentParam} : TensorPiece{nullptr, d.extentValue, nullptr});
  for (const BoxDim& d : dims) {
    if (d.stride && !isParam(d.stride)) return false;
    pieces.push_back(d.stride ? TensorPiece{unhinted(d.stride), {}, d.stride} : TensorPiece{nullptr, d.strideValue, nullptr});
  }
  std::vector<size_t> checked;
  if (!tmaEncodable(pieces, ir::bitWidth(elem) / 8, axis, &checked)) return false;
  const std::vector<size_t> order = tensorOrder(box);
  for (size_t d : checked) {
    BoxDim& dim = d < box.outer.size() ? box.outer[d] : box.dims[order[d - box.outer.size()]];
    dim.checkedStrideMultiple = 16 / (ir::bitWidth(elem) / 8);
  }
  return true;
}

}  // namespace

bool pointerBoxFitsTma(PointerBox& box, const layout::WgmmaTile& tile, ir::Scalar elem,
                       const analysis::AxisInfoAnalysis& axis) {
  if (box.dims.size() != 2 || tile.order[0] != box.contiguousDim() || tile.rows() > 256 || ir::bitWidth(elem) < 8)
    return false;
  return boxEncodable(box, elem, axis);
}

bool storeBoxFitsTma(PointerBox& box, ir::Scalar elem, const analysis::AxisInfoAnalysis& axis) {
  if (box.dims.size() != 2 || !box.outer.empty() || box.contiguousDim() != 1 || ir::bitWidth(elem) < 8) return false;
  return boxEncodable(box, elem, axis);
}

ir::Op* versionStoreForTma(ir::Op& store, const PointerBox& box) {
  ir::Block& block = *store.parent;
  ir::Builder b(block, block.indexOf(&store));
  Value* check = checkBoxes(b, store.loc, nullptr, {&box});
  ir::Op* branch = b.create(Opcode::If, {check}, {}, {}, store.loc);
  std::unordered_map<const Value*, Value*> map;
  ir::Op* copy = ir::cloneOpInto(store, branch->region(0), 0, map);
  branch->region(1).append(block.remove(&store));
  for (unsigned r = 0; r < 2; ++r) ir::Builder(branch->region(r)).create(Opcode::Yield, {}, {}, {}, store.loc);
  // (the registers go to shared memory as they are: local_store takes any layout)
  if (const Value* v = copy->operand(1); v->def && v->def->opcode == Opcode::ConvertLayout) copy->operands[1] = v->def->operand(0);
  describe(*copy, box, nullptr, nullptr);
  return branch;
}

void unversionStore(ir::Op& branch) {
  ir::Block& block = *branch.parent;
  ir::Block& otherwise = branch.region(1);
  while (otherwise.ops.size() > 1) block.insert(block.indexOf(&branch), otherwise.remove(otherwise.ops.front().get()));
  ir::Value* check = branch.operand(0);
  ValueUses uses(*block.function());
  block.remove(&branch);
  uses.release({check});  // (the check's ops, which nothing else reads)
}

void sinkIntoBranch(ir::Op& branch, unsigned region) {
  ir::Block& block = *branch.parent;
  const ir::Block& target = branch.region(region);
  auto inTarget = [&](const ir::Op& op) {
    for (const ir::Block* b = op.parent; b; b = b->parentOp ? b->parentOp->parent : nullptr)
      if (b == &target) return true;
    return false;
  };
  // Reads of each value outside the target region, counted once over the block.
  std::unordered_map<const Value*, int> outside;
  ir::walk(block, [&](ir::Op& op) {
    if (!inTarget(op))
      for (const Value* v : op.operands) ++outside[v];
  });
  for (size_t i = block.indexOf(&branch); i-- > 0;) {
    ir::Op* op = block.ops[i].get();
    if (op->info().effect != ir::Effect::Pure || !op->regions.empty() || op->results.empty()) continue;
    if (std::any_of(op->results.begin(), op->results.end(), [&](const auto& r) { return outside[r.get()] > 0; }))
      continue;
    for (const Value* v : op->operands) --outside[v];
    branch.region(region).insert(0, block.remove(op));
  }
}

ir::Op* versionForTma(ir::Op& forOp, const std::vector<PointerTmaLoad>& loads) {
  ir::Block& block = *forOp.parent;
  ir::Builder b(block, block.indexOf(&forOp));
  std::vector<const PointerBox*> boxes;
  for (const PointerTmaLoad& l : loads) boxes.push_back(&l.box);
  Value* check = checkBoxes(b, forOp.loc, iterationAtom(forOp), boxes);
  // The if yields the loop's results that are read after it (not the pointer tiles TMA leaves unread).
  ir::Function& fn = *block.function();
  std::vector<unsigned> kept;
  std::vector<Type> types;
  for (unsigned i = 0; i < forOp.numResults(); ++i) {
    bool read = false;
    ir::walk(block, [&](ir::Op& op) {
      read = read || std::count(op.operands.begin(), op.operands.end(), forOp.result(i)) > 0;
    });
    if (!read) continue;
    kept.push_back(i);
    types.push_back(forOp.result(i)->type);
  }
  ir::Op* branch = b.create(Opcode::If, {check}, types, {}, forOp.loc);
  for (unsigned k = 0; k < kept.size(); ++k) ir::replaceAllUses(fn.body, forOp.result(kept[k]), branch->result(k));

  ir::Block& then = branch->region(0);  // (create gave the if its two empty regions)
  std::unordered_map<const Value*, Value*> map;
  ir::Op* copy = ir::cloneOpInto(forOp, then, 0, map);
  ir::Block& otherwise = branch->region(1);
  ir::Op* original = otherwise.append(block.remove(&forOp));
  for (auto [region, loop] : {std::pair{&then, copy}, std::pair{&otherwise, original}}) {
    std::vector<Value*> results;
    for (unsigned i : kept) results.push_back(loop->result(i));
    ir::Builder(*region).create(Opcode::Yield, results, {}, {}, loop->loc);
  }
  for (const PointerTmaLoad& l : loads)
    describe(*map.at(l.load->result(0))->def, l.box, original, copy->region(0).arg(0));
  return copy;
}

}  // namespace kiln::schedule
