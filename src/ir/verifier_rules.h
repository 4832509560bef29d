// Internal to the verifier: how a rule reports a failure, and the per-op type rules
// (verifier_types.cpp and the verifier_*.cpp of op families) that verifier.cpp calls after the
// structural checks of an op passed.
#pragma once
#include <string>
#include <vector>

#include "ir/ir.h"
#include "support/diagnostic.h"

namespace kiln::ir {

struct VerifyFailure {
  Diagnostic diag;
};
[[noreturn]] void verifyFail(const SourceLoc& loc, std::string msg);
[[noreturn]] void verifyFail(const Op& op, const std::string& msg);  // "'name' msg" at the op

// Fails at `op` unless `ok`; the message is built only when the check fails (types print their layouts,
// long and costly).
template <class Message>
void require(bool ok, const Op& op, Message&& message) {
  if (!ok) verifyFail(op, std::string(message()));
}

// Shared by the rule files: "(f32, i32)", the types of values (from index `from`) or of a block's
// arguments, and the check that `region` of `op` ends with `term` passing values of types `want` (after
// the condition of a `condition`); `what` names the region in messages ("the body").
std::string typeList(const std::vector<Type>& ts);
std::string shapeText(const std::vector<int64_t>& s);  // "[4, 8]"
// Whether `order` holds each of 0..rank-1 once (permute's and shared_permute's order).
bool isPermutation(const std::vector<int64_t>& order, int rank);
std::vector<Type> typesOf(const std::vector<Value*>& vs, size_t from = 0);
std::vector<Type> argTypes(const Block& b);
void terminatedBy(const Op& op, const Block& region, Opcode term, const std::vector<Type>& want, const char* what);

// The type rule of `op`, and where it may stand (`parent` holds it; `last`: it ends `parent`).
// Assumes operand, result and region counts match ops.def and operands are non-null.
void checkTypeRule(const Op& op, const Block& parent, bool last);
// The same for ptr_add, load and store, with a load's or store's TMA description (verifier_memory.cpp).
void checkMemoryTypeRule(const Op& op);
// The same for for, if and while, and the terminators yield, condition and return (verifier_control.cpp).
void checkControlTypeRule(const Op& op, const Block& parent, bool last);
// The same for the GPU schedule ops (verifier_gpu.cpp).
void checkGpuTypeRule(const Op& op);
// The same for reduce_combine and scan, their combine region included (verifier_combine.cpp).
void checkCombineTypeRule(const Op& op);
// The same for atomic_rmw and atomic_cas (verifier_atomic.cpp).
void checkAtomicTypeRule(const Op& op);
// The same for gather and histogram (verifier_exchange.cpp).
void checkExchangeTypeRule(const Op& op);
// The same for inline_asm and print (verifier_asm.cpp).
void checkAsmTypeRule(const Op& op);
// The same for tensor_map and tma_load (verifier_tma.cpp).
void checkTmaTypeRule(const Op& op, const Block& parent);

}  // namespace kiln::ir
