// The live ranges of shared buffers (buffer_liveness.h).
#include "schedule/buffer_liveness.h"

#include <algorithm>
#include <unordered_map>

#include "support/diagnostic.h"

namespace kiln::schedule {

namespace {

class Liveness {
 public:
  explicit Liveness(const ir::Function& fn) { number(fn.body); }

  std::vector<BufferLiveRange> ranges() {
    std::vector<BufferLiveRange> out;
    for (const ir::Op* alloc : allocs_) {
      const ir::Type& t = alloc->result(0)->type;
      BufferLiveRange b{alloc, t.slots * t.slotStride(), pos_[alloc], pos_[alloc], alloc};
      extend(b, alloc->result(0));
      out.push_back(b);
    }
    return out;
  }

 private:
  std::unordered_map<const ir::Op*, int64_t> pos_, end_;  // an op's number, and its regions' last one
  std::unordered_map<const ir::Value*, std::vector<const ir::Op*>> users_;
  std::vector<const ir::Op*> allocs_;
  int64_t next_ = 0;

  void number(const ir::Block& b) {
    for (const auto& op : b.ops) {
      pos_[op.get()] = next_++;
      if (op->opcode == ir::Opcode::SharedAlloc) allocs_.push_back(op.get());
      for (const ir::Value* v : op->operands) users_[v].push_back(op.get());
      for (const auto& r : op->regions) number(*r);
      end_[op.get()] = next_ - 1;
    }
  }

  // Extends b's range over every use of v (and of the slots taken from it).
  void extend(BufferLiveRange& b, const ir::Value* v) {
    for (const ir::Op* user : users_[v]) {
      const ir::Op* top = user;  // the user's ancestor in the alloc's block
      while (top->parent != b.alloc->parent) {
        top = top->parentOp();
        if (!top) throw InternalError(user->loc, "a shared buffer is used outside the region of its shared_alloc");
      }
      if (end_[top] > b.last) {
        b.last = end_[top];
        b.lastUser = top;
      }
      for (const auto& r : user->results)
        if (r->type.isShared()) extend(b, r.get());
    }
  }
};

}  // namespace

std::vector<BufferLiveRange> bufferLiveRanges(const ir::Function& fn) { return Liveness(fn).ranges(); }

}  // namespace kiln::schedule
