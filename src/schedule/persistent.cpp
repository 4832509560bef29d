// persistent: a kernel written one tile per program runs as a persistent kernel. Its body becomes the
// body of a loop over the programs of the launch's grid, which the launcher passes as three trailing
// parameters (the logical grid) while it launches only as many programs as the device holds at once:
//
//   before                                  after
//   func @k(%a, ...) {                      func @k(%a, ..., %grid_x, %grid_y, %grid_z) {
//     %p = program_id {axis = 0}              scalar code that reads no program id (hoisted)
//     body                                    %first = program_id {axis = 0}    (the launched program)
//     return                                  %n = num_programs {axis = 0}      (how many were launched)
//   }                                         %total = %grid_x * %grid_y * %grid_z
//                                             for %t = %first to %total step %n {
//                                               %p = %t % %grid_x   (axis 1: %t / %grid_x % %grid_y;
//                                               body                 axis 2: %t / (%grid_x * %grid_y))
//                                             }
//                                             return
//
// num_programs(axis) reads %grid_<axis>. Programs run in the launch's order (axis 0 fastest), each one's
// work done by one CTA after the previous program that CTA ran, so what the kernel computes is unchanged
// unless its programs wait for each other. The pass runs first in the schedule, so that the pipeline
// and warp_specialize see the tile loop around the kernel's own loops, as in a persistent kernel written
// by hand (tutorial 09): with warp specialization the producer loads the next tile while the consumers
// store this one.
//
// Applies when asked (CompileOptions::persistent) to every kernel but one that prints (its messages name
// the program by the CTA's index). Scalar code that reads no program id and has no effect stays before
// the loop; everything else, tiles included, runs per tile.
#include <set>

#include "schedule/schedule.h"

namespace kiln::schedule {

namespace {

using ir::Op;
using ir::Opcode;
using ir::Type;
using ir::Value;

Type i32() { return Type::scalar(ir::Scalar::I32); }

// Whether `op` sits in the kernel's body or in loops and branches of it (not in a combine region, which
// computes its own program indices).
bool underControlOnly(const Op& op) {
  for (const Op* p = op.parentOp(); p; p = p->parentOp())
    if (p->opcode != Opcode::For && p->opcode != Opcode::If && p->opcode != Opcode::While) return false;
  return true;
}

// The name of a new parameter: `want`, or with a numeric suffix when a parameter already has that name.
std::string freshParamName(const ir::Function& fn, const std::string& want) {
  auto taken = [&](const std::string& n) {
    for (const auto& a : fn.body.args)
      if (a->name == n) return true;
    return false;
  };
  std::string name = want;
  for (int k = 1; taken(name); ++k) name = want + "_" + std::to_string(k);
  return name;
}

// Whether top-level op `op` may stay before the tile loop: scalar, without effect or region, reading
// only parameters and other ops staying there, and no program id.
bool staysBefore(const Op& op, const std::set<const Op*>& before) {
  if (op.opcode == Opcode::ProgramId || op.opcode == Opcode::Return) return false;
  if (op.info().effect != ir::Effect::Pure || !op.regions.empty()) return false;
  for (const auto& r : op.results)
    if (r->type.isTensor()) return false;
  for (const Value* v : op.operands)
    if (!v->isBlockArg() && !before.count(v->def)) return false;
  return true;
}

}  // namespace

void makePersistent(ir::Function& fn, const GpuContext& ctx) {
  if (!ctx.persistent) return;
  ir::Block& top = fn.body;
  const SourceLoc loc = fn.loc;

  // The program ids and counts the body reads, found before anything moves; none of it for a kernel that
  // prints or reads a program id in a combine region.
  std::vector<Op*> ids, counts;
  bool refused = false;
  ir::walk(fn, [&](Op& op) {
    refused = refused || op.opcode == Opcode::Print;
    if (op.opcode != Opcode::ProgramId && op.opcode != Opcode::NumPrograms) return;
    (op.opcode == Opcode::ProgramId ? ids : counts).push_back(&op);
    refused = refused || !underControlOnly(op);
  });
  if (refused) return;
  Value* grid[3];
  for (int a = 0; a < 3; ++a) grid[a] = top.addArg(i32(), freshParamName(fn, std::string(kPersistentGridNames[a])));

  // Top-level ops: hoisted scalar code stays, the rest moves into the loop, in order.
  std::set<const Op*> before;
  std::vector<Op*> moving;
  for (const auto& op : top.ops) {
    if (op->opcode == Opcode::Return) break;
    if (staysBefore(*op, before)) before.insert(op.get());
    else moving.push_back(op.get());
  }
  size_t at = 0;  // after the last op staying before the loop
  for (size_t i = 0; i < top.ops.size(); ++i)
    if (before.count(top.ops[i].get())) at = i + 1;

  ir::Builder b(top, at);
  Value* first = b.create1(Opcode::ProgramId, {}, i32(), {ir::Attr{"axis", int64_t(0)}}, loc);
  Value* launched = b.create1(Opcode::NumPrograms, {}, i32(), {ir::Attr{"axis", int64_t(0)}}, loc);
  Value* plane = b.create1(Opcode::Mul, {grid[0], grid[1]}, i32(), {}, loc);
  Value* total = b.create1(Opcode::Mul, {plane, grid[2]}, i32(), {}, loc);
  // (`persistent`: its iterations are different programs, which the schedule may overlap: tma_versioning.h)
  Op* loop = b.create(Opcode::For, {first, total, launched}, {}, {ir::Attr{"persistent", int64_t(1)}}, loc);
  ir::Block& body = loop->region(0);
  Value* t = body.addArg(i32());
  for (Op* op : moving) {
    // A top-level loop asking for warp specialization now sits in the tile loop, which asks in its stead:
    // the producer then runs on across tiles (warp_specialize.cpp).
    if (op->opcode == Opcode::For && op->intAttrOr("warp_specialize", 0)) loop->setAttr("warp_specialize", int64_t(1));
    body.append(top.remove(op));
  }

  // The program's index along each axis, computed at the top of the body where it is read.
  bool wants[3] = {false, false, false};
  for (const Op* op : ids) wants[op->intAttr("axis")] = true;
  ir::Builder ib(body, 0);
  Value* pid[3] = {nullptr, nullptr, nullptr};
  if (wants[0]) pid[0] = ib.create1(Opcode::Rem, {t, grid[0]}, i32(), {}, loc);
  if (wants[1] || wants[2]) {
    Value* row = ib.create1(Opcode::Div, {t, grid[0]}, i32(), {}, loc);
    if (wants[1]) pid[1] = ib.create1(Opcode::Rem, {row, grid[1]}, i32(), {}, loc);
    if (wants[2]) pid[2] = ib.create1(Opcode::Div, {row, grid[1]}, i32(), {}, loc);
  }
  ir::Builder(body).create(Opcode::Yield, {}, {}, {}, loc);

  for (Op* op : ids) {
    ir::replaceAllUses(top, op->result(0), pid[op->intAttr("axis")]);
    op->parent->remove(op);
  }
  for (Op* op : counts) {
    ir::replaceAllUses(top, op->result(0), grid[op->intAttr("axis")]);
    op->parent->remove(op);
  }
}

}  // namespace kiln::schedule
