# The workloads of the benchmark suite: for each case its inputs (fresh torch.randn, fixed seed), a
# higher-precision reference, the kernel launch (the same host code of bench/kernels/*.py run with
# kiln or with Triton), the PyTorch peer, the bytes or FLOPs that turn a time into a rate, and the
# tolerance of the check.
import math
import types
import zlib

import torch
import torch.nn.functional as F

# (rtol, atol as a fraction of max|reference|) per output dtype.
TOLERANCES = {torch.float32: (1e-4, 1e-5), torch.float16: (1e-2, 1e-2), torch.bfloat16: (2e-2, 2e-2)}


class Case:
    """One row of the table. setup() -> inputs; reference(inp) -> tensor; kernel(mod, inp) -> Launch;
    peers(inp) -> [(label, fn)] where fn() returns the output. bytes or flops sets the rate."""

    def __init__(self, family, name, setup, reference, kernel, peers, nbytes=0, flops=0, quick=False):
        self.family, self.name = family, name
        self.setup, self.reference, self.kernel, self.peers = setup, reference, kernel, peers
        self.nbytes, self.flops, self.quick = nbytes, flops, quick
        self.seed = zlib.crc32(name.encode())


class Launch:
    """A kernel launch bound to its inputs: call() launches (asynchronously) and returns the output
    tensor; reset() refills the output with NaN; tuned is the autotuned kernel (for its best_config)
    or None; with_config(cfg) rebinds the launch to one config of configs (suite-side tuning)."""

    def __init__(self, out, launch, tuned=None, configs=(), launch_config=None):
        self.out, self._launch, self.tuned, self.configs = out, launch, tuned, list(configs)
        self._launch_config = launch_config
        self.handle = None  # what the last launch returned (Triton: the CompiledKernel)

    def __call__(self):
        self.handle = self._launch()
        return self.out

    def reset(self):
        self.out.fill_(float("nan"))

    def with_config(self, config):
        return Launch(self.out, lambda: self._launch_config(config))


def randn(g, *shape, dtype=torch.float32):
    return torch.randn(*shape, generator=g, device="cuda", dtype=dtype)


def nan_like(x, dtype=None):
    return torch.full_like(x, float("nan"), dtype=dtype)


def check(got, ref):
    """(ok, text): every element within atol + rtol * |ref| of the reference (NaN never is)."""
    rtol, atol_rel = TOLERANCES.get(got.dtype, TOLERANCES[torch.float32])
    ref = ref.float()
    scale = ref.abs().max().item() or 1.0
    diff = (got.float() - ref).abs()
    bad = int((~(diff <= atol_rel * scale + rtol * ref.abs())).sum().item())
    worst = torch.nan_to_num(diff, nan=math.inf).max().item() / scale
    del diff
    if bad == 0:
        return True, f"ok ({worst:.1e})"
    return False, f"MISMATCH ({worst:.1e}; {bad} of {got.numel()} outside tolerance)"


# ---- vector add

def vector_add(n, quick=False):
    def setup(g):
        return types.SimpleNamespace(x=randn(g, n), y=randn(g, n))

    def kernel(mod, t):
        out = nan_like(t.x)
        return Launch(out, lambda: mod.add(t.x, t.y, out))

    return Case("vector_add", f"vector add fp32 2^{int(math.log2(n))}", setup, lambda t: t.x.double() + t.y.double(),
                kernel, lambda t: [("torch.add", lambda: torch.add(t.x, t.y))], nbytes=3 * n * 4, quick=quick)


# ---- softmax

def softmax(rows, cols, quick=False):
    def setup(g):
        return types.SimpleNamespace(x=randn(g, rows, cols))

    def kernel(mod, t):
        out = nan_like(t.x)
        return Launch(out, lambda: mod.softmax(t.x, out), tuned=mod.softmax_kernel_autotuned,
                      configs=mod.get_configs(), launch_config=lambda cfg: mod.softmax_with_config(t.x, out, cfg))

    return Case("softmax", f"softmax fp32 {rows}x{cols}", setup, lambda t: torch.softmax(t.x.double(), dim=1),
                kernel, lambda t: [("torch.softmax", lambda: torch.softmax(t.x, dim=1))],
                nbytes=2 * rows * cols * 4, quick=quick)


# ---- layer norm

def layernorm(rows, cols, quick=False, eps=1e-5):
    def setup(g):
        return types.SimpleNamespace(x=randn(g, rows, cols, dtype=torch.float16),
                                     w=randn(g, cols, dtype=torch.float16), b=randn(g, cols, dtype=torch.float16))

    def reference(t):
        return F.layer_norm(t.x.float(), (cols, ), t.w.float(), t.b.float(), eps)

    def kernel(mod, t):
        y = nan_like(t.x)
        mean = torch.empty(rows, device="cuda", dtype=torch.float32)
        rstd = torch.empty(rows, device="cuda", dtype=torch.float32)
        return Launch(y, lambda: mod.layer_norm(t.x, t.w, t.b, eps, y, mean, rstd),
                      tuned=mod.layer_norm_fwd_kernel_autotuned, configs=mod.get_configs(),
                      launch_config=lambda cfg: mod.layer_norm_with_config(t.x, t.w, t.b, eps, y, mean, rstd, cfg))

    peers = lambda t: [("F.layer_norm", lambda: F.layer_norm(t.x, (cols, ), t.w, t.b, eps))]
    nbytes = 2 * rows * cols * 2 + 2 * cols * 2 + 2 * rows * 4  # x, y; w, b; mean, rstd
    return Case("layernorm", f"layernorm fp16 {rows}x{cols}", setup, reference, kernel, peers, nbytes=nbytes,
                quick=quick)


# ---- matmul

def fp32_product(a, b):
    """a @ b in true fp32 (tf32 off while it runs): the matmul cases' reference."""
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        return torch.matmul(a.float(), b.float())
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


# fp8 e4m3 (torch's float8_e4m3fn; None where torch has no fp8): A [M, K] row-major, B the transpose of a
# contiguous [N, K] tensor (K-major, as Triton's fp8 tutorial passes it and as wgmma and
# torch._scaled_mm read it), C in fp16.
FP8 = getattr(torch, "float8_e4m3fn", None)


def matmul(m, n, k, dtype, quick=False):
    fp8 = FP8 is not None and dtype == FP8
    name = "fp8e4m3" if fp8 else {torch.float16: "fp16", torch.bfloat16: "bf16"}[dtype]
    shape = f"{m}^3" if m == n == k else f"{m}x{n}x{k}"
    out_dtype = torch.float16 if fp8 else dtype

    def setup(g):
        if fp8:
            return types.SimpleNamespace(a=randn(g, m, k, dtype=torch.float16).to(dtype),
                                         b=randn(g, n, k, dtype=torch.float16).to(dtype).T)
        return types.SimpleNamespace(a=randn(g, m, k, dtype=dtype), b=randn(g, k, n, dtype=dtype))

    def reference(t):
        return fp32_product(t.a, t.b)

    def kernel(mod, t):
        c = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
        if fp8:
            return Launch(c, lambda: mod.matmul_fp8(t.a, t.b, c), tuned=mod.matmul_fp8_kernel_autotuned,
                          configs=mod.get_fp8_configs(),
                          launch_config=lambda cfg: mod.matmul_with_config(t.a, t.b, c, cfg))
        return Launch(c, lambda: mod.matmul(t.a, t.b, c), tuned=mod.matmul_kernel_autotuned,
                      configs=mod.get_configs(), launch_config=lambda cfg: mod.matmul_with_config(t.a, t.b, c, cfg))

    if fp8:
        one = lambda: torch.ones((), device="cuda", dtype=torch.float32)
        peers = lambda t: [("torch._scaled_mm", lambda: torch._scaled_mm(t.a, t.b, scale_a=one(), scale_b=one(),
                                                                          out_dtype=torch.float16))]
    else:
        peers = lambda t: [("torch.matmul (cuBLAS)", lambda: torch.matmul(t.a, t.b))]
    return Case("matmul", f"matmul {name} {shape}", setup, reference, kernel, peers, flops=2.0 * m * n * k,
                quick=quick)


# f32 matmul at a split precision (bench/kernels/matmul_f32.py), not a suite row: the workload
# tools/device-sanitize checks the split dots with (and bench/dot_types_ab.py times). SPLIT_CONFIGS are the
# (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages) it runs at, spill-free on sm_90a for every precision (tf32x3 at
# BLOCK_K 32 spills from 128x64 up: four operand parts and two accumulators); the reference is the exact
# f32 product, which every split precision promises.
SPLIT_CONFIGS = [(128, 128, 16, 8, 4), (128, 64, 16, 4, 4), (64, 64, 32, 4, 3)]


def matmul_split(m, n, k, precision, quick=False):
    def setup(g):
        return types.SimpleNamespace(a=randn(g, m, k), b=randn(g, k, n))

    def reference(t):
        return fp32_product(t.a, t.b)

    def kernel(mod, t):
        c = torch.full((m, n), float("nan"), device="cuda")
        configs = [types.SimpleNamespace(kwargs=dict(BLOCK=(bm, bn, bk)), num_warps=w, num_stages=s)
                   for bm, bn, bk, w, s in SPLIT_CONFIGS]
        run = lambda cfg: mod.matmul_f32(t.a, t.b, c, precision, block=cfg.kwargs["BLOCK"], num_warps=cfg.num_warps,
                                         num_stages=cfg.num_stages)
        return Launch(c, lambda: run(configs[0]), configs=configs, launch_config=run)

    peers = lambda t: [("torch.matmul (cuBLAS, fp32)", lambda: fp32_product(t.a, t.b))]
    return Case("matmul_split", f"matmul f32 {precision} {m}x{n}x{k}", setup, reference, kernel, peers,
                flops=2.0 * m * n * k, quick=quick)


# ---- grouped matmul (tutorial 08's problem)

def grouped_gemm(sizes, quick=False):
    """One launch computing A_g @ B_g for square fp16 problems of the given sizes; every C_g is a view
    into one flat output, so the check and the NaN pre-fill cover all of them."""
    def setup(g):
        return types.SimpleNamespace(a=[randn(g, s, s, dtype=torch.float16) for s in sizes],
                                     b=[randn(g, s, s, dtype=torch.float16) for s in sizes])

    def reference(t):
        return torch.cat([torch.matmul(a.float(), b.float()).flatten() for a, b in zip(t.a, t.b)])

    def kernel(mod, t):
        flat = torch.full((sum(s * s for s in sizes), ), float("nan"), device="cuda", dtype=torch.float16)
        views, at = [], 0
        for s in sizes:
            views.append(flat[at:at + s * s].view(s, s))
            at += s * s
        arrays = mod.problem_arrays(t.a, t.b, views)
        return Launch(flat, lambda: mod.grouped_gemm(arrays), tuned=mod.grouped_gemm_kernel_autotuned,
                      configs=mod.get_configs(), launch_config=lambda cfg: mod.grouped_gemm_with_config(arrays, cfg))

    def peers(t):
        return [("torch.matmul per problem (cuBLAS)", lambda: torch.cat([torch.matmul(a, b).flatten()
                                                                         for a, b in zip(t.a, t.b)]))]

    name = "grouped matmul fp16 " + "+".join(f"{s}^2" for s in sizes)
    return Case("grouped_gemm", name, setup, reference, kernel, peers,
                flops=sum(2.0 * s ** 3 for s in sizes), quick=quick)


# ---- attention

def sdpa_peers(q, k, v, causal):
    """scaled_dot_product_attention under each fused backend torch offers here (flash, cuDNN)."""
    peers = [("sdpa (default)", lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))]
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return peers

    def under(backend):
        def fn():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return fn

    for label, backend in (("sdpa flash", "FLASH_ATTENTION"), ("sdpa cuDNN", "CUDNN_ATTENTION")):
        if hasattr(SDPBackend, backend):
            peers.append((label, under(getattr(SDPBackend, backend))))
    return peers


def attention(z, h, n_ctx, d, causal=False, quick=False):
    """Forward attention, q k v [z, h, n_ctx, d] fp16; causal: query i sees keys 0..i only, which halves the
    FLOPs (the kernel skips the key blocks past the diagonal)."""
    def setup(g):
        return types.SimpleNamespace(**{name: randn(g, z, h, n_ctx, d, dtype=torch.float16) for name in "qkv"})

    def reference(t):
        # fp32 attention a batch entry and at most 2^30 scores at a time (bounded memory if torch falls back
        # to the math path, which holds the N x N scores of every head it is given).
        heads = max(1, (1 << 30) // (n_ctx * n_ctx))
        return torch.cat([torch.cat([F.scaled_dot_product_attention(t.q[i:i + 1, j:j + heads].float(),
                                                                    t.k[i:i + 1, j:j + heads].float(),
                                                                    t.v[i:i + 1, j:j + heads].float(), is_causal=causal)
                                     for j in range(0, h, heads)], dim=1) for i in range(z)])

    def kernel(mod, t):
        o = nan_like(t.q)
        m = torch.empty((z, h, n_ctx), device="cuda", dtype=torch.float32)
        scale = 1.0 / math.sqrt(d)
        return Launch(o, lambda: mod.attention(t.q, t.k, t.v, scale, m, o, causal=causal),
                      tuned=mod.attn_fwd_autotuned, configs=mod.get_configs(d),
                      launch_config=lambda cfg: mod.attention_with_config(t.q, t.k, t.v, scale, m, o, cfg,
                                                                          causal=causal))

    flops = 4.0 * z * h * n_ctx * n_ctx * d * (0.5 if causal else 1.0)
    return Case("attention", f"attention fp16 B{z} H{h} N{n_ctx} D{d}" + (" causal" if causal else ""), setup,
                reference, kernel, lambda t: sdpa_peers(t.q, t.k, t.v, causal), flops=flops, quick=quick)


# ---- persistent matmul through tensor descriptors (tutorial 09's kernel)

def matmul_persistent(m, n, k, quick=False):
    """fp16 C = A @ B with B K-major (the transpose of a contiguous [N, K] tensor, as the kernel's
    descriptor reads it); the peer is cuBLAS on the same tensors."""
    shape = f"{m}^3" if m == n == k else f"{m}x{n}x{k}"

    def setup(g):
        return types.SimpleNamespace(a=randn(g, m, k, dtype=torch.float16), b=randn(g, n, k, dtype=torch.float16).T)

    def reference(t):
        return fp32_product(t.a, t.b)

    def kernel(mod, t):
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
        return Launch(c, lambda: mod.matmul_persistent(t.a, t.b, c), tuned=mod.matmul_persistent_kernel_autotuned,
                      configs=mod.get_configs(),
                      launch_config=lambda cfg: mod.matmul_persistent_with_config(t.a, t.b, c, cfg))

    peers = lambda t: [("torch.matmul (cuBLAS)", lambda: torch.matmul(t.a, t.b))]
    return Case("matmul_persistent", f"matmul persistent descriptors fp16 {shape}", setup, reference, kernel, peers,
                flops=2.0 * m * n * k, quick=quick)


# The kernel file of each family (bench/kernels/FILE.py).
KERNEL_FILES = {"vector_add": "vector_add", "softmax": "softmax", "layernorm": "layernorm", "matmul": "matmul",
                "attention": "attention", "grouped_gemm": "grouped_gemm", "matmul_persistent": "matmul_persistent",
                "matmul_split": "matmul_f32"}


def all_cases(smoke=False):
    """Every case of the suite; smoke=True shrinks every shape (same structure: odd sizes stay odd) so a
    run only shows that everything compiles, runs and checks out."""
    if smoke:
        return ([vector_add(1 << 16, quick=True)]
                + [softmax(r, c, quick=c == 4096) for r, c in ((64, 1024), (64, 4096), (16, 16384), (256, 4096))]
                + [layernorm(64, 4096, quick=True), layernorm(32, 8192)]
                + [matmul(m, n, k, dt, quick=dt == torch.float16 and m == 256)
                   for dt in (torch.float16, torch.bfloat16)
                   for m, n, k in ((256, 256, 256), (300, 300, 300), (512, 512, 64), (127, 512, 512))]
                + [matmul(m, n, k, FP8) for m, n, k in ((256, 256, 256), (512, 512, 64)) if FP8 is not None]
                + [attention(1, 2, 256, 64, quick=True), attention(1, 2, 256, 128),
                   attention(1, 2, 256, 128, causal=True), attention(2, 2, 128, 128), attention(1, 2, 512, 128)]
                + [grouped_gemm((256, 128, 128, 128))]
                # M odd, N and K not multiples of any tile (multiples of 8: a descriptor's 16-byte rows)
                + [matmul_persistent(333, 264, 200)])
    cases = [vector_add(1 << 28, quick=True)]
    cases += [softmax(r, c, quick=(r, c) == (4096, 4096))
              for r, c in ((4096, 1024), (4096, 4096), (4096, 16384), (32768, 4096))]
    cases += [layernorm(4096, 4096, quick=True), layernorm(16384, 8192)]
    for dtype in (torch.float16, torch.bfloat16):
        for m, n, k in ((4096, 4096, 4096), (8192, 8192, 8192), (3000, 3000, 3000), (8192, 8192, 512),
                        (16384, 1024, 16384), (127, 8192, 8192)):
            quick = dtype == torch.float16 and (m, n, k) in ((4096, 4096, 4096), (3000, 3000, 3000))
            cases.append(matmul(m, n, k, dtype, quick=quick))
    if FP8 is not None:
        cases += [matmul(s, s, s, FP8) for s in (4096, 8192)]
    cases += [attention(4, 32, 4096, 64, quick=True), attention(4, 32, 4096, 128),
              attention(4, 32, 4096, 128, causal=True)]
    # The sequence length at either side of 4096. B4 H32 N1024 is 128 (batch, head) pairs as at N4096, with a
    # sixteenth of the work per pair (short K/V loops: prologue and epilogue weigh more); B1 H32 N16384 has
    # 32 pairs x 128 query blocks of 128 rows (4096 programs, as many as B4 H32 N4096) with long K/V loops,
    # at 4x the work of the N4096 row (4.4 TFLOP a call) rather than the 16x that B4 would take to time.
    cases += [attention(4, 32, 1024, 128), attention(1, 32, 16384, 128)]
    cases += [grouped_gemm((1024, 512, 256, 128)), grouped_gemm((4096, 2048, 1024, 512))]
    cases += [matmul_persistent(8192, 8192, 8192)]
    return cases
