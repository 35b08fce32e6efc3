"""Matmul variants: plain and transposed operands, bias + activation epilogue, batched, matrix-vector,
and the fused chain linear -> activation -> scale. Tiled tl.dot kernels with masked edges.

The dots ask for `input_precision="tf32x3"`: on an NVIDIA GPU a plain `tl.dot` on fp32 is TF32, which fails
KernelBench's 1e-2 tolerance near zero outputs of `torch.randn` products (3 of 9 corpus samples on the H200,
benchmarks/results/dot_precision_h200.md); the interpreter is exact either way."""
from __future__ import annotations

import random

from .common import ACTIVATIONS, HEADER, Sample, Unary, activation_expr, problem, triton_steps

DIMS = [64, 96, 128, 192, 200, 256, 320, 384, 500, 512]

MATMUL_KERNEL = '''@triton.jit
def {kname}(a_ptr, b_ptr, {bias_arg}c_ptr, M, N, K,
            {sa}stride_am, stride_ak, {sb}stride_bk, stride_bn, {sc}stride_cm, stride_cn,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
{batch}    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="tf32x3")  # fp32-accurate on tensor cores; plain TF32 is not
{epilogue}    c = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))
'''


def _kernel(kname: str, batched: bool, bias: bool, acts: list[Unary], scale: float | None) -> str:
    batch = ("    pid_b = tl.program_id(2)\n    a_ptr += pid_b * stride_ab\n    b_ptr += pid_b * stride_bb\n"
             "    c_ptr += pid_b * stride_cb\n") if batched else ""
    epi = ""
    if bias:
        epi += "    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0)\n    acc += bias[None, :]\n"
    if acts:
        epi += "    v = acc\n" + triton_steps(acts) + "\n    acc = v\n"
    if scale is not None:
        epi += f"    acc = acc * {scale}\n"
    src = MATMUL_KERNEL.format(kname=kname, bias_arg="bias_ptr, " if bias else "",
                               sa="stride_ab, " if batched else "", sb="stride_bb, " if batched else "",
                               sc="stride_cb, " if batched else "",
                               batch=batch, epilogue=epi)
    return src


def _blocks(rng: random.Random) -> tuple[int, int, int]:
    return rng.choice([(32, 32, 32), (64, 64, 32), (32, 64, 32), (64, 32, 32), (16, 32, 16), (32, 32, 16)])


def _launch(kname: str, a: str, b: str, c: str, bias: str | None, blocks: tuple[int, int, int], batched: bool,
            indent: int = 8) -> str:
    bm, bn, bk = blocks
    pad = " " * indent
    s = ", ".join(f"{t}.stride({i})" for t in (a, b, c) for i in ((0, 1, 2) if batched else (0, 1)))
    # the tile sizes are bound once and named after: a grid and a launch that each spell the numbers can disagree
    grid = "(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N)" + (", batch)" if batched else ")")
    return (f"{pad}BLOCK_M, BLOCK_N, BLOCK_K = {bm}, {bn}, {bk}\n"
            f"{pad}grid = {grid}\n{pad}{kname}[grid]({a}, {b}, {bias + ', ' if bias else ''}{c}, M, N, K, {s},\n"
            f"{pad}    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)\n")


def _plan(rng: random.Random, what: str, blocks: tuple[int, int, int], epilogue: str, extra: str = "") -> str:
    bm, bn, bk = blocks
    return rng.choice([
        f"{what}: one program per {bm}x{bn} output tile, looping over K in steps of {bk} with tl.dot (3xTF32) into an "
        f"fp32 accumulator; loads masked on the M, N and K edges{extra}{epilogue}.",
        f"Tiled GEMM for {what}: grid cdiv(M, {bm}) x cdiv(N, {bn}); each program accumulates A[{bm}x{bk}] @ "
        f"B[{bk}x{bn}] tiles in fp32 with 3xTF32 dots (out-of-range rows, columns and K masked to zero)"
        f"{extra}{epilogue}, then stores its tile with a mask.",
        f"{what} as one Triton kernel. Block sizes {bm}/{bn}/{bk} (M/N/K); the K loop multiplies masked tiles with "
        f"tl.dot in 3xTF32 and keeps the sum in fp32 registers{extra}{epilogue}; the store is masked too.",
    ])


def _epilogue_text(bias: bool, acts: list[Unary], scale: float | None) -> str:
    parts = (["the bias add"] if bias else []) + [a.name for a in acts] + ([f"the scale by {scale}"] if scale else [])
    return f"; epilogue fused in registers: {', '.join(parts)}" if parts else ""


def matmul(rng: random.Random, idx: int) -> Sample:
    """C = A @ B with optional transposed operand, or with a bias + activation epilogue."""
    variant = rng.choice(["plain", "plain", "trans_a", "trans_b", "bias_act", "bias_act"])
    M, N, K = (rng.choice(DIMS) for _ in range(3))
    sizes = {"M": M, "K": K, "N": N}
    blocks = _blocks(rng)
    acts: list[Unary] = []
    a_view, b_view = "A", "B"
    init_params = init_body = init_inputs = ""
    if variant == "plain":
        body = f"return {rng.choice(['torch.matmul(A, B)', 'A @ B', 'torch.mm(A, B)'])}"
        inputs = ["torch.randn(M, K)", "torch.randn(K, N)"]
        what = "C = A @ B"
    elif variant == "trans_a":
        body = f"return {rng.choice(['torch.matmul(A.T, B)', 'A.t() @ B', 'torch.mm(A.transpose(0, 1), B)'])}"
        inputs = ["torch.randn(K, M)", "torch.randn(K, N)"]
        a_view, what = "A.t()", "C = A^T @ B with A stored (K, M)"
    elif variant == "trans_b":
        body = f"return {rng.choice(['torch.matmul(A, B.T)', 'A @ B.t()', 'torch.mm(A, B.transpose(0, 1))'])}"
        inputs = ["torch.randn(M, K)", "torch.randn(N, K)"]
        b_view, what = "B.t()", "C = A @ B^T with B stored (N, K)"
    else:
        acts = rng.sample(ACTIVATIONS, 1)
        init_params, init_inputs = "in_features, out_features", "K, N"
        init_body = ("self.weight = nn.Parameter(torch.randn(in_features, out_features) * 0.05)\n"
                     "self.bias = nn.Parameter(torch.randn(out_features))")
        body = f"return {activation_expr(rng, acts, rng.choice(['A @ self.weight + self.bias', 'torch.matmul(A, self.weight) + self.bias', 'torch.addmm(self.bias, A, self.weight)']))}"
        inputs = ["torch.randn(M, K)"]
        what = f"{acts[0].name}(A @ W + bias)"
    fwd = ["A", "B"] if variant != "bias_act" else ["A"]
    src = problem(rng, desc=f"the matrix product {what}", forward_args=fwd, body=body, sizes=sizes, inputs=inputs,
                  init_params=init_params, init_body=init_body, init_inputs=init_inputs)
    bias = variant == "bias_act"
    kname = "matmul_kernel"
    if bias:
        fwd_src = ("    def forward(self, A):\n        W = self.weight\n        M, K = A.shape\n        N = W.shape[1]\n"
                   "        C = torch.empty((M, N), device=A.device, dtype=A.dtype)\n" +
                   _launch(kname, "A", "W", "C", "self.bias", blocks, False) + "        return C\n")
        init = ("    def __init__(self, in_features, out_features):\n        super().__init__()\n"
                "        self.weight = nn.Parameter(torch.randn(in_features, out_features) * 0.05)\n"
                "        self.bias = nn.Parameter(torch.randn(out_features))\n")
    else:
        views = "".join(f"        {n} = {v}\n" for n, v in (("a", a_view), ("b", b_view)) if v != n.upper())
        a, b = ("a" if a_view != "A" else "A"), ("b" if b_view != "B" else "B")
        fwd_src = ("    def forward(self, A, B):\n" + views + f"        M, K = {a}.shape\n        N = {b}.shape[1]\n"
                   "        C = torch.empty((M, N), device=A.device, dtype=A.dtype)\n" +
                   _launch(kname, a, b, "C", None, blocks, False) + "        return C\n")
        init = "    def __init__(self):\n        super().__init__()\n"
    cand = (HEADER + "\n\n" + _kernel(kname, False, bias, acts, None) + "\n\nclass ModelNew(nn.Module):\n" + init +
            "\n" + fwd_src)
    extra = {"trans_a": "; A^T is read in place through its strides (no copy)",
             "trans_b": "; B^T is read in place through its strides (no copy)"}.get(variant, "")
    plan = _plan(rng, what, blocks, _epilogue_text(bias, acts, None), extra)
    return Sample(f"mm-{idx:05d}", "matmul", src, plan, cand)


def bmm(rng: random.Random, idx: int) -> Sample:
    """Batched matmul: a third grid axis over the batch."""
    M, N, K = (rng.choice(DIMS[:7]) for _ in range(3))
    batch = rng.choice([4, 8, 16, 10])
    sizes = {"batch_size": batch, "m": M, "k": K, "n": N}
    blocks = _blocks(rng)
    body = f"return {rng.choice(['torch.bmm(A, B)', 'torch.matmul(A, B)', 'A @ B'])}"
    src = problem(rng, desc="a batched matrix product", forward_args=["A", "B"], body=body, sizes=sizes,
                  inputs=["torch.randn(batch_size, m, k)", "torch.randn(batch_size, k, n)"])
    kname = "bmm_kernel"
    fwd_src = ("    def forward(self, A, B):\n        batch, M, K = A.shape\n        N = B.shape[2]\n"
               "        C = torch.empty((batch, M, N), device=A.device, dtype=A.dtype)\n" +
               _launch(kname, "A", "B", "C", None, blocks, True) + "        return C\n")
    cand = (HEADER + "\n\n" + _kernel(kname, True, False, [], None) + "\n\nclass ModelNew(nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n\n" + fwd_src)
    plan = _plan(rng, "batched C[b] = A[b] @ B[b]", blocks, "",
                 "; grid axis 2 is the batch index, which offsets the A, B and C pointers by their batch strides")
    return Sample(f"bmm-{idx:05d}", "matmul", src, plan, cand)


MATVEC_CANDIDATE = HEADER + '''

@triton.jit
def matvec_kernel(a_ptr, x_ptr, y_ptr, M, K, stride_am, stride_ak, stride_x,
                  BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        x = tl.load(x_ptr + kk * stride_x, mask=kk < K, other=0.0)
        acc += tl.sum(a * x[None, :], axis=1)
    tl.store(y_ptr + rm, acc.to(y_ptr.dtype.element_ty), mask=rm < M)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, x):
        M, K = A.shape
        y = torch.empty({out_shape}, device=A.device, dtype=A.dtype)
        BLOCK_M, BLOCK_K = {bm}, {bk}
        matvec_kernel[(triton.cdiv(M, BLOCK_M),)](A, x, y, M, K, A.stride(0), A.stride(1), x.stride(0),
                                                 BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K)
        return y
'''


def matvec(rng: random.Random, idx: int) -> Sample:
    """y = A @ x for a vector (or a (K, 1) column) x: a row-block reduction, no tensor cores needed."""
    M, K = rng.choice([128, 256, 500, 1000, 2048]), rng.choice([256, 512, 1000, 1024, 4096])
    column = rng.random() < 0.5
    names = rng.choice([("M", "K"), ("rows", "cols"), ("out_dim", "in_dim")])
    sizes = dict(zip(names, (M, K)))
    x_shape = f"{names[1]}, 1" if column else names[1]
    body = f"return {rng.choice(['torch.matmul(A, x)', 'A @ x'] + ([] if column else ['torch.mv(A, x)']))}"
    src = problem(rng, desc="a matrix-vector product", forward_args=["A", "x"], body=body, sizes=sizes,
                  inputs=[f"torch.randn({names[0]}, {names[1]})", f"torch.randn({x_shape})"])
    bm, bk = rng.choice([(32, 128), (64, 64), (16, 256), (64, 128)])
    cand = MATVEC_CANDIDATE.format(out_shape="(M, 1)" if column else "(M,)", bm=bm, bk=bk)
    plan = rng.choice([
        f"Matrix-vector product: each program owns {bm} rows of A and walks K in chunks of {bk}, multiplying the "
        "masked A tile by the matching slice of x and summing along K in fp32; no tl.dot (one column).",
        f"Grid cdiv(M, {bm}); a program loads [{bm}x{bk}] tiles of A and {bk} entries of x per step (masked at the "
        "edges), accumulates row sums of the product in fp32 and stores its rows of y.",
    ])
    return Sample(f"mv-{idx:05d}", "matmul", src, plan, cand)


def linear_act_scale(rng: random.Random, idx: int) -> Sample:
    """nn.Linear -> activation(s) -> optional scale, the GEMM with everything fused in its epilogue."""
    acts = rng.sample(ACTIVATIONS, rng.choice([1, 1, 2]))
    scale = rng.choice([None, 0.5, 2.0, 1.5])
    has_bias = rng.random() < 0.8
    M, K, N = rng.choice([32, 64, 128, 100]), rng.choice(DIMS), rng.choice(DIMS)
    sizes = {"batch_size": M, "in_features": K, "out_features": N}
    blocks = _blocks(rng)
    lin = f"nn.Linear(in_features, out_features{'' if has_bias else ', bias=False'})"
    act = activation_expr(rng, acts, "x")
    lines = ["x = self.fc(x)", f"x = {act}"] + ([f"return x * {'self.scale' if rng.random() < 0.5 else scale}"]
                                                 if scale else ["return x"])
    scale_param = scale is not None and lines[-1].endswith("self.scale")
    init_params = "in_features, out_features" + (", scale" if scale_param else "")
    init_body = f"self.fc = {lin}" + ("\nself.scale = scale" if scale_param else "")
    init_inputs = "in_features, out_features" + (f", {scale}" if scale_param else "")
    desc = "a linear layer, then " + " then ".join(a.name for a in acts) + (f", scaled by {scale}" if scale else "")
    src = problem(rng, desc=desc, forward_args=["x"], body="\n".join(lines), sizes=sizes,
                  inputs=["torch.randn(batch_size, in_features)"], init_params=init_params, init_body=init_body,
                  init_inputs=init_inputs)
    kname = "linear_kernel"
    kernel = _kernel(kname, False, has_bias, acts, None)
    if scale is not None:
        kernel = kernel.replace("    c = c_ptr", "    acc = acc * scale\n    c = c_ptr").replace(
            "c_ptr, M, N, K,", "c_ptr, M, N, K, scale,")
    bias = "self.fc.bias" if has_bias else None
    launch = _launch(kname, "x", "w", "y", bias, blocks, False).replace(
        "y, M, N, K,", f"y, M, N, K, {'self.scale' if scale_param else scale}," if scale is not None else "y, M, N, K,")
    fwd_src = ("    def forward(self, x):\n        w = self.fc.weight.t()\n        M, K = x.shape\n        N = w.shape[1]\n"
               "        y = torch.empty((M, N), device=x.device, dtype=x.dtype)\n" + launch + "        return y\n")
    cand = (HEADER + "\n\n" + kernel + "\n\nclass ModelNew(nn.Module):\n" +
            f"    def __init__(self, {init_params}):\n        super().__init__()\n        self.fc = {lin}\n" +
            ("        self.scale = scale\n" if scale_param else "") + "\n" + fwd_src)
    plan = _plan(rng, "y = x @ W^T" + (" + b" if has_bias else ""), blocks,
                 _epilogue_text(has_bias, acts, scale),
                 "; the nn.Linear weight (out, in) is read transposed through its strides")
    return Sample(f"lin-{idx:05d}", "fused", src, plan, cand)
