// TMA stores in the CTA simulator (ops_sim.h, beside the loads of ops_sim_tma.h), as PTX-NOTES §10 and the
// ISA's "cp.async.bulk.tensor" and "cp.async.bulk.wait_group" describe them:
// - cp.async.bulk.tensor.<r>d.global.shared::cta.tile.bulk_group [map, {c..}], [src] reads one box from
//   shared memory (swizzled on absolute address bits) and writes the elements inside the tensor; those
//   outside it (either side of any dim) are not written. It joins the issuing thread's open bulk group.
// - cp.async.bulk.commit_group closes that group; cp.async.bulk.wait_group.read N retires the thread's
//   groups beyond the N newest. The copy may read its source at any time until then: it reads it at
//   issue (a byte another thread wrote since the last barrier is a race), and again when it retires,
//   where a changed byte or another thread's write since the last barrier is a race too, and the read
//   counts for the barrier checks from there on. Its global writes happen when it retires.
// - A CTA that exits with a bulk group not waited for is an error (its shared memory may be gone).
#pragma once

namespace kiln::lower::test {

inline void CtaSim::execBulk(const Inst& in) {
  const std::string& what = in.parts.at(3);
  if (what == "commit_group") {
    for (int t = 0; t < n_; ++t)
      if (active(t, in)) {
        bulkGroups_[size_t(t)].push_back(std::move(openBulk_[size_t(t)]));
        openBulk_[size_t(t)].clear();
      }
    return;
  }
  if (what == "wait_group") {
    if (in.parts.size() != 5 || in.parts[4] != "read") fail("cp.async.bulk.wait_group without .read is not modelled");
    for (int t = 0; t < n_; ++t) {
      if (!active(t, in)) continue;
      const size_t keep = size_t(get(t, in.ops.at(0)));
      std::vector<std::vector<TensorStore>>& groups = bulkGroups_[size_t(t)];
      while (groups.size() > keep) {
        for (const TensorStore& s : groups.front()) retireTensorStore(s);
        groups.erase(groups.begin());
      }
    }
    return;
  }
  if (what == "tensor" && in.parts.size() > 5 && in.parts[5] == "global") return execTensorStore(in);
  execTensorCopy(in);
}

inline void CtaSim::retireTensorStore(const TensorStore& s) {
  for (const TensorStore::Byte& b : s.bytes) {
    if (shared_[b.shared] != b.value) fail("a TMA store's source changed before its cp.async.bulk.wait_group.read");
    sharedRead(s.issuer, b.shared);
    if (b.inside) *globalBytes(b.global, 1) = b.value;
  }
}

// cp.async.bulk.tensor.<r>d.global.shared::cta.tile.bulk_group [map, {c..}], [src]
inline void CtaSim::execTensorStore(const Inst& in) {
  const size_t rank = bulkTensorRank(in, {"global", "shared::cta", "tile", "bulk_group"}, "cp.async.bulk store");
  std::vector<BoxElement> elements;
  for (int t = 0; t < n_; ++t) {
    if (!active(t, in)) continue;
    const uint64_t src = address(t, in.ops.at(1));
    const TensorMap& map = tensorBox(t, in, 0, rank, src, elements);
    TensorStore store{t, {}};
    for (size_t e = 0; e < elements.size(); ++e)
      for (int b = 0; b < map.elemBytes; ++b) {
        const uint64_t p = boxSharedByte(map, src, e, b);
        if (p >= shared_.size()) fail("TMA store past the shared memory size");
        const uint8_t value = sharedRead(t, size_t(p));
        store.bytes.push_back({size_t(p), value, elements[e].inside, elements[e].global + uint64_t(b)});
      }
    openBulk_[size_t(t)].push_back(std::move(store));
  }
}

}  // namespace kiln::lower::test
