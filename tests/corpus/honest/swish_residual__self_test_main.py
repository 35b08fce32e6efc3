# problem: swish_residual
# note: written as a file a person would keep: a staticmethod grid helper, @torch.no_grad() on forward, and a
# note: self-test under `if __name__ == "__main__":` (torch.testing, triton.testing.do_bench) that never runs on import.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def swish_residual_kernel(x_ptr, r_ptr, out_ptr, n_elements, residual_numel, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    r = tl.load(r_ptr + offsets % residual_numel, mask=mask, other=0.0)
    y = x * tl.sigmoid(x) + r
    tl.store(out_ptr + offsets, y, mask=mask)


class ModelNew(nn.Module):
    BLOCK_SIZE = 256

    def __init__(self):
        super().__init__()

    @staticmethod
    def _grid(n_elements, block):
        return ((n_elements + block - 1) // block,)

    @torch.no_grad()
    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        shape = torch.broadcast_shapes(x.shape, residual.shape)
        assert shape == x.shape, f"residual {tuple(residual.shape)} must broadcast to x {tuple(x.shape)}"
        x = x.contiguous()
        residual = residual.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        swish_residual_kernel[self._grid(n, self.BLOCK_SIZE)](x, residual, out, n, residual.numel(),
                                                             BLOCK_SIZE=self.BLOCK_SIZE)
        return out


if __name__ == "__main__":
    import time

    torch.manual_seed(0)
    x = torch.randn(8, 128, 512, device="cuda")
    res = torch.randn(128, 512, device="cuda")
    model = ModelNew()
    torch.testing.assert_close(model(x, res), x * torch.sigmoid(x) + res)
    t0 = time.perf_counter()
    print("triton ms:", triton.testing.do_bench(lambda: model(x, res)), "wall", time.perf_counter() - t0)
