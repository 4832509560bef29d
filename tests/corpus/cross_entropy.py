# Cross-entropy loss forward over a large vocabulary: each program walks its row of logits in
# BLOCK_SIZE chunks keeping an online log-sum-exp (running max and rescaled sum), then reads the
# target logit with a scalar load. Rows whose label is ignore_index get zero loss.
# Corpus file for tests/lit/corpus/corpus.test.
import torch
import triton
import triton.language as tl


@triton.heuristics({"HAS_SMOOTHING": lambda args: args["label_smoothing"] > 0.0})
@triton.jit
def cross_entropy_fwd_kernel(
    loss_ptr,  # [n_rows]
    lse_ptr,  # [n_rows]
    logits_ptr,  # [n_rows, n_cols]
    labels_ptr,  # [n_rows], int64
    label_smoothing,
    ignore_index,
    n_cols,
    logits_row_stride,
    BLOCK_SIZE: tl.constexpr,
    HAS_SMOOTHING: tl.constexpr,
):
    row_idx = tl.program_id(0)
    logits_ptr = logits_ptr + row_idx.to(tl.int64) * logits_row_stride
    label_idx = tl.load(labels_ptr + row_idx)

    m = -float("inf")
    d = 0.0
    sum_logits = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        col_offsets = start + tl.arange(0, BLOCK_SIZE)
        logits = tl.load(logits_ptr + col_offsets, mask=col_offsets < n_cols, other=-float("inf")).to(tl.float32)
        block_max = tl.max(logits, 0)
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(logits - m_new), 0)
        m = m_new
        if HAS_SMOOTHING:
            sum_logits += tl.sum(tl.where(col_offsets < n_cols, logits, 0.0), 0)
    lse = m + tl.log(d)
    tl.store(lse_ptr + row_idx, lse)

    if label_idx == ignore_index:
        loss = 0.0
    else:
        target_logit = tl.load(logits_ptr + label_idx).to(tl.float32)
        if HAS_SMOOTHING:
            smooth_loss = lse - sum_logits / n_cols
            loss = (1.0 - label_smoothing) * (lse - target_logit) + label_smoothing * smooth_loss
        else:
            loss = lse - target_logit
    tl.store(loss_ptr + row_idx, loss)


def cross_entropy_loss(logits: torch.Tensor, labels: torch.Tensor, label_smoothing: float = 0.0,
                       ignore_index: int = -100):
    n_rows, n_cols = logits.shape
    assert labels.shape == (n_rows, )
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 8192)
    num_warps = 4 if BLOCK_SIZE < 2048 else (8 if BLOCK_SIZE < 8192 else 16)
    losses = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
    lse = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
    cross_entropy_fwd_kernel[(n_rows, )](
        losses, lse, logits, labels, label_smoothing, ignore_index, n_cols, logits.stride(0),
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    n_valid = (labels != ignore_index).sum()
    return losses.sum() / n_valid, lse
