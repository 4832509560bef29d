# Barriers around reduction scratch (allocate_shared places it, insert_barriers orders it): a cross-warp
# reduction passes one barrier between storing its partials and reading them back, and none after; a
# later write to those bytes waits for one. Two reductions in a row (softmax's max and sum) alternate
# between two places, so a row costs two barriers; one reduction per iteration meets the last
# iteration's reads at the top of the body, so a barrier goes there.
#
# RUN: kiln compile %s --kernel rows --signature "*fp32:16, *fp32:16, i32, 1024" --emit ptx --num-warps 4 | FileCheck %s --check-prefix=TWO
# RUN: kiln compile %s --kernel maxima --signature "*fp32:16, *fp32:16, i32, 1024" --emit ptx --num-warps 4 | FileCheck %s --check-prefix=ONE
import triton
import triton.language as tl

# TWO:       $L0_for:
# TWO:           st.shared.f32 [[[MAX:%r[0-9]+]]]
# TWO-NEXT:      bar.sync 0;
# TWO-NOT:       bar.sync
# TWO:           st.shared.f32 [[[SUM:%r[0-9]+]]]
# TWO-NEXT:      bar.sync 0;
# TWO-NOT:       bar.sync
# TWO:           bra.uni $L0_for;

# ONE:       $L0_for:
# ONE-NOT:       shared
# ONE:           bar.sync 0;
# ONE-NOT:       bar.sync
# ONE:           st.shared.f32
# ONE-NEXT:      bar.sync 0;
# ONE-NOT:       bar.sync
# ONE:           bra.uni $L0_for;


@triton.jit
def rows(x_ptr, y_ptr, n_rows, BLOCK: tl.constexpr):
    for r in range(0, n_rows):
        x = tl.load(x_ptr + r * BLOCK + tl.arange(0, BLOCK))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + r * BLOCK + tl.arange(0, BLOCK), e / tl.sum(e, axis=0))


@triton.jit
def maxima(x_ptr, y_ptr, n_rows, BLOCK: tl.constexpr):
    for r in range(0, n_rows):
        tl.store(y_ptr + r, tl.max(tl.load(x_ptr + r * BLOCK + tl.arange(0, BLOCK)), axis=0))
