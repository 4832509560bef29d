# Control flow whose shape depends on the data or on compile-time constants: `while` loops with
# a data-dependent trip count (Collatz step counting, binary search over a sorted array read with
# scalar loads), a loop unrolled at compile time by tl.static_range (Horner's scheme), and control flow
# per element of a tile through tl.map_elementwise, with `break` (each element's Collatz count, capped).
import torch

import triton
import triton.language as tl


@triton.jit
def collatz_steps_kernel(start_ptr, steps_ptr, n):
    # One program per starting value; the loop runs as long as that value's orbit needs.
    pid = tl.program_id(0)
    if pid < n:
        x = tl.load(start_ptr + pid)
        steps = 0
        while x > 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            steps += 1
        tl.store(steps_ptr + pid, steps)


@triton.jit
def searchsorted_kernel(sorted_ptr, n_sorted, query_ptr, out_ptr):
    # Leftmost insertion point of one query: the first i with sorted[i] >= query.
    pid = tl.program_id(0)
    query = tl.load(query_ptr + pid)
    lo = 0
    hi = n_sorted
    while lo < hi:
        mid = (lo + hi) // 2
        value = tl.load(sorted_ptr + mid)
        if value < query:
            lo = mid + 1
        else:
            hi = mid
    tl.store(out_ptr + pid, lo)


@triton.jit
def polyval_kernel(x_ptr, coeff_ptr, out_ptr, n, DEGREE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # p(x) = c[0] + c[1] x + ... + c[DEGREE] x^DEGREE, evaluated from the highest coefficient down.
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for i in tl.static_range(DEGREE + 1):
        c = tl.load(coeff_ptr + (DEGREE - i))
        acc = acc * x + c
    tl.store(out_ptr + offsets, acc, mask=mask)


@triton.jit
def capped_collatz(n, cap):
    # Steps for n to reach 1, or -1 when it takes more than `cap` (or n < 1): a while loop and a break
    # on each element's own values.
    steps = 0
    if n < 1:
        steps = -1
    else:
        while n != 1:
            if steps == cap:
                steps = -1
                break
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
    return steps


@triton.jit
def capped_collatz_kernel(start_ptr, steps_ptr, n, cap, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    start = tl.load(start_ptr + offsets, mask=mask, other=1)
    tl.store(steps_ptr + offsets, tl.map_elementwise(capped_collatz, start, cap), mask=mask)


def collatz_steps(start: torch.Tensor) -> torch.Tensor:
    steps = torch.empty_like(start)
    collatz_steps_kernel[(start.numel(), )](start, steps, start.numel())
    return steps


def searchsorted(sorted_values: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
    out = torch.empty(queries.shape, dtype=torch.int32, device=queries.device)
    searchsorted_kernel[(queries.numel(), )](sorted_values, sorted_values.numel(), queries, out)
    return out


def polyval(x: torch.Tensor, coeffs: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK_SIZE"]), )
    polyval_kernel[grid](x, coeffs, out, x.numel(), DEGREE=coeffs.numel() - 1, BLOCK_SIZE=256)
    return out


if __name__ == "__main__":
    s = torch.arange(1, 28, dtype=torch.int32, device="cuda")
    print(collatz_steps(s))  # 27 takes 111 steps
    v = torch.sort(torch.randn(1000, device="cuda")).values
    q = torch.randn(100, device="cuda")
    assert torch.equal(searchsorted(v, q), torch.searchsorted(v, q).to(torch.int32))
