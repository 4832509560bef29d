// TMA instructions (ptx/tma.h).
#include "ptx/tma.h"

#include "support/diagnostic.h"

namespace kiln::ptx {

namespace {

void needSm90(const Entry& e, const char* what) {
  if (e.target().sm < 90) throw InternalError({}, std::string(what) + " needs sm_90");
}

}  // namespace

std::string addTensorMapParam(Entry& e, int k) {
  needSm90(e, "a tensor map");
  const int i = e.addByteArrayParam("tmap" + std::to_string(k), 128, 128);
  return e.params()[size_t(i)].symbol;
}

Reg tensorMapAddress(Entry& e, const std::string& symbol) {
  Reg param = e.reg(RegClass::B64), generic = e.reg(RegClass::B64);
  e.inst("mov.u64", {param, sym(symbol)});
  e.inst("cvta.param.u64", {generic, param});
  return generic;
}

void prefetchTensorMap(Entry& e, const std::string& symbol, Guard guard) {
  needSm90(e, "prefetch.param.tensormap");
  e.inst("prefetch.param.tensormap", {addr(symbol)}, guard);
}

void mbarrierArriveExpectTx(Entry& e, Reg bar, int64_t bytes, Guard guard) {
  needSm90(e, "mbarrier.arrive.expect_tx");
  if (bytes <= 0 || bytes >= (int64_t(1) << 20)) throw InternalError({}, "mbarrier tx-count out of range");
  e.inst("mbarrier.arrive.expect_tx.shared::cta.b64", {sym("_"), addr(bar), bytes}, guard);
}

void tensorLoad(Entry& e, Reg smem, Reg map, const std::vector<Reg>& coords, Reg bar, Guard guard) {
  needSm90(e, "cp.async.bulk.tensor");
  if (coords.empty() || coords.size() > 5) throw InternalError({}, "cp.async.bulk.tensor takes 1 to 5 coordinates");
  const std::string op = "cp.async.bulk.tensor." + std::to_string(coords.size()) +
                         "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes";
  e.inst(op, {addr(smem), Operand::raw("[" + map.str() + ", " + vec(coords).text + "]"), addr(bar)}, guard);
}

void tensorStore(Entry& e, Reg map, const std::vector<Reg>& coords, Reg smem, Guard guard) {
  needSm90(e, "cp.async.bulk.tensor");
  if (coords.empty() || coords.size() > 5) throw InternalError({}, "cp.async.bulk.tensor takes 1 to 5 coordinates");
  const std::string op = "cp.async.bulk.tensor." + std::to_string(coords.size()) + "d.global.shared::cta.tile.bulk_group";
  e.inst(op, {Operand::raw("[" + map.str() + ", " + vec(coords).text + "]"), addr(smem)}, guard);
}

void bulkCommitGroup(Entry& e, Guard guard) {
  needSm90(e, "cp.async.bulk.commit_group");
  e.inst("cp.async.bulk.commit_group", {}, guard);
}

void bulkWaitGroupRead(Entry& e, int64_t pending, Guard guard) {
  needSm90(e, "cp.async.bulk.wait_group");
  if (pending < 0) throw InternalError({}, "cp.async.bulk.wait_group takes a count of at least 0");
  e.inst("cp.async.bulk.wait_group.read", {pending}, guard);
}

}  // namespace kiln::ptx
