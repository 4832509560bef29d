// The overflow oracle's shadows: computed op by op beside the interpreter's values, copied with them
// through control flow, and compared with the addresses of loads and stores before they touch memory.
#include "interp/overflow_oracle.h"

#include "interp/address_cone.h"
#include "support/diagnostic.h"

namespace kiln::interp {

using ir::Family;
using ir::Opcode;
using ir::Scalar;

namespace {

constexpr size_t kMaxWraps = size_t(1) << 16;  // per program; later wraps share the last record

// The operand whose type an op computes in: select's values, every other op's first operand.
uint32_t typedOperand(const Inst& in) { return in.op->opcode == Opcode::Select ? in.in.at(1) : in.in.at(0); }

bool intOrPtr(Scalar t) { return ir::isInt(t) || t == Scalar::Ptr; }

uint64_t pointeeBytes(const ir::Type& t) {
  if (!t.isPtr()) return 0;
  return t.pointee == Scalar::I1 ? 1 : uint64_t(ir::bitWidth(t.pointee) / 8);
}

// For broadcast and permute: the flat operand index of every flat result index.
std::vector<size_t> sourceIndices(const Inst& in, const ir::Type& st, const ir::Type& rt) {
  const size_t rank = rt.shape.size();
  std::vector<int64_t> own(st.shape.size(), 1), strides(rank, 0);
  for (size_t d = st.shape.size(); d-- > 1;) own[d - 1] = own[d] * st.shape[d];
  for (size_t d = 0; d < rank; ++d) {
    if (in.op->opcode == Opcode::Permute) {
      int64_t o = d < in.list.size() ? in.list[d] : int64_t(d);
      strides[d] = o >= 0 && size_t(o) < own.size() ? own[size_t(o)] : 0;
    } else {
      strides[d] = d < st.shape.size() && st.shape[d] != 1 ? own[d] : 0;
    }
  }
  std::vector<size_t> out(size_t(rt.numel()));
  std::vector<int64_t> idx(rank, 0);
  int64_t off = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = size_t(off);
    for (size_t d = rank; d-- > 0;) {  // the next row-major index
      off += strides[d];
      if (++idx[d] < rt.shape[d]) break;
      off -= strides[d] * rt.shape[d];
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

OverflowOracle::OverflowOracle(Machine& m, OverflowCheck mode, const ir::Function& fn, const Region& top,
                               const std::unordered_map<const ir::Value*, uint32_t>& ids)
    : m_(m), mode_(mode) {
  if (mode_ != OverflowCheck::Address) return;
  size_t slots = 0;
  for (const auto& [v, id] : ids) slots = std::max(slots, size_t(id) + 1);
  // Loop temporaries (Inst::scratch) are numbered after the values: size by the machine's slots.
  std::vector<const Region*> regions{&top};
  while (!regions.empty()) {
    const Region* r = regions.back();
    regions.pop_back();
    for (const Inst& in : r->insts) {
      for (uint32_t s : in.scratch) slots = std::max(slots, size_t(s) + 1);
      for (const Region& sub : in.regions) regions.push_back(&sub);
    }
  }
  inCone_.assign(slots, 0);
  shadow_.resize(slots);
  origin_.resize(slots);
  for (const ir::Value* v : valuesFeedingAddresses(fn))
    if (auto it = ids.find(v); it != ids.end()) inCone_[it->second] = 1;
  // A loop's temporaries carry its region arguments' values.
  regions.assign(1, &top);
  while (!regions.empty()) {
    const Region* r = regions.back();
    regions.pop_back();
    for (const Inst& in : r->insts) {
      if (!in.regions.empty()) {
        const std::vector<uint32_t>& args = in.regions[0].args;
        const size_t skip = in.op->opcode == Opcode::For ? 1 : 0;  // for's region starts with the iv
        for (size_t k = 0; k < in.scratch.size() && k + skip < args.size(); ++k)
          inCone_[in.scratch[k]] = inCone_[args[k + skip]];
      }
      for (const Region& sub : in.regions) regions.push_back(&sub);
    }
  }
  for (uint32_t a : top.args) fromValue(a);
}

Wide OverflowOracle::shadowAt(uint32_t id, size_t i) const {
  const std::vector<Elem>& v = m_.val(id);
  const size_t k = v.size() == 1 ? 0 : i;
  if (id < inCone_.size() && inCone_[id] && k < shadow_[id].size()) return shadow_[id][k];
  return wideOf(m_.type(id).elem, v.at(k));
}

uint32_t OverflowOracle::originAt(uint32_t id, size_t i) const {
  if (id >= inCone_.size() || !inCone_[id]) return 0;
  const std::vector<uint32_t>& o = origin_[id];
  if (o.empty()) return 0;
  return o.size() == 1 ? o[0] : i < o.size() ? o[i] : 0;
}

void OverflowOracle::fromValue(uint32_t id) {
  if (id >= inCone_.size() || !inCone_[id]) return;
  const std::vector<Elem>& v = m_.val(id);
  const Scalar t = m_.type(id).elem;
  std::vector<Wide>& s = shadow_[id];
  s.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i) s[i] = wideOf(t, v[i]);
  origin_[id].assign(v.size(), 0);
}

void OverflowOracle::copied(uint32_t dst, uint32_t src) {
  if (dst >= inCone_.size() || !inCone_[dst]) return;
  if (src < inCone_.size() && inCone_[src]) {
    shadow_[dst] = shadow_[src];
    origin_[dst] = origin_[src];
  } else {
    fromValue(dst);
  }
}

void OverflowOracle::swapped(uint32_t a, uint32_t b) {
  if (a >= inCone_.size() || b >= inCone_.size()) return;
  std::swap(shadow_[a], shadow_[b]);
  std::swap(origin_[a], origin_[b]);
}

void OverflowOracle::after(const Inst& in) {
  if (in.out.empty()) return;
  if (mode_ == OverflowCheck::All) return checkResult(in);
  const uint32_t r = in.out[0];
  if (r >= inCone_.size() || !inCone_[r]) return;
  switch (ir::familyOf(in.op->opcode)) {
    case Family::Shape: case Family::Hint: case Family::Layout: return moveShadow(in, r);
    case Family::Arith: case Family::Bitwise: case Family::Compare: case Family::Cast: case Family::Pointer:
      return computeShadow(in, r);
    case Family::Control: return;  // its results were copied from the region's values (copied())
    case Family::Constant: case Family::Index: case Family::Math: case Family::Memory: case Family::Reduce:
    case Family::Dot: case Family::Exchange: case Family::Terminator: case Family::Assert: case Family::Asm: case Family::Shared:
    case Family::Async: case Family::Sync: case Family::Mma: case Family::Partition:
      return fromValue(r);  // taken as it is: a load's index, program_id, a constant
  }
}

// Shape ops and hints move elements: the shadows move with them.
void OverflowOracle::moveShadow(const Inst& in, uint32_t r) {
  const uint32_t src = in.in.at(0);
  const size_t n = m_.val(r).size();
  std::vector<Wide>& s = shadow_[r];
  std::vector<uint32_t>& o = origin_[r];
  s.resize(n);
  o.resize(n);
  const bool gather = (in.op->opcode == Opcode::Broadcast || in.op->opcode == Opcode::Permute) &&
                      m_.type(src).isTensor();
  const std::vector<size_t> from = gather ? sourceIndices(in, m_.type(src), m_.type(r)) : std::vector<size_t>{};
  for (size_t i = 0; i < n; ++i) {
    const size_t j = gather ? from[i] : i;  // shadowAt reads a one-element operand at 0 (splat)
    s[i] = shadowAt(src, j);
    o[i] = originAt(src, j);
  }
}

void OverflowOracle::computeShadow(const Inst& in, uint32_t r) {
  const std::vector<Elem>& real = m_.val(r);
  const ir::Type& rtype = m_.type(r);
  const Scalar rt = rtype.elem, t = m_.type(typedOperand(in)).elem;
  const Opcode op = in.op->opcode;
  const uint64_t bytes = pointeeBytes(rtype);
  const size_t n = real.size(), nin = std::min<size_t>(in.in.size(), 3);
  std::vector<Wide>& s = shadow_[r];
  std::vector<uint32_t>& o = origin_[r];
  s.resize(n);
  o.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Wide x[3] = {0, 0, 0};
    for (size_t k = 0; k < nin; ++k) x[k] = shadowAt(in.in[k], i);
    uint32_t origin = 0;
    if (op == Opcode::Select)  // the chosen value's
      origin = originAt(in.in[x[0] != 0 ? 1 : 2], i);
    else
      for (size_t k = 0; k < nin && !origin; ++k) origin = originAt(in.in[k], i);
    const Wide value = wideOf(rt, real[i]);
    Wide e = 0;
    // A bitcast reinterprets bits rather than wrapping a value: it passes on a shadow, never makes one.
    if ((op == Opcode::Bitcast && !origin) || !exactResult(in, t, rt, bytes, x, e)) {
      s[i] = value;
      o[i] = 0;
      continue;
    }
    const Wide shadow = isChecked(rt) ? e : wideOf(rt, wrapTo(rt, e));
    if (shadow == value) {  // no wrap, or one whose effect this op undid (a mask, a bitcast)
      s[i] = value;
      o[i] = 0;
      continue;
    }
    if (!origin) {  // exact operands, wrapped result: this op is where the address starts to go wrong
      if (wraps_.size() < kMaxWraps)
        wraps_.push_back(Wrap{&in, int64_t(i), {x[0], x[1], x[2]}, int(nin), t, rt, e, value});
      origin = uint32_t(wraps_.size());
    }
    s[i] = shadow;
    o[i] = origin;
  }
}

void OverflowOracle::before(const Inst& in) {
  if (mode_ != OverflowCheck::Address) return;
  const Opcode op = in.op->opcode;
  if ((op != Opcode::Load && op != Opcode::Store) || in.in.empty()) return;
  const uint32_t p = in.in[0];
  const size_t maskIndex = op == Opcode::Load ? 1 : 2;
  const std::vector<Elem>* mask = in.in.size() > maskIndex ? &m_.val(in.in[maskIndex]) : nullptr;
  const size_t n = m_.val(p).size();
  for (size_t i = 0; i < n; ++i) {
    if (mask && !((*mask)[mask->size() == 1 ? 0 : i].u & 1)) continue;  // never touches memory
    if (uint32_t origin = originAt(p, i)) reportAddress(origin, in, i);
  }
}

std::string OverflowOracle::wrapText(const Wrap& w) const {
  return "at program " + m_.programStr() + Machine::elementStr(m_.type(w.in->out.at(0)), w.element) + ", the " +
         std::string(ir::name(w.resultType)) + " " + w.in->op->name() + " " +
         exactOpText(*w.in, w.operandType, w.operands, w.numOperands) + " = " + wideStr(w.exact) + " wraps to " +
         wideStr(w.wrapped);
}

void OverflowOracle::reportAddress(uint32_t origin, const Inst& access, size_t element) const {
  if (wraps_.empty()) throw InternalError(access.op->loc, "overflow oracle: an address shadow without its wrap");
  const Wrap& w = wraps_[std::min<size_t>(origin, wraps_.size()) - 1];
  const bool load = access.op->opcode == Opcode::Load;
  m_.fail(*w.in, std::string(w.resultType == Scalar::U32 ? "u32" : "i32") +
                     " overflow changes an address: " + wrapText(w) + ", and the " + access.op->name() + " at " +
                     access.op->loc.str() + (load ? " reads" : " writes") + " through the wrapped address" +
                     Machine::elementStr(m_.type(access.in.at(0)), int64_t(element)) +
                     " (compute the offset in 64 bits: .to(tl.int64) on an operand)");
}

// All mode: any i32/u32 result that differs from the exact result of its operands.
void OverflowOracle::checkResult(const Inst& in) {
  const Family f = ir::familyOf(in.op->opcode);
  if (f != Family::Arith && f != Family::Bitwise && f != Family::Cast) return;
  if (in.op->opcode == Opcode::Bitcast || in.in.empty()) return;
  const uint32_t r = in.out[0];
  const Scalar rt = m_.type(r).elem, t = m_.type(typedOperand(in)).elem;
  if (!isChecked(rt) || !intOrPtr(t)) return;
  const std::vector<Elem>& real = m_.val(r);
  const size_t nin = std::min<size_t>(in.in.size(), 3);
  for (size_t i = 0; i < real.size(); ++i) {
    Wide x[3] = {0, 0, 0};
    for (size_t k = 0; k < nin; ++k) {
      const std::vector<Elem>& v = m_.val(in.in[k]);
      x[k] = wideOf(m_.type(in.in[k]).elem, v.at(v.size() == 1 ? 0 : i));
    }
    Wide e = 0;
    if (!exactResult(in, t, rt, 0, x, e) || fitsIn(rt, e)) continue;
    const Wrap w{&in, int64_t(i), {x[0], x[1], x[2]}, int(nin), t, rt, e, wideOf(rt, real[i])};
    m_.fail(in, std::string(rt == Scalar::U32 ? "u32" : "i32") + " overflow " + wrapText(w));
  }
}

}  // namespace kiln::interp
