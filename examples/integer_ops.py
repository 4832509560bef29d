# Integer and bitwise arithmetic. Triton integer division and remainder follow C (the quotient
# is truncated toward zero and the remainder takes the sign of the dividend), not Python; shifts
# are arithmetic on signed and logical on unsigned types; unsigned arithmetic wraps modulo 2^32.
import torch

import triton
import triton.language as tl


@triton.jit
def hash_kernel(x_ptr, hash_ptr, xorshift_ptr, n, ROUNDS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0)  # uint32
    # A well-mixing 32-bit integer hash: xor-shift then multiply, twice.
    h = ((x >> 16) ^ x) * 0x45d9f3b
    h = ((h >> 16) ^ h) * 0x45d9f3b
    h = (h >> 16) ^ h
    tl.store(hash_ptr + offsets, h, mask=mask)
    # Marsaglia's xorshift32, ROUNDS times; a zero state stays zero, so start from x | 1.
    s = x | 1
    for _ in tl.static_range(ROUNDS):
        s ^= s << 13
        s ^= s >> 17
        s ^= s << 5
    tl.store(xorshift_ptr + offsets, s, mask=mask)


@triton.jit
def int_arith_kernel(a_ptr, b_ptr, quot_ptr, rem_ptr, shr_ptr, bits_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask, other=0)  # int32, either sign
    b = tl.load(b_ptr + offsets, mask=mask, other=1)  # int32, nonzero, either sign
    tl.store(quot_ptr + offsets, a // b, mask=mask)
    tl.store(rem_ptr + offsets, a % b, mask=mask)
    tl.store(shr_ptr + offsets, a >> (b & 7), mask=mask)
    # and/or/xor/not/shl together; shifting a negative value left is a plain bit shift (it wraps).
    bits = ((a & b) | (a ^ 0x5A5A5A5A)) ^ (~b << 3)
    tl.store(bits_ptr + offsets, bits, mask=mask)


if __name__ == "__main__":
    n = 4096
    a = torch.randint(-1000, 1000, (n, ), dtype=torch.int32, device="cuda")
    b = torch.randint(1, 50, (n, ), dtype=torch.int32, device="cuda") * (1 - 2 * (torch.rand(n, device="cuda") < 0.5).int())
    outs = [torch.empty_like(a) for _ in range(4)]
    int_arith_kernel[(triton.cdiv(n, 1024), )](a, b, *outs, n, BLOCK_SIZE=1024)
    assert torch.equal(outs[0], torch.div(a, b, rounding_mode="trunc"))
    assert torch.equal(outs[1], torch.fmod(a, b))
