# Atomics where many programs meet on one address: a histogram (atomic_add of 1 per key), tickets handed
# out by one counter (the old values of a scalar atomic_add), a split sum and maximum of a vector
# (atomic_add and atomic_max of each block's partial result), and a spin lock (atomic_cas to take it,
# atomic_xchg to release it) guarding a read-modify-write of a whole block.
import torch

import triton
import triton.language as tl


@triton.jit
def histogram_kernel(keys_ptr, bins_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    keys = tl.load(keys_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + keys, 1, mask=mask, sem="relaxed")


@triton.jit
def ticket_kernel(counter_ptr, tickets_ptr):
    # Each program takes the next ticket: the counter's value before its own increment.
    ticket = tl.atomic_add(counter_ptr, 1)
    tl.store(tickets_ptr + tl.program_id(0), ticket)


@triton.jit
def split_sum_max_kernel(x_ptr, sum_ptr, max_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(sum_ptr, tl.sum(x, axis=0))
    tl.atomic_max(max_ptr, tl.max(tl.where(mask, x, -float("inf")), axis=0))


@triton.jit
def locked_add_kernel(data_ptr, lock_ptr, BLOCK_SIZE: tl.constexpr):
    # One program at a time adds its id + 1 to every element: the lock serialises the load-add-store.
    offs = tl.arange(0, BLOCK_SIZE)
    while tl.atomic_cas(lock_ptr, 0, 1, sem="acquire") == 1:
        pass
    tl.store(data_ptr + offs, tl.load(data_ptr + offs, volatile=True) + tl.program_id(0) + 1)
    tl.debug_barrier()  # every thread's store before the release
    tl.atomic_xchg(lock_ptr, 0, sem="release")


if __name__ == "__main__":
    keys = torch.randint(0, 100, (100_000, ), device="cuda", dtype=torch.int32)
    bins = torch.zeros(100, device="cuda", dtype=torch.int32)
    histogram_kernel[(triton.cdiv(keys.numel(), 1024), )](keys, bins, keys.numel(), BLOCK_SIZE=1024)
    assert torch.equal(bins, torch.bincount(keys, minlength=100).to(torch.int32))
    counter = torch.zeros(1, device="cuda", dtype=torch.int32)
    tickets = torch.empty(5000, device="cuda", dtype=torch.int32)
    ticket_kernel[(5000, )](counter, tickets)
    assert torch.equal(tickets.sort().values.cpu(), torch.arange(5000, dtype=torch.int32))
    print("atomics: ok")
