"""The result of verifying one candidate: what passed, what failed, and why."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

# Layers in the order they run; a verdict's `stage` is the first that failed, or "done".
STAGES = ("parse", "static", "sandbox", "launch", "correctness", "performance")
# Rules that reject without judging the kernel: the GPU, shared with other processes, ran out of memory. Still a
# rejection (nothing unverified is ever offered), but a trainer leaves such a candidate unscored and may retry it.
INCONCLUSIVE_RULES = frozenset({"gpu-out-of-memory"})


@dataclass
class Finding:
    """One reason a candidate was rejected (or flagged), named by its rule."""

    stage: str
    rule: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"[{self.stage}/{self.rule}]{where} {self.message}"


@dataclass
class Verdict:
    """Everything the verifier knows about one candidate.

    `ok` is True only when every layer passed; `stage` names the first failing layer or "done".
    Timing fields are None on CPU (the interpreter measures nothing meaningful).
    """

    ok: bool = False
    stage: str = "parse"
    reasons: list[Finding] = field(default_factory=list)
    flags: list[Finding] = field(default_factory=list)
    trials: dict[str, int] = field(default_factory=lambda: {"passed": 0, "run": 0})
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    shapes: list[dict[str, Any]] = field(default_factory=list)
    device: str = "cpu"
    kernels: list[str] = field(default_factory=list)
    time_ms: float | None = None
    ref_eager_ms: float | None = None
    ref_compile_ms: float | None = None
    speedup: float | None = None
    speedup_compile: float | None = None
    isolation: str = ""
    elapsed_s: float = 0.0   # from the start of its batch (verify_batch) to this verdict
    # where elapsed_s went, seconds: reference (the problem's own run, shared by a batch), worker (waiting
    # for a sandbox), lock (waiting for the GPU), correctness (import, compile and every trial, as the
    # supervisor saw it), import and first_trial (inside the sandbox: the first trial includes Triton's
    # compile), timing_lock and timing (GPU only)
    phases_s: dict[str, float] = field(default_factory=dict)
    # the timing phase's own checks: outputs of timed calls compared ("checked") and untimed audit calls
    # hidden among them ("audits"); empty when nothing was timed
    timed_calls: dict[str, int] = field(default_factory=dict)
    log_tail: str = ""

    def fail(self, stage: str, rule: str, message: str, line: int | None = None) -> "Verdict":
        self.ok = False
        self.stage = stage
        self.reasons.append(Finding(stage, rule, message, line))
        return self

    @property
    def rules(self) -> list[str]:
        return [r.rule for r in self.reasons]

    @property
    def inconclusive(self) -> bool:
        """Rejected only for a reason that says nothing about the kernel (INCONCLUSIVE_RULES)."""
        return not self.ok and bool(self.reasons) and all(r.rule in INCONCLUSIVE_RULES for r in self.reasons)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), allow_nan=False, default=str)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Verdict":
        d = dict(d)
        d["reasons"] = [Finding(**r) for r in d.get("reasons", [])]
        d["flags"] = [Finding(**r) for r in d.get("flags", [])]
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def summary(self) -> str:
        """A short human-readable report."""
        lines = []
        head = "VERIFIED" if self.ok else f"REJECTED at {self.stage}"
        lines.append(f"{head}  (device {self.device}, trials {self.trials['passed']}/{self.trials['run']}, "
                     f"{self.elapsed_s:.1f}s, isolation {self.isolation or 'n/a'})")
        for r in self.reasons:
            lines.append(f"  - {r}")
        for f in self.flags:
            lines.append(f"  ! {f}")
        if self.max_abs_err is not None:
            lines.append(f"  max abs err {self.max_abs_err:.3g}, max rel err {self.max_rel_err:.3g}")
        if self.kernels:
            lines.append(f"  kernels launched: {', '.join(self.kernels)}")
        if self.shapes:
            shp = "; ".join(f"{s['label']}: {s['inputs']}" for s in self.shapes)
            lines.append(f"  shapes: {shp}")
        if self.speedup is not None:
            comp = f", {self.speedup_compile:.2f}x vs torch.compile" if self.speedup_compile else ""
            lines.append(f"  {self.time_ms:.3f} ms vs eager {self.ref_eager_ms:.3f} ms: "
                         f"{self.speedup:.2f}x{comp}")
            if self.timed_calls:
                lines.append(f"  timed calls: {self.timed_calls.get('checked', 0)} outputs checked, "
                             f"{self.timed_calls.get('audits', 0)} audit calls among them")
        elif self.ok:
            lines.append("  speed not measured (CPU interpreter: correctness only)")
        return "\n".join(lines)
