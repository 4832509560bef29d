// Tile IR core: Value, Op, Block, Function, Module and the Builder that creates ops.
// Ownership is a strict tree: Module > Function > Block > Op > (results, regions). Operands are
// non-owning pointers to Values defined earlier (dominance follows textual order because control
// flow is structured). There are no use lists: passes rewrite operands through a value map while
// walking forward (see replaceAllUses).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ir/types.h"
#include "support/source.h"

namespace kiln::ir {

enum class Opcode : uint16_t {
#define OP(Name, spelling, minOps, maxOps, nres, nreg, family, effect, stage, attrs) Name,
#include "ir/ops.def"
#undef OP
};

// The family column of ops.def: ops handled alike.
enum class Family : uint8_t {
  Constant,    // constant
  Index,       // program_id, num_programs, arange
  Shape,       // splat, broadcast, expand_dims, reshape, permute: the same elements in another shape
  Cast,        // cast, bitcast
  Arith,       // add .. abs: any numeric type
  Bitwise,     // and .. umulhi: integers (and i1)
  Math,        // fma, exp .. ceil: floats
  Compare,     // cmp, select
  Pointer,     // ptr_add
  Memory,      // load, store, atomic_rmw, atomic_cas (global memory)
  Reduce,      // reduce, reduce_combine, scan: along one axis
  Dot,         // dot
  Exchange,    // gather, histogram: elements move across the tile (shared memory on the GPU)
  Hint,        // multiple_of, max_contiguous: identity on values, facts for the axis analysis
  Control,     // for, if, while
  Terminator,  // yield, condition, return
  Assert,      // assert, print: the kernel's checks and debugging output
  Asm,         // inline_asm: PTX written by the user, element-wise
  Layout,      // convert_layout
  // GPU IR only: the schedule (docs/gpu-ir.md)
  Shared,      // shared_alloc, shared_slot, local_store, local_load
  Async,       // async_copy, async_commit, async_wait
  Sync,        // barrier, mbarrier_*; and debug_barrier, the one Tile IR op of the family
  Mma,         // mma, mma_wait
  Partition,   // warp_partition
};

// The effect column of ops.def (passes/effects.h refines it per op).
enum class Effect : uint8_t {
  Pure,        // result depends only on the operands: may be removed, merged and moved
  Read,        // reads memory (non-volatile load): may be removed when unused, never merged or moved
  Write,       // store, assert, volatile load: always stays where it is
  Control,     // for, if, while: what may happen to them depends on their regions
  Terminator,  // yield, condition, return
};

// The stage column of ops.def: Tile ops are legal in Tile IR and GPU IR, Gpu ops in GPU IR only.
enum class Stage : uint8_t { Tile, Gpu };

// Static facts about an opcode, from ops.def.
struct OpInfo {
  const char* spelling;
  int minOperands, maxOperands;  // maxOperands == -1: unbounded
  int numResults;                // -1: variadic
  int numRegions;                // -1: one or more
  Family family;
  Effect effect;
  Stage stage;
  const char* attrs;             // documentation of named attributes ("name?" optional)
};
const OpInfo& info(Opcode op);
int numOpcodes();
inline Family familyOf(Opcode op) { return info(op).family; }

// The case labels of every opcode of ops.def's Math family (element-wise functions of their operands),
// for the switches that treat them alike: `KILN_MATH_OPCODE_CASES: return elementwise(in);`.
// tests/unit/ir/op_groups_test.cpp checks the list against ops.def.
#define KILN_MATH_OPCODE_CASES \
  case ::kiln::ir::Opcode::Fma: case ::kiln::ir::Opcode::Exp: case ::kiln::ir::Opcode::Exp2: \
  case ::kiln::ir::Opcode::Log: case ::kiln::ir::Opcode::Log2: case ::kiln::ir::Opcode::Sqrt: \
  case ::kiln::ir::Opcode::Rsqrt: case ::kiln::ir::Opcode::Sin: case ::kiln::ir::Opcode::Cos: \
  case ::kiln::ir::Opcode::Tanh: case ::kiln::ir::Opcode::Erf: case ::kiln::ir::Opcode::Floor: \
  case ::kiln::ir::Opcode::Ceil: case ::kiln::ir::Opcode::Trunc: case ::kiln::ir::Opcode::Rint: \
  case ::kiln::ir::Opcode::RoundTf32: case ::kiln::ir::Opcode::Expm1: case ::kiln::ir::Opcode::Log1p: \
  case ::kiln::ir::Opcode::Log10: case ::kiln::ir::Opcode::Exp10: case ::kiln::ir::Opcode::Tan: \
  case ::kiln::ir::Opcode::Asin: case ::kiln::ir::Opcode::Acos: case ::kiln::ir::Opcode::Atan: \
  case ::kiln::ir::Opcode::Sinh: case ::kiln::ir::Opcode::Cosh: case ::kiln::ir::Opcode::Asinh: \
  case ::kiln::ir::Opcode::Acosh: case ::kiln::ir::Opcode::Atanh: case ::kiln::ir::Opcode::Cbrt: \
  case ::kiln::ir::Opcode::Atan2: case ::kiln::ir::Opcode::Hypot: case ::kiln::ir::Opcode::Pow: \
  case ::kiln::ir::Opcode::BesselJ0: case ::kiln::ir::Opcode::BesselJ1: case ::kiln::ir::Opcode::BesselY0: \
  case ::kiln::ir::Opcode::BesselY1: case ::kiln::ir::Opcode::BesselI0: case ::kiln::ir::Opcode::BesselI1: \
  case ::kiln::ir::Opcode::Erfc: case ::kiln::ir::Opcode::Normcdf: case ::kiln::ir::Opcode::Erfinv: \
  case ::kiln::ir::Opcode::Erfcinv: case ::kiln::ir::Opcode::Normcdfinv: case ::kiln::ir::Opcode::Rounded
// Arithmetic, bitwise, math, cmp and select: operands and result of one shape, computed element by
// element (ir/scalar_eval.h defines each; constant folding and instruction selection use it).
bool isElementwise(Opcode op);
// What may stand in the combine region of reduce_combine / scan: scalar element-wise work (constants,
// casts, arithmetic, bitwise, math, cmp, select), program indices, assert, and the closing yield.
bool allowedInCombineRegion(Opcode op);
// Opcode for a spelling ("add" -> Opcode::Add); false when unknown.
bool opcodeFromName(std::string_view spelling, Opcode& out);

// A named attribute value: an integer (also bools, enums stored as ints, and int constants in
// two's complement), a float, a string, or a list of integers.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;
struct Attr {
  std::string name;
  AttrValue value;
  bool operator==(const Attr& o) const { return name == o.name && value == o.value; }
};

class Op;
class Block;
class Function;

class Value {
 public:
  Type type;
  Op* def = nullptr;       // the op that defines it; null for a block argument
  Block* owner = nullptr;  // for block arguments: the block
  unsigned index = 0;      // result number, or argument number
  std::string name;        // optional readable name (kernel parameters); printer may use it

  bool isBlockArg() const { return def == nullptr; }
};

class Op {
 public:
  Op(Opcode opcode, SourceLoc loc) : opcode(opcode), loc(std::move(loc)) {}
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;

  Opcode opcode;
  SourceLoc loc;
  std::vector<Value*> operands;
  std::vector<std::unique_ptr<Value>> results;
  std::vector<std::unique_ptr<Block>> regions;
  std::vector<Attr> attrs;
  Block* parent = nullptr;

  const OpInfo& info() const { return ir::info(opcode); }
  const char* name() const { return info().spelling; }
  Value* result(unsigned i = 0) const { return results.at(i).get(); }
  Value* operand(unsigned i) const { return operands.at(i); }
  unsigned numOperands() const { return unsigned(operands.size()); }
  unsigned numResults() const { return unsigned(results.size()); }
  Block& region(unsigned i) const { return *regions.at(i); }

  // Attributes. The getters throw InternalError when the attribute is missing or of another kind.
  bool hasAttr(std::string_view n) const;
  const AttrValue* findAttr(std::string_view n) const;
  int64_t intAttr(std::string_view n) const;
  double floatAttr(std::string_view n) const;
  const std::string& strAttr(std::string_view n) const;
  const std::vector<int64_t>& listAttr(std::string_view n) const;
  int64_t intAttrOr(std::string_view n, int64_t dflt) const;
  std::string strAttrOr(std::string_view n, std::string dflt) const;
  void setAttr(std::string n, AttrValue v);  // replaces an existing one of that name

  Value* addResult(Type t);
  Block& addRegion();
  Op* parentOp() const;  // the op whose region holds this op; null at function level
};

class Block {
 public:
  std::vector<std::unique_ptr<Value>> args;
  std::vector<std::unique_ptr<Op>> ops;
  Op* parentOp = nullptr;          // null for a function body
  Function* parentFunc = nullptr;  // set for a function body only

  Value* addArg(Type t, std::string name = "");
  Value* arg(unsigned i) const { return args.at(i).get(); }
  unsigned numArgs() const { return unsigned(args.size()); }

  Op* append(std::unique_ptr<Op> op);
  Op* insert(size_t index, std::unique_ptr<Op> op);
  std::unique_ptr<Op> remove(Op* op);  // detaches and returns ownership
  size_t indexOf(const Op* op) const;  // throws InternalError when op is not in this block
  Op* terminator() const { return ops.empty() ? nullptr : ops.back().get(); }
  Function* function() const;  // the function whose body holds this block, at any depth; null when detached
};

class Function {
 public:
  std::string name;
  SourceLoc loc;
  Block body;  // body.args are the kernel parameters, in order; ends with `return`

  Function() { body.parentFunc = this; }
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;
};

class Module {
 public:
  std::vector<std::unique_ptr<Function>> functions;
  Function* lookup(std::string_view name) const;
  Function& addFunction(std::string name, SourceLoc loc = {});
};

// Creates ops at an insertion point (a block and an index in it).
class Builder {
 public:
  Builder() = default;
  explicit Builder(Block& b) : block_(&b), pos_(b.ops.size()) {}
  Builder(Block& b, size_t pos) : block_(&b), pos_(pos) {}

  void setInsertionPointToEnd(Block& b) { block_ = &b; pos_ = b.ops.size(); }
  void setInsertionPoint(Block& b, size_t pos) { block_ = &b; pos_ = pos; }
  void setInsertionPointBefore(Op* op);
  void setInsertionPointAfter(Op* op);
  Block* block() const { return block_; }
  size_t position() const { return pos_; }

  // Creates an op with the given results and empty regions, and inserts it.
  Op* create(Opcode opcode, const std::vector<Value*>& operands, const std::vector<Type>& resultTypes,
             std::vector<Attr> attrs = {}, SourceLoc loc = {});
  // Same, returning the single result.
  Value* create1(Opcode opcode, const std::vector<Value*>& operands, const Type& resultType,
                 std::vector<Attr> attrs = {}, SourceLoc loc = {});

  // Conveniences for the common cases.
  Value* intConst(int64_t v, const Type& t, SourceLoc loc = {});
  Value* floatConst(double v, const Type& t, SourceLoc loc = {});

 private:
  Block* block_ = nullptr;
  size_t pos_ = 0;
};

// Pre-order walk over every op nested in a block (an op is visited before its regions).
// The callback must not insert or remove ops in the block being walked.
void walk(Block& b, const std::function<void(Op&)>& fn);
void walk(Function& f, const std::function<void(Op&)>& fn);

// Replaces every use of `from` by `to` in ops nested in `scope`.
void replaceAllUses(Block& scope, Value* from, Value* to);

// Deep copy of a function (values remapped), e.g. to keep an unoptimised copy for dumps.
std::unique_ptr<Function> clone(const Function& f);
// Appends copies of `src`'s arguments and ops to `dst`, operands looked up in `map` (a value not in
// it is used as it is: defined outside `src`); every copied value is added to `map`.
void cloneBlockInto(const Block& src, Block& dst, std::unordered_map<const Value*, Value*>& map);
// Appends a copy of `op` (its regions too) to `dst` at `pos` (the end when past it), the same way.
Op* cloneOpInto(const Op& op, Block& dst, size_t pos, std::unordered_map<const Value*, Value*>& map);

}  // namespace kiln::ir
