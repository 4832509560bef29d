// The int32-overflow oracle (docs/semantics.md, "Integer overflow checks"), a watcher the interpreter
// calls around ops when a run asks for it. Address mode: every value that feeds an address
// (address_cone.h) carries a shadow, the value it would hold had no i32/u32 op wrapped, and where the
// two differ, the wrap that made them differ; a load or store through an address that differs from its
// shadow stops the run at that wrap. All mode: any i32/u32 op whose result wraps stops the run there.
#pragma once
#include <unordered_map>
#include <vector>

#include "interp/exact_int.h"

namespace kiln::interp {

class OverflowOracle {
 public:
  // `ids`: the machine's value numbering (Value -> slot), `top`: its prepared function body.
  OverflowOracle(Machine& m, OverflowCheck mode, const ir::Function& fn, const Region& top,
                 const std::unordered_map<const ir::Value*, uint32_t>& ids);

  void beginProgram() { wraps_.clear(); }
  void before(const Inst& in);  // a load or store: its address checked before memory is touched
  void after(const Inst& in);   // the op's shadow (Address) or its result's wrap (All)
  // Slots the machine copied, swapped or set directly (control flow's carried values).
  void copied(uint32_t dst, uint32_t src);
  void swapped(uint32_t a, uint32_t b);
  void assigned(uint32_t id) { fromValue(id); }

 private:
  // A wrap: an op whose i32/u32 result differs from its exact result though its operands were exact.
  struct Wrap {
    const Inst* in = nullptr;
    int64_t element = 0;
    Wide operands[3] = {0, 0, 0};
    int numOperands = 0;
    ir::Scalar operandType = ir::Scalar::I32, resultType = ir::Scalar::I32;
    Wide exact = 0, wrapped = 0;
  };

  Machine& m_;
  OverflowCheck mode_;
  std::vector<uint8_t> inCone_;                // by slot: the value feeds an address (Address mode)
  std::vector<std::vector<Wide>> shadow_;      // by slot, per element: the value without i32/u32 wraps
  std::vector<std::vector<uint32_t>> origin_;  // per element: 0 where shadow == value, else 1 + wrap index
  std::vector<Wrap> wraps_;                    // this program's wraps

  Wide shadowAt(uint32_t id, size_t i) const;
  uint32_t originAt(uint32_t id, size_t i) const;
  void fromValue(uint32_t id);  // shadow = value, no origin
  void moveShadow(const Inst& in, uint32_t r);
  void computeShadow(const Inst& in, uint32_t r);
  void checkResult(const Inst& in);
  [[noreturn]] void reportAddress(uint32_t origin, const Inst& access, size_t element) const;
  std::string wrapText(const Wrap& w) const;
};

}  // namespace kiln::interp
