// TMA on sm_90 (PTX ISA "cp.async.bulk.tensor", "mbarrier", PTX-NOTES §10-11): the tensor-map kernel
// parameters, their generic addresses, the expect-tx arrival, the bulk tensor copy into shared memory
// that completes on an mbarrier, and the bulk tensor copy back to global memory with its bulk groups. Each helper emits the instructions named in its comment; each throws an
// InternalError below sm_90 (the lowering says so to the user first).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ptx/builder.h"

namespace kiln::ptx {

// `.param .align 128 .b8 <entry>_tmap<k>[128]`, after the parameters declared so far; returns its symbol.
std::string addTensorMapParam(Entry& e, int k);
// mov.u64 %rd, sym; cvta.param.u64 %rd', %rd;  the generic address of a tensor-map parameter, the form
// cp.async.bulk.tensor takes (the parameter symbol itself is a state-space mismatch).
Reg tensorMapAddress(Entry& e, const std::string& symbol);
// prefetch.param.tensormap [sym];  brings the map into the descriptor cache before its first copy.
void prefetchTensorMap(Entry& e, const std::string& symbol, Guard guard = {});
// mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes;  the phase also waits for `bytes` of
// transactions, then this thread arrives once.
void mbarrierArriveExpectTx(Entry& e, Reg bar, int64_t bytes, Guard guard = {});
// cp.async.bulk.tensor.<r>d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [smem], [map, {c...}], [bar];
// one box from the tensor map at generic address `map`, at element coordinates `coords` (.b32, innermost
// first as PTX orders them), into shared memory at `smem`; its bytes complete on `bar`.
void tensorLoad(Entry& e, Reg smem, Reg map, const std::vector<Reg>& coords, Reg bar, Guard guard = {});
// cp.async.bulk.tensor.<r>d.global.shared::cta.tile.bulk_group [map, {c...}], [smem];
// one box from shared memory at `smem` into the tensor of the map at generic address `map`, at element
// coordinates `coords` (innermost first); elements outside the tensor are not written. It joins this
// thread's open bulk async-group.
void tensorStore(Entry& e, Reg map, const std::vector<Reg>& coords, Reg smem, Guard guard = {});
// cp.async.bulk.commit_group;  closes this thread's bulk async-group of the copies issued since the last one.
void bulkCommitGroup(Entry& e, Guard guard = {});
// cp.async.bulk.wait_group.read N;  until at most N of this thread's bulk groups still read their source
// (shared memory may then be rewritten; their global writes may still be in flight).
void bulkWaitGroupRead(Entry& e, int64_t pending, Guard guard = {});

}  // namespace kiln::ptx
