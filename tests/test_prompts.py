"""The shared prompt and response format: parsing, spans, token offsets, refinement messages."""
import ast

import pytest

from training import prompts as P

GOOD = P.EXAMPLE_RESPONSE


def test_prompt_holds_instruction_example_and_problem():
    msg = P.build_messages("class Model: pass\n")[0]["content"]
    assert "ModelNew" in msg and "Example answer" in msg and msg.rstrip().endswith("class Model: pass\n```")
    raw = P.render(P.build_messages("x = 1\n"))
    assert raw.endswith("### Assistant\n")


def test_parse_good_response_spans():
    r = P.parse_response(GOOD)
    assert r.ok and "elementwise kernel" in r.plan and "class ModelNew" in r.code
    assert GOOD[r.code_span[0]:r.code_span[1]] == r.code
    assert r.plan_span[1] <= r.code_span[0]
    compile(r.code, "candidate.py", "exec")


@pytest.mark.parametrize("text,rule", [
    ("", "empty"),
    ("   \n", "empty"),
    ("<think> plan without end\n```python\nx=1\n```", "unterminated-think"),
    ("<think>p</think> just prose", "no-fence"),
    ("<think>p</think>\n```python\nx = 1\n```\n```python\ny = 2\n```", "several-fences"),
    ("<think>p</think>\n```python\nimport torch\nclass ModelNew", "truncated"),
    ("<think>p</think>\n```python\n\n```", "empty"),
])
def test_malformed_responses_are_named(text, rule):
    r = P.parse_response(text)
    assert not r.ok and r.error == rule and r.message


def test_truncated_flag_wins():
    assert P.parse_response(GOOD, truncated=True).error == "truncated"


def test_token_spans_with_a_trained_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator([GOOD, P.EXAMPLE_PROBLEM] * 20, trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"]))
    r = P.parse_response(GOOD, tokenizer=tok)
    offsets = P.token_offsets(GOOD, tok)
    (ps, pe), (cs, ce) = r.plan_tokens, r.code_tokens
    assert 0 <= ps < pe <= cs < ce <= len(offsets)
    # the tokens of each span cover its characters
    assert offsets[ps][0] <= r.plan_span[0] < offsets[ps][1] + 1 and offsets[pe - 1][1] >= r.plan_span[1]
    assert offsets[cs][0] <= r.code_span[0] and offsets[ce - 1][1] >= r.code_span[1]


def test_feedback_message_names_layer_and_rules():
    v = {"stage": "correctness", "reasons": [{"rule": "output-mismatch", "message": "12 of 99 differ", "line": None}],
         "log_tail": "Traceback\nValueError: boom"}
    m = P.feedback_message(v)
    assert "correctness" in m and "output-mismatch" in m and "boom" in m and "```python" in m


def test_parse_failure_becomes_a_parse_verdict():
    v = P.parse_failure_verdict(P.parse_response("no code here"))
    assert not v.ok and v.stage == "parse" and v.rules == ["no-fence"]


KB_STYLE = '''"""A module docstring."""
import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Simple model that performs a ReLU activation.
    """
    def __init__(self):
        super(Model, self).__init__()
    
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies ReLU.  # not a comment: inside the docstring
        """
        s = "# a string, kept"  # a trailing comment
        # a comment line
        return torch.relu(x) if s else x

def helper():
    """Only a docstring."""

batch_size = 16  # rows
dim = 16384

def get_inputs():
    return [torch.rand(batch_size, dim)]

def get_init_inputs():
    return []  # No special initialization inputs needed
'''


def test_canonical_problem_drops_prose_and_keeps_the_code():
    out = P.canonical_problem(KB_STYLE)
    assert '"""' not in out and "ReLU activation" not in out and "docstring" not in out
    assert "comment" not in out and "rows" not in out and "No special" not in out
    assert 's = "# a string, kept"' in out              # a `#` inside a string is code
    assert "def helper():\n    pass\n" in out           # a body that was only a docstring stays valid
    assert "class Model(nn.Module):\n    def __init__(self):" in out   # no blank line left where it was
    assert "\n    \n" not in out                         # whitespace-only lines are emptied
    ast.parse(out)
    assert [n.__class__ for n in ast.walk(ast.parse(out))].count(ast.FunctionDef) == 5
    assert P.canonical_problem(out) == out         # idempotent
    # the prompt shows the canonical form; broken source is shown as written
    assert out.rstrip() in P.user_message(KB_STYLE) and "ReLU activation" not in P.user_message(KB_STYLE)
    broken = "class Model(nn.Module:\n    # why\n"
    assert P.canonical_problem(broken) == broken
