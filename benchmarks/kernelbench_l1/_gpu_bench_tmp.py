# TEMPORARY helper (deleted after use): GPU compile/correctness/timing + config sweeps.
import importlib.util, json, os, sys, time, math
import torch, triton
import torch.nn.functional as F
from triton.testing import do_bench

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("OUT", "/tmp")
LOG = open(os.path.join(OUT, "log.jsonl"), "a")
dev = "cuda"


def log(**kw):
    print(json.dumps(kw), flush=True)
    LOG.write(json.dumps(kw) + "\n"); LOG.flush()


def load(name):
    spec = importlib.util.spec_from_file_location("c_" + name, os.path.join(HERE, "honest", name + ".py"))
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m


def rms_ref(x, eps=1e-5):
    return x / torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + eps)

R = torch.rand
P = {
 "19_ReLU": (lambda s: [R(*s, device=dev)], lambda x: torch.relu(x), [], [(4096, 393216)], [(17, 33), (5, 4099)]),
 "21_Sigmoid": (lambda s: [R(*s, device=dev) * 8 - 4], torch.sigmoid, [], [(4096, 393216)], [(17, 33)]),
 "26_GELU_": (lambda s: [R(*s, device=dev) * 8 - 4], F.gelu, [], [(4096, 393216)], [(17, 33)]),
 "23_Softmax": (lambda s: [R(*s, device=dev)], lambda x: torch.softmax(x, 1), [], [(4096, 393216)], [(17, 33), (3, 5001)]),
 "24_LogSoftmax": (lambda s: [R(*s, device=dev)], lambda x: torch.log_softmax(x, 1), [], [(4096, 393216)], [(17, 33), (3, 5001)]),
 "38_L1Norm_": (lambda s: [R(*s, device=dev)], lambda x: x / torch.mean(torch.abs(x), 1, keepdim=True), [], [(32768, 65535)], [(17, 33), (3, 5001)]),
 "5_Matrix_scalar_multiplication": (lambda s: [R(*s, device=dev), 3.14], lambda a, s: a * s, [], [(65536, 16384)], [(33, 17)]),
 "12_Matmul_with_diagonal_matrices_": (lambda s: [R(s[0], device=dev), R(*s, device=dev)], lambda a, b: a.unsqueeze(1) * b, [], [(4096, 4096)], [(33, 17), (17, 2049)]),
 "1_Square_matrix_multiplication_": (lambda s: [R(s[0], s[0], device=dev), R(s[0], s[0], device=dev)], torch.matmul, [], [(4096,)], [(33,), (17,), (1000,)]),
 "4_Matrix_vector_multiplication_": (lambda s: [R(s[0], s[1], device=dev), R(s[1], 1, device=dev)], torch.matmul, [], [(2048, 1048576)], [(33, 1025), (17, 33)]),
 "36_RMSNorm_": (lambda s: [R(*s, device=dev)], rms_ref, "C", [(112, 64, 512, 512)], [(3, 17, 33, 5), (2, 100, 7, 9)]),
 "40_LayerNorm": (lambda s: [R(*s, device=dev)], None, "LN", [(16, 64, 256, 256)], [(3, 17, 33, 5)]),
 "47_Sum_reduction_over_a_dimension": (lambda s: [R(*s, device=dev)], lambda x: torch.sum(x, 1, keepdim=True), [1], [(128, 4096, 4095)], [(3, 33, 17)]),
 "100_HingeLoss": (lambda s: [R(s[0], s[1], device=dev), (torch.randint(0, 2, (s[0],), device=dev).float() * 2 - 1)],
                   lambda p, t: torch.mean(torch.clamp(1 - p * t, min=0)), [], [(32768, 32768)], [(33, 33)]),
}


def run_problem(name, only_small=False):
    mk, ref, init, big, small = P[name]
    mod = load(name)
    for s in small + ([] if only_small else big):
        torch.manual_seed(0)
        inp = mk(s)
        if init == "C":
            ia = [s[1]]
        elif init == "LN":
            ia = [tuple(s[1:])]
        else:
            ia = init
        m = mod.ModelNew(*ia).to(dev)
        if init == "LN":
            ln = torch.nn.LayerNorm(tuple(s[1:])).to(dev)
            rf = lambda x: ln(x)
        else:
            rf = ref
        with torch.no_grad():
            exp = rf(*inp)
            got = m(*inp)
            torch.cuda.synchronize()
            ok = got.shape == exp.shape and torch.allclose(got, exp, atol=1e-2, rtol=1e-2)
            rel = ((got - exp).abs() / (exp.abs() + 1e-6)).max().item()
            rec = dict(p=name, shape=s, ok=bool(ok), maxabs=(got - exp).abs().max().item(), maxrel=rel)
            del exp, got
            if s in big:
                t_ref = do_bench(lambda: rf(*inp), warmup=10, rep=60)
                t_new = do_bench(lambda: m(*inp), warmup=10, rep=60)
                nbytes = sum(x.numel() * x.element_size() for x in inp if torch.is_tensor(x))
                rec.update(t_ref_ms=t_ref, t_new_ms=t_new, speedup=t_ref / t_new, in_GB=nbytes / 1e9)
            log(**rec)
        del inp, m
        torch.cuda.empty_cache()
    return mod


def sweep(tag, fn, configs):
    for c in configs:
        try:
            t = do_bench(lambda: fn(**c), warmup=5, rep=40)
            log(sweep=tag, cfg=c, ms=t)
        except Exception as e:
            log(sweep=tag, cfg=c, err=str(e)[:200])


def sweeps(which):
    if "elem" in which:
        mod = load("19_ReLU")
        x = torch.rand(4096, 393216, device=dev); y = torch.empty_like(x); n = x.numel()
        sweep("relu", lambda B, w: mod._relu_kernel[(triton.cdiv(n, B),)](x, y, n, BLOCK=B, num_warps=w),
              [dict(B=b, w=w) for b in (1024, 2048, 4096, 8192) for w in (4, 8, 16) if b // (32 * w) >= 4])
        log(copy_ms=do_bench(lambda: y.copy_(x), warmup=5, rep=40))
        del x, y
    if "softmax" in which:
        mod = load("23_Softmax")
        x = torch.rand(4096, 393216, device=dev); y = torch.empty_like(x)
        sweep("softmax", lambda B, w: mod._softmax_kernel[(4096,)](x, y, 393216, 1, BLOCK=B, SINGLE=False, CONTIG=True, LOG=False, num_warps=w),
              [dict(B=b, w=w) for b in (2048, 4096, 8192) for w in (4, 8, 16) if b // (32 * w) >= 4])
        del x, y
    if "l1" in which:
        mod = load("38_L1Norm_")
        x = torch.rand(32768, 65535, device=dev); y = torch.empty_like(x)
        sweep("l1", lambda B, w: mod._l1norm_kernel[(32768,)](x, y, 65535, 1, BLOCK=B, SINGLE=False, CONTIG=True, num_warps=w),
              [dict(B=b, w=w) for b in (2048, 4096, 8192) for w in (4, 8, 16) if b // (32 * w) >= 4])
        del x, y
    if "mm" in which:
        mod = load("1_Square_matrix_multiplication_")
        N = 4096
        a = torch.rand(N, N, device=dev); b = torch.rand(N, N, device=dev); c = torch.empty_like(a)
        def f(BM, BN, BK, G, w, s):
            grid = (triton.cdiv(N, BM) * triton.cdiv(N, BN),)
            mod._matmul_kernel[grid](a, b, c, N, N, N, N, 1, N, 1, N, 1, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=G, num_warps=w, num_stages=s)
        cfgs = [(128, 128, 32, 8, 8, 3), (128, 128, 32, 8, 4, 3), (128, 128, 32, 8, 8, 4), (128, 128, 64, 8, 8, 3),
                (128, 256, 32, 8, 8, 3), (128, 256, 32, 8, 8, 4), (256, 128, 32, 8, 8, 3), (128, 256, 64, 8, 8, 3), (64, 256, 32, 8, 4, 4),
                (128, 128, 64, 8, 4, 4), (128, 256, 32, 8, 4, 3)]
        sweep("mm", f, [dict(BM=q[0], BN=q[1], BK=q[2], G=q[3], w=q[4], s=q[5]) for q in cfgs])
        torch.backends.cuda.matmul.allow_tf32 = True
        log(cublas_tf32_ms=do_bench(lambda: torch.matmul(a, b), warmup=5, rep=40))
        torch.backends.cuda.matmul.allow_tf32 = False
        del a, b, c
    if "rms" in which:
        mod = load("36_RMSNorm_")
        x = torch.rand(112, 64, 512, 512, device=dev); y = torch.empty_like(x); S = 512 * 512
        def f(BS, w):
            nsb = triton.cdiv(S, BS)
            mod._rmsnorm_kernel[(112 * nsb,)](x, y, 64, S, nsb, 1e-5, BLOCK_C=64, BLOCK_S=BS, ONE_PASS=True, num_warps=w)
        sweep("rms", f, [dict(BS=b, w=w) for b in (32, 64, 128, 256) for w in (4, 8)])
        del x, y
    if "sum" in which:
        mod = load("47_Sum_reduction_over_a_dimension")
        x = torch.rand(128, 4096, 4095, device=dev); y = torch.empty(128, 1, 4095, device=dev)
        def f(BI, BR, w):
            nib = triton.cdiv(4095, BI)
            mod._sum_cols_kernel[(128 * nib,)](x, y, 4096, 4095, nib, BLOCK_R=BR, BLOCK_I=BI, num_warps=w)
        sweep("sum", f, [dict(BI=bi, BR=br, w=w) for bi in (64, 128, 256) for br in (16, 32, 64) for w in (4, 8) if bi * br in (4096, 8192)])
        del x, y
    if "mv" in which:
        mod = load("4_Matrix_vector_multiplication_")
        M, K = 2048, 1048576
        a = torch.rand(M, K, device=dev); b = torch.rand(K, 1, device=dev); c = torch.empty(M, 1, device=dev)
        def f(BM, BK, tgt, w):
            nmb = triton.cdiv(M, BM)
            splits = max(1, min(triton.cdiv(K, BK), triton.cdiv(tgt, nmb)))
            kps = triton.cdiv(triton.cdiv(K, splits), BK) * BK
            splits = triton.cdiv(K, kps)
            parts = torch.empty(splits * M, device=dev)
            mod._matvec_partial_kernel[(nmb * splits, 1)](a, b, parts, M, K, K, 1, 1, kps, nmb, BLOCK_M=BM, BLOCK_K=BK, num_warps=w)
            mod._matvec_reduce_kernel[(2, 1)](parts, c, M, splits, 1, 1, BLOCK=1024, num_warps=4)
        sweep("mv", f, [dict(BM=bm, BK=bk, tgt=t, w=w) for bm in (4, 8, 16) for bk in (512, 1024) for t in (2048, 4096, 8192) for w in (4, 8) if bm * bk <= 8192])
        del a, b, c
    torch.cuda.empty_cache()


if __name__ == "__main__":
    log(triton=triton.__version__, torch=torch.__version__, gpu=torch.cuda.get_device_name())
    import triton.language as tl
    log(has_erf=hasattr(tl, "erf"))
    mode = sys.argv[1]
    if mode == "check":
        names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(P)
        for n in names:
            t0 = time.time()
            try:
                run_problem(n)
            except Exception as e:
                import traceback; log(p=n, error=traceback.format_exc()[-1500:])
            log(p=n, wall=time.time() - t0)
    elif mode == "sweep":
        sweeps(sys.argv[2].split(","))
