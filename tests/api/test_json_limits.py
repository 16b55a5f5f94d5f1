"""JSON nested deeper than 64 levels (contract 12.10) or holding more than 10,000 values
(app/api/json_limits.py) is found without parsing, so 15 MB of `[` or of `0,` costs next to nothing:
brackets and commas inside strings are text. That every endpoint answers it with 400 MALFORMED_JSON is in
test_middleware.py."""

from __future__ import annotations

import json
import random

import pytest

from app.api.json_limits import MAX_JSON_DEPTH, MAX_JSON_VALUES, holds_more_values_than, nested_deeper_than


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _random_json(rng: random.Random, depth: int) -> object:
    """A document nesting exactly `depth` deep along one branch, with strings full of brackets and
    escapes beside it."""
    if depth == 0:
        return rng.choice(['[[{"', "]]}}", 'a\\"[', "plain", 42, None, True])
    inner = [_random_json(rng, rng.randrange(min(depth, 3))) for _ in range(rng.randrange(3))]
    inner.insert(rng.randrange(len(inner) + 1), _random_json(rng, depth - 1))
    return inner if rng.random() < 0.5 else {f"k{i}]": item for i, item in enumerate(inner)}


@pytest.mark.parametrize("seed", range(40))
def test_finds_the_depth_of_any_document(seed: int) -> None:
    rng = random.Random(seed)
    depth = rng.choice([1, 30, 63, 64, 65, 66, 200])
    document = _random_json(rng, depth)
    assert _depth(document) == depth
    text = json.dumps(document, separators=(",", ":") if seed % 2 else (", ", ": ")).encode()

    assert nested_deeper_than(text, MAX_JSON_DEPTH) is (depth > MAX_JSON_DEPTH)


@pytest.mark.parametrize(
    ("body", "too_deep"),
    [
        (b"[" * 64 + b"]" * 64, False),
        (b"[" * 65 + b"]" * 65, True),
        (b'{"a":' * 65 + b"1" + b"}" * 65, True),
        (b'["' + b"[" * 100 + b'"]', False),  # brackets in a string are text
        (b'["\\"' + b"[" * 100 + b'"]', False),  # ... after an escaped quote too
        (b"]" * 100, False),  # no JSON, but not deep: the parser's to refuse
        (b"[" * 100, True),
    ],
)
def test_counts_only_brackets_outside_strings(body: bytes, too_deep: bool) -> None:
    assert nested_deeper_than(body, MAX_JSON_DEPTH) is too_deep


@pytest.mark.parametrize(
    ("body", "too_wide"),
    [
        (b"[" + b",".join([b"0"] * (MAX_JSON_VALUES + 1)) + b"]", False),  # exactly the limit of commas
        (b"[" + b",".join([b"0"] * (MAX_JSON_VALUES + 2)) + b"]", True),
        (b'{"message": "' + b"," * (MAX_JSON_VALUES * 3) + b'"}', False),  # commas in a string are text
        (rb'["\\", "' + b"," * (MAX_JSON_VALUES * 3) + b'"]', False),  # ... after an escaped backslash too
    ],
)
def test_counts_only_values_outside_strings(body: bytes, too_wide: bool) -> None:
    assert holds_more_values_than(body, MAX_JSON_VALUES) is too_wide
