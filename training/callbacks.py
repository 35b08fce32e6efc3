"""Trainer callbacks shared by `training.sft` and `training.rl`."""
from __future__ import annotations

import time

from transformers import TrainerCallback


class TimeLimit(TrainerCallback):
    """Stop training (and save a checkpoint) once `minutes` of wall time have passed since `train()`
    began: a budgeted run on a lent GPU ends cleanly with a final model instead of being killed."""

    def __init__(self, minutes: float):
        self.limit_s = minutes * 60
        self.t0: float | None = None

    def on_train_begin(self, args, state, control, **kw):
        self.t0 = time.time()

    def on_step_end(self, args, state, control, **kw):
        if self.t0 is not None and time.time() - self.t0 > self.limit_s:
            control.should_training_stop = True
            control.should_save = True
        return control
