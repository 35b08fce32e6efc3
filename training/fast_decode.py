"""A fast decode path for Llama-architecture models behind `sampling.sample_rows`.

`transformers`' `generate` spends ~5 ms of Python and kernel-launch overhead per decode step, which dominates
for the embedded 15M-parameter model. Here the decode step is a hand-written pure-torch function over the HF
model's own weight tensors (read every call, never copied: in-place updates such as an optimizer step are
seen) with a static KV cache `[layers, B, kv_heads, max_len, head_dim]`; the prefill is the same function
over the whole prompt. On CUDA one decode step (forward, sampling, forced-token override, EOS bookkeeping) is
captured in a `torch.cuda.CUDAGraph` and replayed; the host syncs every `CHUNK` (32) steps, and at every
`ClosePlan` check, to look for EOS, decide budget forcing and refill the noise for the next chunk.

Semantics are `sample_rows`' (`RowSampler` then `ClosePlan` in HF greedy `generate`):
- logits / T, optional top-p nucleus, Gumbel-max with noise from each row's own generator (the RowSampler's
  generators themselves), so a row's tokens do not depend on its batch; greedy when there is no RowSampler;
- `ClosePlan`: the very object is asked, step by step and with the row's real tokens at every check step,
  which rows to force and with what, so its decision rules are its own;
- after a stop token (the model's `generation_config.eos_token_id`, as HF stops) a row emits only pad; the
  loop stops when every row is done or at max_new_tokens. The caller post-processes as for HF's output.
Noise for a chunk is drawn per row as one `[k, V]` tensor from the row's generator. On the CPU that is the
same stream as RowSampler's one `[V]` draw per step (so the CPU fast path samples what HF does, up to float
rounding in the forward); on CUDA, Philox offsets advance per call, so the samples differ from the HF path's
(still one fixed stream per seed, chunking independent of the batch).

Left padding is supported: pad keys are masked, positions count from each row's first real token (HF's
`cumsum(attention_mask) - 1`). What falls back to HF `generate` (one log line per model and reason, never an
exception): a model that is not exactly `LlamaForCausalLM` with plain `nn.Linear` projections (peft/LoRA
wrappers, DDP), biases, a non-SiLU MLP, rope scaling (any rope type but "default"), weights of mixed dtype or
device, a generation config that adds logits processors, any logits processor other than RowSampler and
ClosePlan, or any error while building, capturing or running. GQA (fewer kv heads) is supported.
`TRITONRL_FAST_DECODE=0` turns the path off, `=eager` keeps it but without CUDA graphs.
No torch.compile anywhere: capture is manual (`capture_error_mode="thread_local"`), which works from the
worker threads the language server generates in.
"""
from __future__ import annotations

import logging
import os
import threading
import weakref
from contextlib import nullcontext

from . import sampling  # RowSampler's top-p and Gumbel noise (sampling imports this module: use attributes)

log = logging.getLogger(__name__)

ENV = "TRITONRL_FAST_DECODE"
CHUNK = 32        # decode steps between host syncs (EOS check, noise refill)
L_BUCKET = 256    # graph runners' cache length is rounded up to this, so one capture serves many prompts
CACHE_RUNNERS = 2                 # captured graphs kept between calls
CACHE_MAX_BYTES = 1 << 30         # ...only those whose KV cache is at most this big
_logged: set = set()
_lock = threading.Lock()
_capture_lock = threading.Lock()
_capture_failed: "weakref.WeakSet" = weakref.WeakSet()  # models whose capture failed once: HF generate from then on
_runners: dict = {}               # key -> list of idle runners (most recently used last in _order)
_order: list = []


def mode() -> str:
    """"off", "eager" (no CUDA graph) or "graph" (CUDA graphs on a CUDA device), from TRITONRL_FAST_DECODE."""
    v = os.environ.get(ENV, "1").strip().lower()
    if v in ("0", "off", "false", "no"):
        return "off"
    return "eager" if v == "eager" else "graph"


def enabled() -> bool:
    return mode() != "off"


def _note(model, reason: str) -> None:
    key = (id(model), reason.split(":")[0])
    if key not in _logged:
        _logged.add(key)
        log.warning("fast decode not used, falling back to transformers generate: %s", reason)


class Unsupported(Exception):
    """The model or the request is outside what the fast path reproduces."""


def unsupported_reason(model) -> str | None:
    """Why `model` cannot take the fast path, or None when it can."""
    import torch
    from transformers import LlamaForCausalLM

    if type(model) is not LlamaForCausalLM:
        return f"{type(model).__name__} is not a plain LlamaForCausalLM"
    c = model.config
    if getattr(c, "attention_bias", False) or getattr(c, "mlp_bias", False):
        return "attention or MLP biases"
    if getattr(c, "hidden_act", "silu") != "silu":
        return f"hidden_act {c.hidden_act}"
    if getattr(c, "pretraining_tp", 1) not in (None, 1):
        return "pretraining_tp"
    rot = getattr(model.model, "rotary_emb", None)
    if rot is None or getattr(rot, "rope_type", None) != "default" or not hasattr(rot, "inv_freq"):
        return f"rope type {getattr(rot, 'rope_type', None)} (only the default rope)"
    if float(getattr(rot, "attention_scaling", 1.0)) != 1.0:
        return "rope attention scaling"
    lin = [model.lm_head]
    for layer in model.model.layers:
        a, m = layer.self_attn, layer.mlp
        lin += [a.q_proj, a.k_proj, a.v_proj, a.o_proj, m.gate_proj, m.up_proj, m.down_proj]
    if any(type(x) is not torch.nn.Linear or x.bias is not None for x in lin):
        return "projections are not plain bias-free nn.Linear (adapter or wrapper)"
    params = list(model.parameters())
    if len({p.dtype for p in params}) != 1 or len({p.device for p in params}) != 1:
        return "weights of mixed dtype or device"
    if not params[0].is_floating_point():
        return "quantized weights"
    gc = getattr(model, "generation_config", None)
    if gc is not None:
        from transformers import GenerationConfig

        d = GenerationConfig()
        for k in ("repetition_penalty", "encoder_repetition_penalty", "no_repeat_ngram_size", "min_length",
                  "min_new_tokens", "bad_words_ids", "suppress_tokens", "begin_suppress_tokens",
                  "forced_bos_token_id", "forced_eos_token_id", "exponential_decay_length_penalty",
                  "sequence_bias", "renormalize_logits", "stop_strings", "max_time", "num_beams",
                  "guidance_scale", "watermarking_config", "assistant_model"):
            if getattr(gc, k, None) != getattr(d, k, None):
                return f"generation_config.{k} = {getattr(gc, k, None)!r}"
    return None


class Decoder:
    """The model's forward, by hand, over a static KV cache for `batch` rows and `max_len` positions."""

    def __init__(self, model, batch: int, max_len: int):
        import torch

        m, c = model.model, model.config
        self.model_ref = weakref.ref(model)
        self.layers = list(m.layers)
        self.embed, self.norm, self.lm_head = m.embed_tokens, m.norm, model.lm_head
        self.inv_freq = m.rotary_emb.inv_freq
        a0 = self.layers[0].self_attn
        self.hd = a0.head_dim
        self.heads = c.num_attention_heads
        self.kv_heads = c.num_key_value_heads or self.heads
        self.scale = a0.scaling
        self.eps = [(l.input_layernorm.variance_epsilon, l.post_attention_layernorm.variance_epsilon)
                    for l in self.layers]
        self.norm_eps = self.norm.variance_epsilon
        w = self.embed.weight
        self.dtype, self.device = w.dtype, w.device
        self.batch, self.max_len = batch, max_len
        shape = (len(self.layers), batch, self.kv_heads, max_len, self.hd)
        # zeros, not empty: masked slots still enter the attention matmul (0 weight x NaN would be NaN)
        self.k = torch.zeros(shape, dtype=self.dtype, device=self.device)
        self.v = torch.zeros(shape, dtype=self.dtype, device=self.device)

    def weight_ptrs(self) -> tuple:
        ps = [self.embed.weight, self.norm.weight, self.lm_head.weight, self.inv_freq]
        for l in self.layers:
            a, m = l.self_attn, l.mlp
            ps += [l.input_layernorm.weight, l.post_attention_layernorm.weight, a.q_proj.weight, a.k_proj.weight,
                   a.v_proj.weight, a.o_proj.weight, m.gate_proj.weight, m.up_proj.weight, m.down_proj.weight]
        return tuple((p.data_ptr(), p.dtype) for p in ps)

    @staticmethod
    def _rms(x, w, eps):
        import torch

        dt = x.dtype
        h = x.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        return w * h.to(dt)

    def forward(self, ids, pos, slots, mask, kv_len: int | None = None, all_logits: bool = False):
        """Logits (float32) for the last position of `ids` [B, T] (all T with `all_logits`), at positions
        `pos` [B, T], writing keys and values at cache slots `slots` [T] (a long tensor). `mask` [B, 1, T, Lk]
        (bool, True = attend) over the first `kv_len` slots (None: all `max_len`)."""
        import torch
        import torch.nn.functional as F

        B, T = ids.shape
        L = self.max_len if kv_len is None else kv_len
        h = F.embedding(ids, self.embed.weight)
        freqs = pos[..., None].to(torch.float32) * self.inv_freq.to(torch.float32)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos().to(self.dtype)[:, None], emb.sin().to(self.dtype)[:, None]  # [B, 1, T, D]
        half = self.hd // 2
        gqa = self.kv_heads != self.heads
        if mask.dtype == torch.bool:  # once per step, not in each layer's attention call
            mask = torch.zeros(mask.shape, dtype=self.dtype, device=mask.device).masked_fill(~mask, float("-inf"))

        def rope(x):
            rot = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
            return x * cos + rot * sin

        for i, layer in enumerate(self.layers):
            a, mlp = layer.self_attn, layer.mlp
            x = self._rms(h, layer.input_layernorm.weight, self.eps[i][0])
            q = F.linear(x, a.q_proj.weight).view(B, T, self.heads, self.hd).transpose(1, 2)
            k = F.linear(x, a.k_proj.weight).view(B, T, self.kv_heads, self.hd).transpose(1, 2)
            v = F.linear(x, a.v_proj.weight).view(B, T, self.kv_heads, self.hd).transpose(1, 2)
            q, k = rope(q), rope(k)
            kc, vc = self.k[i], self.v[i]
            kc.index_copy_(2, slots, k)
            vc.index_copy_(2, slots, v)
            if L != self.max_len:
                kc, vc = kc[:, :, :L], vc[:, :, :L]
            o = F.scaled_dot_product_attention(q, kc, vc, attn_mask=mask, scale=self.scale, enable_gqa=gqa)
            h = h + F.linear(o.transpose(1, 2).reshape(B, T, self.heads * self.hd), a.o_proj.weight)
            x = self._rms(h, layer.post_attention_layernorm.weight, self.eps[i][1])
            h = h + F.linear(F.silu(F.linear(x, mlp.gate_proj.weight)) * F.linear(x, mlp.up_proj.weight),
                             mlp.down_proj.weight)
        if not all_logits:
            h = h[:, -1:]
        h = self._rms(h, self.norm.weight, self.norm_eps)
        logits = F.linear(h, self.lm_head.weight).to(torch.float32)
        return logits if all_logits else logits[:, 0]


def prefill_inputs(attention_mask):
    """HF's positions (cumsum of the mask minus one; pad positions 0) and the prefill attention mask
    [B, 1, P, P]: causal over real keys, plus each query's own slot, so a pad query attends to itself and
    stays finite (real queries never see a pad key)."""
    import torch

    am = attention_mask.to(torch.bool)
    P = am.shape[1]
    pos = (am.long().cumsum(-1) - 1).masked_fill(~am, 0)
    ar = torch.arange(P, device=am.device)
    causal = ar[None, :] <= ar[:, None]
    mask = (causal[None] & am[:, None, :]) | torch.eye(P, dtype=torch.bool, device=am.device)[None]
    return pos, mask[:, None]


class Runner:
    """The decode state of one batch: the Decoder, its sampling buffers and, on CUDA, the captured step.
    Every per-call value (prompt length, positions, temperature, top-p) lives in a device tensor, so a
    captured graph serves any call with the same batch size, cache length and sampling mode."""

    def __init__(self, model, batch: int, max_len: int, sample: bool, nucleus: bool, stop_ids: list[int],
                 pad: int, use_graph: bool):
        import torch

        self.dec = Decoder(model, batch, max_len)
        dev = self.dec.device
        self.device, self.sample, self.nucleus, self.pad = dev, sample, nucleus, pad
        self.batch, self.max_len = batch, max_len
        V = self.dec.lm_head.weight.shape[0]
        self.vocab = V
        self.ptrs = self.dec.weight_ptrs()
        self.stop = torch.tensor(stop_ids or [-1], dtype=torch.long, device=dev)
        z = dict(device=dev)
        self.tok = torch.zeros(batch, dtype=torch.long, **z)          # last token, fed to the next step
        self.step = torch.zeros(1, dtype=torch.long, **z)             # s: tokens generated so far
        self.t = torch.zeros(1, dtype=torch.long, **z)                # step within the chunk
        self.p = torch.zeros(1, dtype=torch.long, **z)                # padded prompt length P
        self.base = torch.zeros(batch, dtype=torch.long, **z)         # real prompt length per row
        self.prompt_valid = torch.zeros(batch, max_len, dtype=torch.bool, **z)
        self.ar = torch.arange(max_len, **z)
        self.done = torch.zeros(batch, dtype=torch.bool, **z)
        self.temp = torch.ones((), dtype=torch.float32, **z)
        self.top_p = torch.ones((), dtype=torch.float32, **z)
        self.gumbel = torch.zeros(batch, CHUNK, V if sample else 1, dtype=torch.float32, **z)
        self.force = torch.full((CHUNK, batch), -1, dtype=torch.long, **z)
        # the tokens picked: [B, max_len] for a graph (its storage is captured), [B, max_new] per eager call
        self.out = torch.full((batch, max_len), pad, dtype=torch.long, **z) if use_graph else None
        self.graph = None
        self.use_graph = use_graph
        self.record: list | None = None  # eager only (tests): every step's float32 logits, before sampling

    # -- the step -------------------------------------------------------------------------------------
    def pick(self, logits):
        """RowSampler's Gumbel-max (or greedy), then ClosePlan's override, then pad after a stop; records the
        token in `out` at `step` and advances the counters."""
        import torch

        if self.record is not None:
            self.record.append(logits.clone())
        x = logits
        if self.sample:
            x = x / self.temp
            if self.nucleus:
                x = sampling.top_p_filter(x, self.top_p)
            g = self.gumbel.index_select(1, self.t).squeeze(1)  # [B, V]: log(-log(u)), so x - g is RowSampler's
            x = x - g
        nxt = x.argmax(-1)
        f = self.force.index_select(0, self.t).squeeze(0)
        nxt = torch.where(f >= 0, f, nxt)
        nxt = torch.where(self.done, torch.full_like(nxt, self.pad), nxt)
        self.done.logical_or_((nxt[:, None] == self.stop[None]).any(-1))
        self.out.index_copy_(1, self.step, nxt[:, None])
        self.tok.copy_(nxt)
        self.step.add_(1)
        self.t.add_(1)

    def decode_step(self, kv_len: int | None = None):
        """Feed token s-1 (at cache slot P-1+s, position base+s-1), pick token s."""
        slot = self.p + self.step - 1                                # [1]
        pos = (self.base + self.step - 1)[:, None]                   # [B, 1]
        ar = self.ar if kv_len is None else self.ar[:kv_len]
        pv = self.prompt_valid if kv_len is None else self.prompt_valid[:, :kv_len]
        valid = pv | ((ar >= self.p) & (ar <= slot))[None]           # [B, Lk]
        logits = self.dec.forward(self.tok[:, None], pos, slot, valid[:, None, None, :], kv_len)
        self.pick(logits)

    def capture(self):
        """Warm up on a side stream, then capture one decode step. State touched by the warm-up is reset by
        `run` (every per-call buffer is rewritten there)."""
        import torch

        # the warm-up and the capture write cache slot 1 and out[:, 1]: both are rewritten before they are read
        self.p.fill_(1)
        s = torch.cuda.Stream(self.device)
        s.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(s):
            for _ in range(2):
                self.step.fill_(1), self.t.zero_()
                self.decode_step()
        torch.cuda.current_stream(self.device).wait_stream(s)
        self.step.fill_(1), self.t.zero_()
        g = torch.cuda.CUDAGraph()
        # one capture at a time, each on its own stream (torch.cuda.graph's default capture stream is shared by
        # all threads); thread_local: other threads' CUDA calls neither break nor are refused by this capture
        with _capture_lock, torch.cuda.graph(g, stream=torch.cuda.Stream(self.device),
                                             capture_error_mode="thread_local"):
            self.decode_step()
        self.graph = g

    # -- a call -----------------------------------------------------------------------------------------
    def run(self, input_ids, attention_mask, max_new: int, sampler, close) -> "torch.Tensor":
        import torch

        B, P = input_ids.shape
        dev = self.device
        am = attention_mask.to(device=dev, dtype=torch.bool)
        ids = input_ids.to(dev)
        # per-call state
        if self.use_graph:  # the graph captured `self.out`'s storage: reuse it ([B, max_len], max_len > max_new)
            out = self.out
            out.fill_(self.pad)
        else:
            out = self.out = torch.full((B, max_new), self.pad, dtype=torch.long, device=dev)
        self.p.fill_(P)
        self.base.copy_(am.sum(-1))
        self.prompt_valid.zero_()
        self.prompt_valid[:, :P] = am
        self.done.zero_()
        self.step.zero_()
        self.force.fill_(-1)
        if sampler is not None:
            self.temp.fill_(sampler.t)
            self.top_p.fill_(sampler.top_p)
        # prefill: the whole prompt, slots 0..P-1
        pos, mask = prefill_inputs(am)
        slots = torch.arange(P, device=dev)
        logits0 = self.dec.forward(ids, pos, slots, mask, kv_len=P)
        eager_kv = dev.type == "cpu"  # the CPU attends to the filled slots only; CUDA always to all (as the graph)
        hist = torch.full((B, P + max_new), self.pad, dtype=torch.long)  # host copy for ClosePlan (prompt unused)
        zeros = torch.zeros(B, self.vocab) if close is not None else None
        s = 0
        while s < max_new:
            end = min(s + CHUNK, max_new)
            if close is not None:  # a ClosePlan check step is always a chunk's first step
                checks = [n for n in range(s + 1, end) if n >= close.budget and (n - close.budget) % close.every == 0]
                if checks:
                    end = checks[0]
            k = end - s
            if sampler is not None:
                for b, gen in enumerate(sampler.gens):
                    self.gumbel[b, :k].uniform_(0, 1, generator=gen)
                u = self.gumbel[:, :k]
                u.copy_(sampling.gumbel(u))
            if close is not None:
                force = torch.full((k, B), -1, dtype=torch.long)
                for j in range(k):
                    sc = close(hist[:, :P + s + j], zeros)
                    if sc is not zeros:
                        rows = torch.isinf(sc).any(-1)
                        force[j] = torch.where(rows, sc.argmax(-1), -1)
                self.force[:k].copy_(force)
            self.t.zero_()
            for j in range(k):
                if s + j == 0:
                    self.pick(logits0)
                elif self.graph is not None:
                    self.graph.replay()
                else:
                    self.decode_step(P + s + j if eager_kv else None)
            if close is not None:
                self.force[:k].fill_(-1)
            new = out[:, s:end].cpu()
            hist[:, P + s:P + end] = new
            s = end
            if bool(self.done.all()):
                break
        return out[:, :s].cpu() if dev.type != "cpu" else out[:, :s].clone()


def _stop_ids(model) -> list[int]:
    e = getattr(model.generation_config, "eos_token_id", None)
    if e is None:
        e = getattr(model.config, "eos_token_id", None)
    if e is None:
        return []
    return [int(x) for x in (e if isinstance(e, (list, tuple)) else [e])]


def _acquire(key, model):
    with _lock:
        free = _runners.get(key) or []
        while free:
            r = free.pop()
            if key in _order:
                _order.remove(key)
            if r.dec.model_ref() is model and r.ptrs == r.dec.weight_ptrs():
                return r
    return None


def _release(key, r):
    nbytes = r.dec.k.numel() * r.dec.k.element_size() * 2
    if nbytes > CACHE_MAX_BYTES:
        return
    with _lock:
        _runners.setdefault(key, []).append(r)
        _order.append(key)
        while len(_order) > CACHE_RUNNERS:
            old = _order.pop(0)
            lst = _runners.get(old)
            if lst:
                lst.pop(0)
                if not lst:
                    del _runners[old]


def clear() -> None:
    """Drop the cached graph runners (their KV caches and graph memory)."""
    with _lock:
        _runners.clear()
        _order.clear()


def generate(model, input_ids, attention_mask, procs: list, max_new_tokens: int, pad: int | None,
             graph: bool | None = None):
    """The new tokens `[B, steps]` (pad after a row's stop token, as HF's `generate(...)[:, P:]`), or None
    when the fast path does not apply or fails (logged once per model and reason); then the caller runs
    HF `generate` with fresh processors. `procs`: `[RowSampler]?` then `[ClosePlan]?`, as sample_rows builds
    them. `graph`: capture a CUDA graph (default: on CUDA unless TRITONRL_FAST_DECODE=eager)."""
    import torch

    m = mode()
    if m == "off":
        return None
    try:
        reason = unsupported_reason(model)
        if reason is None and pad is None:
            reason = "no pad token id"
        if reason is None and max_new_tokens < 1:
            reason = "max_new_tokens < 1"
        sampler = close = None
        for p in procs:
            if isinstance(p, sampling.RowSampler) and sampler is None and close is None:
                sampler = p
            elif isinstance(p, sampling.ClosePlan) and close is None:
                close = p
            elif reason is None:
                reason = f"logits processor {type(p).__name__}"
        device = next(model.parameters()).device
        if graph is None:
            graph = device.type == "cuda" and m == "graph"
        graph = bool(graph) and device.type == "cuda"
        if reason is None and graph and model in _capture_failed:
            reason = "CUDA graph capture failed earlier for this model"
        if reason is not None:
            _note(model, reason)
            return None
        B, P = input_ids.shape
        if sampler is not None and len(sampler.gens) != B:
            raise Unsupported("sampler rows differ from the batch")
        need = P + max_new_tokens  # slots 0..P+max_new-2 are written; one spare keeps arithmetic simple
        # on CUDA every step attends over all max_len slots (masked), graph or not, so eager and graph agree;
        # rounded up so that one captured graph serves prompts of other lengths
        max_len = -(-need // L_BUCKET) * L_BUCKET if device.type == "cuda" else need
        key = (B, max_len, sampler is not None, sampler is not None and sampler.top_p < 1.0,
               tuple(_stop_ids(model)), int(pad), str(device), model.dtype)
        # computed in the weights' dtype, as HF generate outside autocast does (an RL caller may hold autocast on)
        no_autocast = torch.autocast(device.type, enabled=False) if device.type in ("cuda", "cpu") else nullcontext()
        with torch.no_grad(), no_autocast:
            r = _acquire(key, model) if graph else None
            if r is None:
                r = Runner(model, B, max_len, key[2], key[3], _stop_ids(model), int(pad), graph)
                if graph:
                    try:
                        r.capture()
                    except Exception as e:  # noqa: BLE001 - fall back, say why
                        _capture_failed.add(model)
                        _note(model, f"CUDA graph capture failed: {type(e).__name__}: {e}")
                        return None
            out = r.run(input_ids, attention_mask, max_new_tokens, sampler, close)
            if graph:
                _release(key, r)
            return out
    except Exception as e:  # noqa: BLE001 - the HF path still answers
        _note(model, f"error: {type(e).__name__}: {e}")
        return None

