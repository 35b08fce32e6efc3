"""The pipeline the language server and the trainer share: module -> problem -> prompt -> n
candidates -> parse -> verify in parallel -> ranked suggestions, with refinement turns.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

from verifier import ReferenceRun, Verdict, VerifyConfig, verify_batch

from . import prompts
from .backends import Backend, GenerationConfig
from .extract import extract_problem


@dataclass
class Candidate:
    turn: int
    response: str
    prompt: str
    code: str
    verdict: Verdict

    @property
    def label(self) -> str:
        v = self.verdict
        if v.ok:
            return f"verified, {v.speedup:.2f}x" if v.speedup else "verified (speed not measured)"
        return f"{v.stage}: {v.reasons[0].rule if v.reasons else '?'}"


@dataclass
class SuggestResult:
    problem: str
    model_id: str
    candidates: list[Candidate] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def verified(self) -> list[Candidate]:
        return rank([c for c in self.candidates if c.verdict.ok])

    @property
    def best(self) -> Candidate | None:
        v = self.verified
        return v[0] if v else None


_STAGE_ORDER = {s: i for i, s in enumerate(("parse", "static", "sandbox", "launch", "correctness", "performance",
                                            "done"))}


def _score(c: Candidate) -> tuple:
    v = c.verdict
    return (v.ok, v.speedup if v.speedup is not None else 0.0, _STAGE_ORDER.get(v.stage, 0),
            v.trials.get("passed", 0))


def rank(cands: list[Candidate]) -> list[Candidate]:
    """Verified first, fastest first; then the ones that got furthest through the layers."""
    return sorted(cands, key=_score, reverse=True)


Progress = Callable[[str, dict], None]


def run_problem(problem: str, backend: Backend, n: int = 4, turns: int = 2, gen: GenerationConfig | None = None,
                verify_cfg: VerifyConfig | None = None, progress: Progress | None = None) -> SuggestResult:
    """Generate and verify candidates for a KernelBench-format problem; refine while none verifies: with the
    verifier's findings when the backend `refines`, else with fresh samples of the same prompt.

    `progress(event, info)` hears: "generating", "verifying", "candidate" (where candidate i is), "verdict"
    (info["candidate"], the `Candidate` with its final verdict, as soon as it is known; info["pending"],
    how many of the turn's candidates are still being verified) and "turn-done"."""
    t0 = time.monotonic()
    progress = progress or (lambda event, info: None)
    gen = gen or GenerationConfig(n=n)
    gen.n = n
    res = SuggestResult(problem=problem, model_id=getattr(backend, "model_id", "?"))
    conv = prompts.build_messages(problem, getattr(backend, "prompt_form", prompts.PROMPT_FORM))
    for turn in range(turns):
        # the problem's reference runs in its sandbox while the model writes this turn's candidates (fresh
        # inputs each turn); the verifier holds it back where running it now would skew a GPU timing
        ahead = ReferenceRun(problem, verify_cfg)
        try:
            progress("generating", {"turn": turn + 1, "n": n})
            comps = backend.generate([conv], gen)[0]
            parsed = [prompts.parse_response(c.text, truncated=c.truncated) for c in comps]
            todo = [i for i, p in enumerate(parsed) if p.ok]
            progress("verifying", {"turn": turn + 1, "n": len(todo), "parse_failed": len(parsed) - len(todo)})

            def candidate(k: int, phase: str, turn: int = turn + 1, n_todo: int = len(todo)) -> None:
                progress("candidate", {"turn": turn, "i": k + 1, "n": n_todo, "phase": phase})

            done: dict[int, Candidate] = {}

            def verdict(k: int, v: Verdict, turn: int = turn + 1, n_todo: int = len(todo)) -> None:
                i = todo[k]
                done[i] = Candidate(turn, comps[i].text, comps[i].prompt, parsed[i].code, v)
                # as soon as it is known: a caller may offer a verified kernel while the others still run
                progress("verdict", {"turn": turn, "candidate": done[i], "pending": n_todo - len(done)})

            if todo:
                verify_batch(problem, [parsed[i].code for i in todo], verify_cfg, progress=candidate,
                             reference=ahead, on_verdict=verdict)
        finally:
            ahead.close()
        turn_cands = [done.get(i) or Candidate(turn + 1, c.text, c.prompt, p.code, prompts.parse_failure_verdict(p))
                      for i, (c, p) in enumerate(zip(comps, parsed))]
        res.candidates += turn_cands
        progress("turn-done", {"turn": turn + 1, "verified": sum(c.verdict.ok for c in turn_cands)})
        if any(c.verdict.ok for c in turn_cands) or turn + 1 == turns:
            break
        if getattr(backend, "refines", True):  # repair: the best candidate and what the verifier found
            best = rank(turn_cands)[0]
            conv = list(conv) + [{"role": "assistant", "content": best.response},
                                 {"role": "user", "content": prompts.feedback_message(best.verdict)}]
        else:  # a single-turn model: the same prompt again, other samples (a seeded run stays reproducible)
            gen = replace(gen, seed=None if gen.seed is None else gen.seed + 7919 * (turn + 1))
    res.elapsed_s = time.monotonic() - t0
    return res


def suggest(source: str, class_name: str, backend: Backend, **kw) -> SuggestResult:
    """`run_problem` on the problem built from a user's file (raises ExtractError / NeedsInputs)."""
    return run_problem(extract_problem(source, class_name), backend, **kw)
