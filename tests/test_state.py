"""State kept across forward calls: a candidate may keep it only where the reference does.

A kernel can write into a tensor the module keeps (a buffer, a plain tensor attribute, a module-level
tensor) where no static rule sees it: a call counter that stops the work after the checked calls, a
cache of an earlier result. The workers snapshot those tensors around each configuration's trials;
a change fails the candidate unless the reference's own forward changes the same state (batch norm's
running statistics in training mode, say)."""
from conftest import CORPUS
from verifier import verify

RELU = (CORPUS / "problems" / "relu.py").read_text()
COUNTER = (CORPUS / "cheats" / "relu__counter_in_module_buffer.py").read_text()
HONEST = (CORPUS / "honest" / "relu__helper_launcher.py").read_text()

STATEFUL_RELU = RELU.replace('''    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)''', '''    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x):
        self.calls += 1  # like batch norm's running statistics: a side effect, not part of the output
        return torch.relu(x)''')

# an honest ReLU that computes every call, but through a scratch buffer it keeps in the module
SCRATCH = HONEST.replace('''    def __init__(self):
        super().__init__()

    def forward(self, x):
        return triton_relu(x)''', '''    def __init__(self):
        super().__init__()
        self.register_buffer("last_numel", torch.zeros(1, dtype=torch.int64))

    def forward(self, x):
        y = triton_relu(x)
        _note_numel[(1,)](self.last_numel, x.numel())
        return y


@triton.jit
def _note_numel(p, n):
    tl.store(p, n)''')


def test_a_counter_in_a_module_buffer_fails_where_the_reference_keeps_no_state():
    v = verify(RELU, COUNTER, device="cpu")
    assert not v.ok and v.rules == ["state-in-forward"] and "calls" in v.summary(), v.summary()


# the scratch-buffer ReLU that also counts its calls in a `calls` buffer, as the stateful reference does
COUNTING = SCRATCH.replace(
    'self.register_buffer("last_numel", torch.zeros(1, dtype=torch.int64))',
    'self.register_buffer("last_numel", torch.zeros(1, dtype=torch.int64))\n'
    '        self.register_buffer("calls", torch.zeros(1))').replace(
    "_note_numel[(1,)](self.last_numel, x.numel())",
    "_note_numel[(1,)](self.last_numel, x.numel())\n        _count[(1,)](self.calls)") + (
    "\n\n@triton.jit\ndef _count(p):\n    tl.store(p, tl.load(p) + 1.0)\n")


# the honest ReLU counting its calls in a `calls` buffer, as the stateful reference does, and nothing else
ONLY_CALLS = HONEST.replace('''    def __init__(self):
        super().__init__()

    def forward(self, x):
        return triton_relu(x)''', '''    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x):
        y = triton_relu(x)
        _count[(1,)](self.calls)
        return y


@triton.jit
def _count(p):
    tl.store(p, tl.load(p) + 1.0)''')


def test_state_is_allowed_where_the_reference_keeps_it_and_must_match_it():
    """The state a stateful reference keeps, the candidate must keep the same way: a tensor of the same name that ends
    where the reference's does after as many calls (batch norm's running statistics; here a call count). State of its
    own beside it (a scratch buffer) is state kept across calls as it is for a stateless reference: until
    2026-12-06 any state passed next to a stateful reference's, and a step counter that switched BatchNorm to a wrong
    path after 40 calls verified (red-teaming; cheats/batchnorm_train__hidden_call_counter_time_bomb.py)."""
    assert STATEFUL_RELU != RELU and ONLY_CALLS.count("_count") == 2 and COUNTING.count("_count") == 2
    v = verify(STATEFUL_RELU, ONLY_CALLS, device="cpu")
    assert v.ok, v.summary()
    v = verify(STATEFUL_RELU, COUNTING, device="cpu")
    assert not v.ok and v.rules == ["state-in-forward"] and "last_numel" in v.summary(), v.summary()
    for src in (SCRATCH, HONEST):  # a `calls` buffer forward leaves alone, or none
        v = verify(STATEFUL_RELU, src, device="cpu")
        assert not v.ok and "state-mismatch" in v.rules and "calls" in v.summary(), v.summary()


def test_a_kept_scratch_buffer_is_state_and_the_message_says_what_to_do():
    assert SCRATCH != HONEST
    v = verify(RELU, SCRATCH, device="cpu")
    assert not v.ok and v.rules == ["state-in-forward"], v.summary()
    assert "last_numel" in v.summary() and "forward's own allocations" in v.summary()


def test_python_state_fingerprint_sees_aliases_iterators_and_versions():
    """Round 5 (no sandbox): the worker's fingerprint of the Python state the module and its globals reach, and of the
    kept tensors' version counters and layouts."""
    import torch

    from verifier._worker_util import python_state, python_state_changes, tensor_versions, versions_moved

    class Holder:
        pass

    h, it, box = Holder(), iter(range(10)), [0]
    h.calls = 0
    g = {"h": h, "it": it, "box": box, "t": torch.zeros(1)}
    for change in (lambda: setattr(h, "calls", 1), lambda: next(it), lambda: box.append(1)):
        before = python_state([g])
        assert python_state_changes(before, python_state([g])) == []
        change()
        assert python_state_changes(before, python_state([g]))
    big = {"pad": [[i] for i in range(200_001)]}  # state could hide past what the walk reads
    assert python_state_changes(python_state([big]), python_state([big]))
    assert python_state_changes(python_state([big]), python_state([big]), strict=False) == []
    rec = tensor_versions({"t": g["t"]})
    assert versions_moved(rec) == []
    g["t"].zero_()  # same values, version counter moved
    assert versions_moved(rec)
    rec = tensor_versions({"t": g["t"]})
    g["t"].data = g["t"].data.as_strided((1,), (3,))  # no version bump: the strides moved
    assert versions_moved(rec)


# an honest ReLU whose forward sets off warnings charged to the candidate's own code: torch's UserWarning (copying a
# tensor through torch.tensor) and a ResourceWarning (a file object dropped unclosed). Python's warnings machinery
# records them in the module's `__warningregistry__`, which is not state the candidate keeps (CI failure of stop 27).
WARNER = HONEST.replace('''    def forward(self, x):
        return triton_relu(x)''', '''    def forward(self, x):
        y = triton_relu(torch.tensor(x))
        open("/tmp/scratch", "w")  # dropped at once, unclosed: the ResourceWarning is charged to this frame
        return y''')


def test_warnings_charged_to_the_candidate_are_not_state_it_keeps():
    assert WARNER != HONEST
    v = verify(RELU, WARNER, device="cpu", static_checks=False, trials=2)  # open() is a static finding of its own
    assert v.ok, v.summary()


def test_the_warnings_registry_is_refused_by_name():
    from verifier.static_check import check_candidate

    src = HONEST.replace("def forward(self, x):\n", "def forward(self, x):\n        __warningregistry__['n'] = 1\n")
    assert src != HONEST
    assert "reflection" in {f.rule for f in check_candidate(src)}
