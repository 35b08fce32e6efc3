"""Trainer callbacks shared by `training.sft` and `training.rl`."""
from __future__ import annotations

import time

from transformers import TrainerCallback


def _any_rank(flag: bool) -> bool:
    """True when `flag` is true on any process (one tiny all-reduce under torch.distributed, else
    `flag`): a decision every rank must take together, or the ones that go on wait forever in the
    next collective for the ones that stopped."""
    import torch
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return flag
    device = torch.device("cuda", torch.cuda.current_device()) if dist.get_backend() == "nccl" else torch.device("cpu")
    t = torch.tensor([1.0 if flag else 0.0], device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return bool(t.item() > 0)


class TimeLimit(TrainerCallback):
    """Stop training (and save a checkpoint) before the step that would end past `minutes` of wall time since
    `train()` began, or past the clock time `until`: a budgeted run on a lent GPU ends cleanly with a final model
    (and time left for its evaluation) instead of being killed. The next step is taken to last as long as the
    last one (an RL step on an H100 takes ~100 s: a check only for "already over" let a step start 30 s before
    the end and the call's hard stop killed it before the final save, 2026-12-07).
    Under `accelerate launch` the ranks stop at the same step (the first rank over the limit decides)."""

    def __init__(self, minutes: float | None = None, until: float | None = None):
        self.limit_s = None if minutes is None else minutes * 60
        self.until = until  # an absolute wall-clock time (time.time()) as well, for a budget shared with other work
        self.t0: float | None = None
        self.last_end: float | None = None  # when the last step ended (train() began, before the first)

    def on_train_begin(self, args, state, control, **kw):
        self.t0 = self.last_end = time.time()

    def _over(self) -> bool:
        now = time.time()
        step_s = now - (self.last_end or self.t0 or now)  # the step that just ended
        self.last_end = now
        ends = now + step_s  # when the next step would end
        return ((self.limit_s is not None and self.t0 is not None and ends - self.t0 > self.limit_s)
                or (self.until is not None and ends > self.until))

    def on_step_end(self, args, state, control, **kw):
        if _any_rank(self._over()):
            control.should_training_stop = True
            control.should_save = True
        return control
