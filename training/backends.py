"""Model backends behind one small interface: `generate(conversations, config) -> completions`.

- `transformers`: in-process Hugging Face causal LM (CPU or GPU); a LoRA adapter directory works too.
- `vllm`: in-process `vllm.LLM` (optional extra; its absence is a clear message, not a traceback).
- `openai`: any OpenAI-compatible server (`vllm serve`, SGLang, llama.cpp's server, …).
Every backend renders prompts with `training.prompts.render`, the one prompt format.
"""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

from . import prompts
from .checkpoints import meta, prompt_form, resolve

Conversation = Sequence[dict]


class BackendError(RuntimeError):
    """The model cannot be loaded or reached; the message says why."""


@dataclass
class GenerationConfig:
    n: int = 4
    temperature: float = 0.8
    top_p: float = 0.95
    max_new_tokens: int = 2048
    seed: int | None = None


@dataclass
class Completion:
    text: str
    truncated: bool = False          # stopped at max_new_tokens
    prompt: str = ""                 # the rendered prompt (logged with feedback and RL rollouts)
    tokens: int | None = None


class Backend(Protocol):
    model_id: str
    # Whether the model answers a repair conversation (its candidate, then the verifier's findings). When not,
    # a refinement turn asks again with the first prompt and fresh samples (`suggest.run_problem`).
    refines: bool
    # The problem form the model was trained on (`prompts.PROMPT_FORM`, `checkpoints.prompt_form`).
    prompt_form: str

    def generate(self, conversations: Sequence[Conversation], cfg: GenerationConfig) -> list[list[Completion]]:
        """`cfg.n` completions for each conversation."""
        ...


def refines(path: Path) -> bool:
    """False for a checkpoint written by this repo's trainers (a `tritonrl.json` beside the weights) unless it
    says `"multi_turn": true`: the corpus is single-turn, and such a model answers a repair conversation
    with an empty plan (seen: `<think>` then a lone fence, every sample). Any other model: True."""
    m = meta(path)
    return True if m is None else bool(m.get("multi_turn", False))


class TransformersBackend:
    """A Hugging Face causal-LM directory (or a peft LoRA adapter directory) loaded in-process."""

    batch_rows = 64  # sampled rows per batched `generate` call

    def __init__(self, model_path: str, device: str = "auto", dtype: str = "auto"):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as e:  # pragma: no cover - dev installs have it
            raise BackendError(f"the transformers backend needs `pip install transformers` ({e})") from None
        path = resolve(model_path)  # a training run directory loads its newest published checkpoint
        if not path.is_dir():
            raise BackendError(f"model directory not found: {model_path}")
        self.device = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
        if dtype == "auto" and not self.device.startswith("cuda"):
            # bfloat16 weights run in float32 on a CPU: its bf16 matmuls are emulated on most CPUs (1.7x slower
            # sampling on this repo's 2-core machine, benchmarks/results/generation_dtype_cpu.md)
            dtype = torch.float32
        try:
            if (path / "adapter_config.json").exists():
                from peft import AutoPeftModelForCausalLM

                model = AutoPeftModelForCausalLM.from_pretrained(str(path))
            else:
                model = AutoModelForCausalLM.from_pretrained(str(path), torch_dtype=dtype)
            self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        except Exception as e:
            raise BackendError(f"cannot load the model in {model_path}: {type(e).__name__}: {e}") from None
        self.model = model.to(self.device).eval()
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
        self.model_id = str(path.resolve())
        self.refines = refines(path)
        self.prompt_form = prompt_form(path)

    def generate(self, conversations: Sequence[Conversation], cfg: GenerationConfig) -> list[list[Completion]]:
        """All conversations' samples in batched `generate` calls. Each sample has its own random stream
        (`training.sampling`): with a seed, sample j of a prompt is the same whatever it is batched with."""
        import random

        from .sampling import row_seed, sample_rows

        texts = [prompts.render(conv, self.tokenizer) for conv in conversations]
        rows = [(t, j) for t in texts for j in range(cfg.n)]
        rng = random.SystemRandom()
        seeds = [row_seed(cfg.seed, t, j) if cfg.seed is not None else rng.getrandbits(63) for t, j in rows]
        ids = sample_rows(self.model, self.tokenizer, [t for t, _ in rows], seeds, cfg.max_new_tokens,
                          cfg.temperature, cfg.top_p, chunk=self.batch_rows, plan_budget=prompts.PLAN_TOKEN_BUDGET)
        eos = self.tokenizer.eos_token_id
        out: list[list[Completion]] = [[] for _ in texts]
        for k, ((text, _), row) in enumerate(zip(rows, ids)):
            ended = eos is not None and bool(row) and row[-1] == eos
            body = row[:-1] if ended else row
            out[k // cfg.n].append(Completion(self.tokenizer.decode(body, skip_special_tokens=True),
                                              truncated=not ended and len(row) >= cfg.max_new_tokens,
                                              prompt=text, tokens=len(body)))
        return out


class VLLMBackend:
    """In-process vLLM (`pip install 'tritonrl[vllm]'`), coded to vLLM's documented `LLM` API."""

    def __init__(self, model_path: str, **llm_kwargs):
        try:
            from vllm import LLM  # type: ignore
        except ImportError:
            raise BackendError("the vllm backend needs vLLM, which is not installed here "
                               "(pip install vllm on a CUDA machine; or use --backend transformers, "
                               "or --endpoint with a running `vllm serve`)") from None
        lora = Path(model_path, "adapter_config.json").exists()
        self._lora = None
        if lora:
            from vllm.lora.request import LoRARequest  # type: ignore

            base = json.loads(Path(model_path, "adapter_config.json").read_text())["base_model_name_or_path"]
            self.llm = LLM(model=base, enable_lora=True, **llm_kwargs)
            self._lora = LoRARequest("tritonrl", 1, model_path)
        else:
            self.llm = LLM(model=model_path, **llm_kwargs)
        self.tokenizer = self.llm.get_tokenizer()
        self.model_id = str(Path(model_path).resolve())
        self.refines = refines(Path(model_path))
        self.prompt_form = prompt_form(Path(model_path))

    def generate(self, conversations: Sequence[Conversation], cfg: GenerationConfig) -> list[list[Completion]]:
        """Each sample is its own request (token-id prompts, one seed per row as in the transformers backend),
        in two passes for the plan budget (`sampling.sample_with_plan_budget`: vLLM has no per-step hook)."""
        from vllm import SamplingParams  # type: ignore
        from vllm.inputs import TokensPrompt  # type: ignore

        from .sampling import Piece, row_seed, sample_with_plan_budget

        rendered = [prompts.render(c, self.tokenizer) for c in conversations]
        rows = [(t, j) for t in rendered for j in range(cfg.n)]
        prompt_ids = {t: self.tokenizer(t, add_special_tokens=False).input_ids for t in rendered}
        seeds = [None if cfg.seed is None else row_seed(cfg.seed, t, j) for t, j in rows]

        def sample(requests: list) -> list[Piece]:
            params = [SamplingParams(n=1, temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=m,
                                     seed=None if seeds[r] is None else (seeds[r] + k) % (1 << 31))
                      for _, m, r, k in requests]
            results = self.llm.generate([TokensPrompt(prompt_token_ids=p) for p, _, _, _ in requests], params,
                                        lora_request=self._lora)
            return [Piece(list(r.outputs[0].token_ids), r.outputs[0].finish_reason != "length") for r in results]

        pieces = sample_with_plan_budget(sample, [prompt_ids[t] for t, _ in rows],
                                         [prompts.ends_in_plan(t) for t, _ in rows], self.tokenizer,
                                         cfg.max_new_tokens)
        out: list[list[Completion]] = [[] for _ in rendered]
        for k, ((text, _), piece) in enumerate(zip(rows, pieces)):
            out[k // cfg.n].append(Completion(self.tokenizer.decode(piece.ids, skip_special_tokens=True),
                                              truncated=not piece.ended and len(piece.ids) >= cfg.max_new_tokens,
                                              prompt=text, tokens=len(piece.ids)))
        return out


class OpenAIBackend:
    """Any OpenAI-compatible chat-completions server. The key comes from the environment."""

    def __init__(self, base_url: str, model: str, api_key_env: str = "OPENAI_API_KEY", timeout: float = 600):
        self.base_url = base_url.rstrip("/")
        if not self.base_url.endswith("/v1"):
            self.base_url += "/v1"
        self.model_id = model
        self.refines = True  # a served model: assume it follows a conversation
        self.prompt_form = prompts.PROMPT_FORM
        self.api_key = os.environ.get("TRITONRL_API_KEY") or os.environ.get(api_key_env, "")
        self.timeout = timeout

    def _post(self, payload: dict) -> dict:
        req = urllib.request.Request(f"{self.base_url}/chat/completions", data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise BackendError(f"{self.base_url} answered {e.code}: {e.read()[:500].decode(errors='replace')}") from None
        except (urllib.error.URLError, OSError) as e:
            raise BackendError(f"cannot reach {self.base_url}: {e}") from None

    def generate(self, conversations: Sequence[Conversation], cfg: GenerationConfig) -> list[list[Completion]]:
        out = []
        for conv in conversations:
            payload = {"model": self.model_id, "messages": list(conv), "n": cfg.n, "temperature": cfg.temperature,
                       "top_p": cfg.top_p, "max_tokens": cfg.max_new_tokens}
            if cfg.seed is not None:
                payload["seed"] = cfg.seed
            data = self._post(payload)
            prompt = prompts.render(conv)
            out.append([Completion(c["message"].get("content") or "", truncated=c.get("finish_reason") == "length",
                                   prompt=prompt) for c in data.get("choices", [])])
        return out


def load_backend(model: str | None = None, backend: str = "auto", endpoint: str | None = None,
                 served_model: str | None = None, device: str = "auto") -> Backend:
    """Pick a backend from command-line style options."""
    if endpoint:
        return OpenAIBackend(endpoint, served_model or model or "default")
    if not model:
        from . import default_model

        embedded = default_model.path()
        if embedded is None:
            raise BackendError("no model given and this install has no embedded default model "
                               f"({default_model.DIR}): pass --model CKPT (a Hugging Face model directory) "
                               "or --endpoint URL")
        model = str(embedded)
    if backend == "vllm":
        return VLLMBackend(model)
    if backend in ("auto", "transformers"):
        return TransformersBackend(model, device=device)
    raise BackendError(f"unknown backend {backend!r} (transformers, vllm, or --endpoint for openai)")
