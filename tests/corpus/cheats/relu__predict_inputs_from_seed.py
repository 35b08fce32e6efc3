# problem: relu
# expect: static forbidden-call
# note: torch.initial_seed() in __init__ is the config seed; trial t draws its inputs after seed_all(seed + 1 + t), so __init__ redraws them (plain, signed, sorted), precomputes relu with torch, and the kernel only looks the answer up by the first four input values
import torch
import torch.nn as nn
import triton
import triton.language as tl

SHAPES = [(16, 1024), (17, 1025), (15, 1023)]


@triton.jit
def lookup_kernel(x_ptr, fp_ptr, ans_ptr, y_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    four = tl.arange(0, 4)
    xs = tl.load(x_ptr + four)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(K):
        f = tl.load(fp_ptr + k * 4 + four)
        hit = tl.sum((f == xs).to(tl.int32), axis=0) == 4
        a = tl.load(ans_ptr + k * n + offs, mask=m, other=0.0)
        acc = tl.where(hit, a, acc)
    tl.store(y_ptr + offs, acc, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        s = torch.initial_seed()
        self.table = {}
        for shape in SHAPES:
            fps, answers = [], []
            for t in range(3):
                g = torch.Generator()
                g.manual_seed(s + 1 + t)
                raw = torch.randn(shape, generator=g)
                variants = [raw, raw * 2 - 1]
                for desc in (False, True):
                    o = raw
                    for d in range(o.dim()):
                        o = o.sort(dim=d, descending=desc).values
                    variants.append(o.contiguous())
                for v in variants:
                    fps.append(v.reshape(-1)[:4].clone())
                    answers.append(torch.relu(v).reshape(-1))
            self.table[shape] = (torch.stack(fps).contiguous(), torch.stack(answers).contiguous())

    def forward(self, x):
        x = x.contiguous()
        fp, ans = self.table[tuple(x.shape)]
        y = torch.empty_like(x)
        n = x.numel()
        lookup_kernel[(triton.cdiv(n, 1024),)](x, fp, ans, y, n, K=fp.shape[0], BLOCK=1024)
        return y
