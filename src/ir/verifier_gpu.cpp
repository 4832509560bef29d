// The type rules of the GPU IR schedule ops (ops.def, docs/gpu-ir.md): shared
// buffers and their slots, asynchronous copies, barriers, mbarriers, mma and
// warp partitions. Their tiles carry layouts, so none of them can stand in Tile
// IR, where tiles have none.
#include <string>

#include "ir/dot_precision.h"
#include "ir/text.h"
#include "ir/verifier_rules.h"

namespace kiln::ir {

namespace {

bool isI32(const Type& t) { return !t.isTensor() && !t.isShared() && t.elem == Scalar::I32; }

// One slot of a shared buffer (what shared_slot gives).
void slotOperand(const Op& op, unsigned i) {
  const Type& t = op.operand(i)->type;
  require(t.isShared() && t.slots == 1, op, [&] {
    return "operand #" + std::to_string(i) + " must be one slot of a shared buffer (shared_slot), got " + t.str();
  });
}

// A tile in registers with a layout, of the slot's shape and element type.
void tileOfSlot(const Op& op, const Type& tile, const Type& slot, const char* what) {
  require(tile.isTensor() && tile.layout, op,
          [&] { return std::string(what) + " must be a tile with a register layout, got " + tile.str(); });
  require(tile.elem == slot.elem && tile.shape == slot.shape, op,
          [&] { return std::string(what) + " " + tile.str() + " does not match the slot " + slot.str(); });
}

// An mbarrier: one slot of a shared buffer of one i64.
void mbarrierOperand(const Op& op) {
  const Type& t = op.operand(0)->type;
  require(t.isShared() && t.slots == 1 && t.elem == Scalar::I64 && t.shape == std::vector<int64_t>{1}, op, [&] {
    return "operand #0 must be an mbarrier, one slot of shared<1xi64>, got " + t.str();
  });
}

void inRange(const Op& op, const char* attr, int64_t lo, int64_t hi) {
  int64_t v = op.intAttr(attr);
  require(v >= lo && v <= hi, op, [&] {
    return std::string(attr) + " must be from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " +
           std::to_string(v);
  });
}

// `part` is the part of `whole` (a slot or a tile) from slice_offset along slice_dim (local_load's
// attribute names; extract_slice's are dim and offset): same element type and shape but along that dim,
// where it divides the whole and starts at a multiple of its size.
void slicedTile(const Op& op, const Type& whole, const Type& part) {
  const bool load = op.opcode == Opcode::LocalLoad;
  const int64_t dim = op.intAttr(load ? "slice_dim" : "dim"), offset = op.intAttr(load ? "slice_offset" : "offset");
  require(part.isTensor() && part.layout && part.elem == whole.elem && part.rank() == whole.rank(), op, [&] {
    return "the result must be a tile with a register layout of " + std::string(name(whole.elem)) + " and rank " +
           std::to_string(whole.rank()) + ", got " + part.str();
  });
  require(dim >= 0 && dim < whole.rank(), op,
          [&] { return "the slice dim must be from 0 to " + std::to_string(whole.rank() - 1); });
  for (int d = 0; d < whole.rank(); ++d) {
    const int64_t w = whole.shape[size_t(d)], p = part.shape[size_t(d)];
    const bool ok = d == dim ? p >= 1 && w % p == 0 && offset >= 0 && offset % p == 0 && offset + p <= w : p == w;
    require(ok, op, [&] {
      return "the result " + part.str() + " is not a part of " + whole.str() + " from " + std::to_string(offset) +
             " along dim " + std::to_string(dim);
    });
  }
}

void mma(const Op& op) {
  const Type &a = op.operand(0)->type, &b = op.operand(1)->type, &acc = op.operand(2)->type;
  for (unsigned i = 0; i < 2; ++i) {
    const Type& t = op.operand(i)->type;
    require((t.isTensor() && t.layout) || (t.isShared() && t.slots == 1), op, [&] {
      return "operand #" + std::to_string(i) + " must be a tile with a layout or one slot of a shared buffer, got " +
             t.str();
    });
  }
  require(acc.isTensor() && acc.layout, op,
          [&] { return "the accumulator must be a tile with a layout, got " + acc.str(); });
  bool ok = a.rank() == 2 && b.rank() == 2 && acc.rank() == 2 && a.shape[1] == b.shape[0] &&
            acc.shape[0] == a.shape[0] && acc.shape[1] == b.shape[1];
  require(ok, op, [&] { return "needs a[M,K], b[K,N], acc[M,N], got " + a.str() + ", " + b.str() + ", " + acc.str(); });
  require(a.elem == b.elem && !a.isPtr() && !acc.isPtr(), op,
          [&] { return std::string("needs a and b of one non-pointer element type"); });
  require(op.result(0)->type == acc, op,
          [&] { return "produces the accumulator type " + acc.str() + ", got " + op.result(0)->type.str(); });
  if (const AttrValue* p = op.findAttr("input_precision")) {
    const std::string* s = std::get_if<std::string>(p);
    require(s && (*s == "tf32" || *s == "tf32x3" || *s == "ieee" || *s == "bf16x3" || *s == "bf16x6"), op,
            [&] { return std::string("input_precision must be tf32, tf32x3, ieee, bf16x3 or bf16x6"); });
    require(!awaitsSplit(op), op, [&] {
      return std::string("an f32 mma must be tf32 or ieee (split_dots rewrites tf32x3, bf16x3 and bf16x6)");
    });
  }
  if (op.hasAttr("warps")) {
    const std::vector<int64_t>& w = op.listAttr("warps");
    require(w.size() == 2 && w[0] >= 1 && w[1] >= 1 && w[0] * w[1] <= 32, op,
            [&] { return std::string("warps must be [along M, along N], at most 32 in all"); });
  }
}

void warpPartition(const Op& op) {
  const std::vector<int64_t>& warps = op.listAttr("warps");
  require(warps.size() == op.regions.size(), op, [&] {
    return "needs one entry of warps per region: " + std::to_string(op.regions.size()) + " region(s), " +
           std::to_string(warps.size()) + " entries";
  });
  int64_t total = 0;
  for (int64_t w : warps) {
    require(w >= 1 && w <= 32, op, [&] { return "each partition has 1 to 32 warps, got " + std::to_string(w); });
    total += w;
  }
  require(total <= 32, op,
          [&] { return "the partitions have " + std::to_string(total) + " warps; a CTA has at most 32"; });
  if (const AttrValue* r = op.findAttr("registers")) {
    const auto& regs = std::get<std::vector<int64_t>>(*r);
    require(regs.size() == warps.size(), op, [&] { return std::string("needs one entry of registers per region"); });
    for (int64_t n : regs)  // setmaxnreg's range (PTX ISA): a multiple of 8 from 24 to 256
      require(n >= 24 && n <= 256 && n % 8 == 0, op, [&] {
        return "registers per thread must be a multiple of 8 from 24 to 256, got " + std::to_string(n);
      });
  }
  if (const AttrValue* l = op.findAttr("lead_warp")) {
    const auto& lead = std::get<std::vector<int64_t>>(*l);
    require(lead.size() == warps.size(), op, [&] { return std::string("needs one entry of lead_warp per region"); });
    for (int64_t v : lead)
      require(v == 0 || v == 1, op, [&] { return "lead_warp entries must be 0 or 1, got " + std::to_string(v); });
  }
  for (const auto& region : op.regions) {
    require(region->args.empty(), op, [&] { return std::string("partition regions take no arguments"); });
    const Op* t = region->terminator();
    require(t && t->opcode == Opcode::Yield && t->operands.empty(), op,
            [&] { return std::string("each partition region must end with 'yield' of no values"); });
  }
}

}  // namespace

void checkGpuTypeRule(const Op& op) {
  auto R = [&]() -> const Type& { return op.results.at(0)->type; };
  switch (op.opcode) {
    case Opcode::SharedAlloc:
      require(R().isShared(), op, [&] { return "produces a shared buffer, got " + R().str(); });
      if (op.hasAttr("offset")) {
        int64_t at = op.intAttr("offset");
        require(at >= 0 && at % 128 == 0, op,
                [&] { return "offset must be a multiple of 128 bytes, got " + std::to_string(at); });
      }
      if (op.hasAttr("align")) {
        int64_t a = op.intAttr("align");
        require(a >= 128 && a <= 4096 && (a & (a - 1)) == 0, op,
                [&] { return "align must be a power of two from 128 to 4096 bytes, got " + std::to_string(a); });
        if (op.hasAttr("offset"))
          require(op.intAttr("offset") % a == 0, op, [&] { return std::string("offset is not a multiple of align"); });
      }
      return;
    case Opcode::SharedSlot:
      require(op.operand(0)->type.isShared(), op,
              [&] { return "operand #0 must be a shared buffer, got " + op.operand(0)->type.str(); });
      require(isI32(op.operand(1)->type), op,
              [&] { return "the slot index must be an i32 scalar, got " + op.operand(1)->type.str(); });
      require(R() == op.operand(0)->type.withSlots(1), op,
              [&] { return "produces one slot " + op.operand(0)->type.withSlots(1).str() + ", got " + R().str(); });
      return;
    case Opcode::SharedPermute: {
      slotOperand(op, 0);
      const Type& t = op.operand(0)->type;
      const std::vector<int64_t>& order = op.listAttr("order");
      require(isPermutation(order, t.rank()), op, [&] { return "order is not a permutation of the dims of " + t.str(); });
      const Type want = t.permuted(order);
      require(R() == want, op, [&] { return "of " + t.str() + " produces " + want.str() + ", got " + R().str(); });
      return;
    }
    case Opcode::LocalStore:
      slotOperand(op, 0);
      tileOfSlot(op, op.operand(1)->type, op.operand(0)->type, "the stored value");
      return;
    case Opcode::LocalLoad:
      slotOperand(op, 0);
      if (op.hasAttr("slice_dim") || op.hasAttr("slice_offset")) return slicedTile(op, op.operand(0)->type, R());
      tileOfSlot(op, R(), op.operand(0)->type, "the result");
      return;
    case Opcode::ExtractSlice:
      require(op.operand(0)->type.isTensor() && op.operand(0)->type.layout, op, [&] {
        return "operand #0 must be a tile with a register layout, got " + op.operand(0)->type.str();
      });
      return slicedTile(op, op.operand(0)->type, R());
    case Opcode::AsyncCopy: {
      slotOperand(op, 0);
      const Type &slot = op.operand(0)->type, &ptrs = op.operand(1)->type;
      require(ptrs.isTensor() && ptrs.layout && ptrs.isPtr() && ptrs.pointee == slot.elem && ptrs.shape == slot.shape,
              op, [&] {
                return "the pointers must be a tile of ptr<" + std::string(name(slot.elem)) +
                       "> of the slot's shape with a layout, got " + ptrs.str();
              });
      if (op.numOperands() > 2) {
        const Type& mask = op.operand(2)->type;
        require(mask == ptrs.withElem(Scalar::I1) || mask == Type::scalar(Scalar::I1), op, [&] {
          return "the mask must be " + ptrs.withElem(Scalar::I1).str() + " or i1, got " + mask.str();
        });
      }
      return;
    }
    case Opcode::AsyncCommit: case Opcode::FenceAsyncShared: return;
    case Opcode::AsyncWait: inRange(op, "pending", 0, 63); return;
    case Opcode::Barrier:
      if (op.hasAttr("id")) inRange(op, "id", 0, 15);
      if (op.hasAttr("threads")) {
        inRange(op, "threads", 32, 1024);
        require(op.intAttr("threads") % 32 == 0, op, [&] { return std::string("threads must be a multiple of 32"); });
      }
      return;
    case Opcode::MbarrierInit:
      mbarrierOperand(op);
      inRange(op, "count", 1, (1 << 20) - 1);
      return;
    case Opcode::MbarrierArrive: case Opcode::AsyncCopyArrive: mbarrierOperand(op); return;
    case Opcode::WarpgroupTurn: {
      const std::string& step = op.strAttr("step");
      require(step == "start" || step == "wait" || step == "pass" || step == "end", op,
              [&] { return "step must be \"start\", \"wait\", \"pass\" or \"end\", got \"" + step + "\""; });
      inRange(op, "barrier", 1, 14);  // it uses barrier and barrier + 1; 0 is the CTA's
      return;
    }
    case Opcode::MbarrierExpectTx:
      mbarrierOperand(op);
      inRange(op, "bytes", 0, (1 << 20) - 1);
      return;
    case Opcode::MbarrierWait:
      mbarrierOperand(op);
      require(isI32(op.operand(1)->type), op,
              [&] { return "the phase must be an i32 scalar, got " + op.operand(1)->type.str(); });
      return;
    case Opcode::Mma: return mma(op);
    case Opcode::MmaWait:
      require(op.numResults() == op.numOperands(), op,
              [&] { return std::string("passes its operands through: one result per operand"); });
      for (unsigned i = 0; i < op.numOperands(); ++i)
        require(op.result(i)->type == op.operand(i)->type, op, [&] {
          return "result #" + std::to_string(i) + " must have its operand's type " + op.operand(i)->type.str();
        });
      inRange(op, "pending", 0, 63);
      return;
    case Opcode::WarpPartition: return warpPartition(op);
    default: break;
  }
  verifyFail(op, "is not a GPU schedule op");
}

}  // namespace kiln::ir
