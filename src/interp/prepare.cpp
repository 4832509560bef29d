// The interpreter's machine before it runs: numbers the function's values, decodes each op's attributes
// once (one switch over ops.def; GPU IR ops and inline PTX refused here), checks and binds the arguments.
#include <algorithm>

#include "interp/machine.h"
#include "interp/overflow_oracle.h"
#include "ir/dot_precision.h"
#include "support/diagnostic.h"

namespace kiln::interp {

using ir::Opcode;
using ir::Scalar;

namespace {
constexpr int kMaxNesting = 512;  // regions nest as deep as the kernel's source; bound the recursion
}

Machine::Machine(const ir::Function& fn, GridDims grid, std::span<const ArgValue> args, OverflowCheck overflow)
    : fn_(fn), grid_{grid.x, grid.y, grid.z} {
  prepare(fn.body, top_, 0);
  slots_.resize(types_.size());
  bindArgs(args);
  if (overflow != OverflowCheck::Off) overflow_ = std::make_unique<OverflowOracle>(*this, overflow, fn, top_, ids_);
  ids_.clear();
}

Machine::~Machine() = default;

uint32_t Machine::newSlot(const ir::Type& t) {
  types_.push_back(&t);
  return uint32_t(types_.size() - 1);
}

uint32_t Machine::newValue(const ir::Value* v) { return ids_[v] = newSlot(v->type); }

uint32_t Machine::idOf(const ir::Op& op, const ir::Value* v) const {
  auto it = ids_.find(v);
  if (it == ids_.end())
    throw InternalError(op.loc, std::string("operand of '") + op.name() + "' is not defined before its use");
  return it->second;
}

void Machine::prepare(const ir::Block& b, Region& r, int depth) {
  if (depth > kMaxNesting)
    throw CompileError(fn_.loc, "kernel '" + fn_.name + "': control flow nested too deeply");
  for (const auto& a : b.args) r.args.push_back(newValue(a.get()));
  r.insts.reserve(b.ops.size());
  for (const auto& opPtr : b.ops) {
    const ir::Op& op = *opPtr;
    Inst& in = r.insts.emplace_back();
    in.op = &op;
    for (const ir::Value* v : op.operands) in.in.push_back(idOf(op, v));
    in.regions.resize(op.regions.size());
    for (size_t k = 0; k < op.regions.size(); ++k) prepare(*op.regions[k], in.regions[k], depth + 1);
    for (const auto& v : op.results) in.out.push_back(newValue(v.get()));
    const ir::Type* t0 = op.results.empty() ? nullptr : &op.results[0]->type;
    switch (op.opcode) {
      case Opcode::Constant: {
        const ir::AttrValue* v = op.findAttr("value");
        if (!v || !t0) throw InternalError(op.loc, "constant without a value");
        if (const int64_t* i = std::get_if<int64_t>(v))
          in.imm = t0->isFloat() ? ir::convert(Scalar::I64, t0->elem, ir::intElem(*i))
                                 : ir::normalize(t0->elem, ir::intElem(*i));
        else if (const double* d = std::get_if<double>(v))
          in.imm = ir::convert(Scalar::F64, t0->elem, ir::floatElem(*d));
        else
          throw InternalError(op.loc, "constant value is neither an integer nor a float");
        break;
      }
      case Opcode::ProgramId: case Opcode::NumPrograms:
        in.a = op.intAttr("axis");
        if (in.a < 0 || in.a > 2) throw InternalError(op.loc, "program axis must be 0, 1 or 2");
        break;
      case Opcode::Arange: in.a = op.intAttr("start"); in.b = op.intAttr("end"); break;
      case Opcode::Permute: in.list = op.listAttr("order"); break;
      case Opcode::Gather: in.a = op.intAttr("axis"); break;
      case Opcode::Cast: {
        ir::RoundMode m;
        if (!ir::roundModeFromName(op.strAttrOr("rounding", "rtne"), m))
          throw InternalError(op.loc, "cast has an unknown rounding '" + op.strAttr("rounding") + "'");
        in.a = int64_t(m);
        break;
      }
      case Opcode::Reduce: {
        static constexpr const char* kKinds[] = {"sum", "max", "min", "argmax", "argmin"};
        const std::string& k = op.strAttr("kind");
        auto it = std::find_if(std::begin(kKinds), std::end(kKinds), [&](const char* s) { return k == s; });
        if (it == std::end(kKinds)) throw InternalError(op.loc, "unknown reduction kind '" + k + "'");
        in.a = it - std::begin(kKinds);
        in.b = op.intAttr("axis");
        break;
      }
      case Opcode::Sort:
        in.a = op.intAttrOr("descending", 0);
        in.b = op.intAttr("axis");
        break;
      case Opcode::ReduceCombine: case Opcode::Scan:
        in.a = op.intAttrOr("reverse", 0);
        in.b = op.intAttr("axis");
        if (in.regions.size() != 1 || in.regions[0].args.size() != 2 * op.operands.size() ||
            in.out.size() != op.operands.size())
          throw InternalError(op.loc, std::string("malformed '") + op.name() + "'");
        break;
      case Opcode::AtomicRmw: {
        const std::string& k = op.strAttr("kind");
        auto it = std::find_if(std::begin(kAtomicKinds), std::end(kAtomicKinds), [&](const char* s) { return k == s; });
        if (it == std::end(kAtomicKinds)) throw InternalError(op.loc, "unknown atomic kind '" + k + "'");
        in.a = it - std::begin(kAtomicKinds);
        break;
      }
      case Opcode::Dot: {
        std::string p = op.strAttrOr("input_precision", "tf32");
        in.a = p == "tf32";
        if (p != "tf32" && p != "tf32x3" && p != "ieee" && p != "bf16x3" && p != "bf16x6")
          throw InternalError(op.loc, "unknown dot input_precision '" + p + "'");
        // The split precisions mean the dots split_dots rewrites them into, before anything runs.
        if (ir::awaitsSplit(op))
          throw InternalError(op.loc, "an f32 dot with input_precision '" + p + "' reached the interpreter "
                                      "(split_dots rewrites it)");
        break;
      }
      case Opcode::For:
        for (size_t k = 3; k < op.operands.size(); ++k) in.scratch.push_back(newSlot(op.operands[k]->type));
        break;
      case Opcode::While:
        for (const ir::Value* v : op.operands) in.scratch.push_back(newSlot(v->type));
        break;
      case Opcode::Add: case Opcode::Sub: case Opcode::Mul: case Opcode::Div: case Opcode::Rem:
      case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Shl: case Opcode::Shr:
      case Opcode::Min: case Opcode::Max: case Opcode::UMulHi: case Opcode::Neg: case Opcode::Not:
      case Opcode::Abs: case Opcode::Cmp: case Opcode::Clz: case Opcode::Popc: case Opcode::Brev:
      case Opcode::MulHi: case Opcode::BytePerm:
      KILN_MATH_OPCODE_CASES:
      case Opcode::Select: {
        if (op.operands.empty())
          throw InternalError(op.loc, std::string("'") + op.name() + "' without operands");
        const ir::Value* typed = op.opcode == Opcode::Select ? op.operands.at(1) : op.operands[0];
        ir::decodeElementwise(op, typed->type.elem, in.ew);
        break;
      }
      case Opcode::Splat: case Opcode::Broadcast: case Opcode::ExpandDims: case Opcode::Reshape:
      case Opcode::Bitcast: case Opcode::PtrAdd: case Opcode::Load: case Opcode::Store:
      case Opcode::MultipleOf: case Opcode::MaxContiguous: case Opcode::ConvertLayout: case Opcode::If:
      case Opcode::Yield:
      case Opcode::Condition: case Opcode::Return: case Opcode::Assert: case Opcode::AtomicCas:
      case Opcode::DebugBarrier: case Opcode::Histogram: case Opcode::Print:
        break;
      case Opcode::InlineAsm:
        // Refused before any program runs: the interpreter defines every op's meaning, and PTX text has
        // none it can compute. A user error at the call, not a crash.
        throw CompileError(op.loc, "kernel '" + fn_.name +
                                       "': inline PTX (tl.inline_asm_elementwise) cannot run on the interpreter; "
                                       "run the kernel on a GPU");
      case Opcode::SharedAlloc: case Opcode::SharedSlot: case Opcode::SharedPermute: case Opcode::LocalStore: case Opcode::LocalLoad: case Opcode::ExtractSlice:
      case Opcode::AsyncCopy: case Opcode::AsyncCommit: case Opcode::AsyncWait: case Opcode::Barrier: case Opcode::FenceAsyncShared:
      case Opcode::MbarrierInit: case Opcode::MbarrierArrive: case Opcode::MbarrierExpectTx: case Opcode::AsyncCopyArrive: case Opcode::WarpgroupTurn:
      case Opcode::MbarrierWait: case Opcode::Mma: case Opcode::MmaWait: case Opcode::WarpPartition:
      case Opcode::TensorMap: case Opcode::TmaLoad: case Opcode::TmaStore: case Opcode::TmaStoreWait:
        // The schedule exists only below layout assignment; the interpreter runs the Tile IR before it.
        throw InternalError(op.loc, std::string("'") + op.name() + "' is a GPU IR op; the interpreter runs Tile IR");
    }
  }
}

void Machine::bindArgs(std::span<const ArgValue> args) {
  const ir::Block& body = fn_.body;
  std::string kernel = "kernel '" + fn_.name + "': ";
  if (args.size() != body.numArgs())
    throw CompileError(fn_.loc, kernel + "expected " + std::to_string(body.numArgs()) + " arguments, got " +
                                    std::to_string(args.size()));
  for (unsigned i = 0; i < body.numArgs(); ++i) {
    const ir::Value& p = *body.arg(i);
    const ArgValue& a = args[i];
    std::string what =
        kernel + "argument " + std::to_string(i) + " ('" + p.name + "', " + p.type.str() + ") ";
    std::vector<Elem>& slot = slots_[top_.args[i]];
    slot.assign(1, ir::intElem(0));
    if (p.type.isTensor())
      throw CompileError(fn_.loc, what + "is a tensor; kernel parameters must be scalars");
    if (p.type.isPtr()) {
      if (a.kind != ArgValue::Kind::Buffer)
        throw CompileError(fn_.loc, what + "expects a buffer, got a scalar");
      uint64_t begin = uint64_t(reinterpret_cast<uintptr_t>(a.data));
      if (!a.data && a.bytes) throw CompileError(fn_.loc, what + "is a null buffer of nonzero size");
      if (a.bytes > UINT64_MAX - begin)
        throw CompileError(fn_.loc, what + "is a buffer that wraps the address space");
      buffers_.push_back(Buffer{begin, begin + a.bytes, p.name});
      slot[0].u = begin;
      continue;
    }
    if (a.kind == ArgValue::Kind::Buffer)
      throw CompileError(fn_.loc, what + "expects a scalar, got a buffer");
    if (p.type.isInt() && a.kind == ArgValue::Kind::Float)
      throw CompileError(fn_.loc, what + "expects an integer, got a float");
    slot[0] = a.kind == ArgValue::Kind::Int ? ir::convert(Scalar::I64, p.type.elem, ir::intElem(a.i))
                                            : ir::normalize(p.type.elem, ir::floatElem(a.f));
  }
}

}  // namespace kiln::interp
