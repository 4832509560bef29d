// allocate_shared: an offset for every shared buffer, from the buffers' live ranges. Ops are numbered
// in program order (an op before its regions' ops); a buffer lives from its shared_alloc to the end of
// the last op, in the alloc's own block, that uses it or holds a use in its regions (a use inside a loop
// keeps the buffer for the whole loop, a use in a branch for the whole `if`). Buffers are placed largest
// first, each at the lowest 128-byte boundary where it overlaps no placed buffer that is live at the
// same time.
#include <algorithm>
#include <unordered_map>

#include "schedule/schedule.h"
#include "support/diagnostic.h"

namespace kiln::schedule {

namespace {

struct Buffer {
  ir::Op* alloc = nullptr;
  int64_t bytes = 0;
  int64_t first = 0, last = 0;  // live range, in op numbers
  int64_t offset = -1;
};

class Liveness {
 public:
  explicit Liveness(ir::Function& fn) { number(fn.body); }

  // The buffers of the function with their live ranges.
  std::vector<Buffer> buffers() {
    std::vector<Buffer> out;
    for (ir::Op* alloc : allocs_) {
      Buffer b{alloc, alloc->result(0)->type.slots * alloc->result(0)->type.slotStride(), pos_[alloc], pos_[alloc]};
      extend(b, alloc->result(0));
      out.push_back(b);
    }
    return out;
  }

 private:
  std::unordered_map<const ir::Op*, int64_t> pos_, end_;  // an op's number, and its regions' last one
  std::unordered_map<const ir::Value*, std::vector<ir::Op*>> users_;
  std::vector<ir::Op*> allocs_;
  int64_t next_ = 0;

  void number(ir::Block& b) {
    for (auto& op : b.ops) {
      pos_[op.get()] = next_++;
      if (op->opcode == ir::Opcode::SharedAlloc) allocs_.push_back(op.get());
      for (ir::Value* v : op->operands) users_[v].push_back(op.get());
      for (auto& r : op->regions) number(*r);
      end_[op.get()] = next_ - 1;
    }
  }

  // Extends b's range over every use of v (and of the slots taken from it).
  void extend(Buffer& b, const ir::Value* v) {
    for (ir::Op* user : users_[v]) {
      const ir::Op* top = user;  // the user's ancestor in the alloc's block
      while (top->parent != b.alloc->parent) {
        top = top->parentOp();
        if (!top) throw InternalError(user->loc, "allocate_shared: a buffer is used outside the region of its shared_alloc");
      }
      b.last = std::max(b.last, end_[top]);
      for (const auto& r : user->results)  // slots of it, or the buffer carried out of a loop or branch
        if (r->type.isShared()) extend(b, r.get());
    }
  }
};

}  // namespace

void allocateShared(ir::Function& fn, const GpuContext& ctx) {
  std::vector<Buffer> buffers = Liveness(fn).buffers();
  std::vector<Buffer*> order;
  for (Buffer& b : buffers) order.push_back(&b);
  std::stable_sort(order.begin(), order.end(), [](const Buffer* x, const Buffer* y) { return x->bytes > y->bytes; });
  int64_t total = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    Buffer& b = *order[i];
    // Candidate places: 0 and the (aligned) end of every placed buffer live at the same time.
    std::vector<int64_t> candidates{0};
    for (size_t j = 0; j < i; ++j) {
      const Buffer& o = *order[j];
      if (o.first <= b.last && b.first <= o.last) candidates.push_back((o.offset + o.bytes + 127) / 128 * 128);
    }
    std::sort(candidates.begin(), candidates.end());
    for (int64_t at : candidates) {
      bool free = true;
      for (size_t j = 0; j < i && free; ++j) {
        const Buffer& o = *order[j];
        free = !(o.first <= b.last && b.first <= o.last && o.offset < at + b.bytes && at < o.offset + o.bytes);
      }
      if (free) {
        b.offset = at;
        break;
      }
    }
    total = std::max(total, b.offset + b.bytes);
    b.alloc->setAttr("offset", b.offset);
  }
  const int64_t limit = maxSharedPerBlock(ctx.target);
  if (total > limit)
    throw CompileError(order.front()->alloc->loc, "shared memory: the buffers need " + std::to_string(total) +
                                                      " bytes at once; " + ctx.target.name() + " allows " +
                                                      std::to_string(limit) + " per block");
}

}  // namespace kiln::schedule
