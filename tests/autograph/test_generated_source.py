"""The text `to_code` shows is pinned, byte for byte, for functions that use every converter:
a change meant to leave generated code alone (speed, refactoring) keeps these texts.
After a deliberate change to generated code, rewrite the files in generated_source/ with
`python tests/autograph/test_generated_source.py`."""

import pathlib
import sys

import pytest

import autograph
import autograph.tf as tf

EXPECTED = pathlib.Path(__file__).with_name("generated_source")
THIS_FILE = str(pathlib.Path(__file__).resolve())


def loops_and_jumps(x, n):
    total = tf.zeros_like(x)
    scale = tf.constant(1.0)
    for i in tf.range(n):
        if i % 3 == 0:
            total = total + x * scale
        elif i % 3 == 1:
            total = total - x
        else:
            total = tf.tanh(total)
        scale = scale * 0.9
        if tf.reduce_max(total) > 12.0:
            break
    y = tf.abs(total) + 1.0
    while tf.reduce_sum(y) > 1.0:
        y = y * 0.5
    acc = tf.zeros_like(x)
    for j in tf.range(n):
        if j % 2 == 0:
            continue
        acc = acc + total
    if tf.reduce_sum(acc) > 0:
        return acc - total
    return y * scale


def composites_and_containers(x, s, items, n):
    d = {"v": 0}
    if x > 0:
        d["v"] = x
        s.total = s.total + x
        items.pop()
    for i in range(n):
        s.counts[i % 2] += 1
        del items[0]
    return d["v"] + s.total + len(items)


def expressions_and_closures(x, flags):
    scale = 2.0

    def scaled(v):
        return v * scale
    y = scaled(x) if x > 0 else -x
    ok = x > 0 and flags[0] or not flags[1]
    assert x is not None, "x is needed"
    while x < 10 and ok:
        x = x + 1
    match flags:
        case [True, _]:
            y = y + 1
        case _:
            y = y - 1
    return 0 < y < 100, [v * scale for v in flags]


FUNCTIONS = [loops_and_jumps, composites_and_containers, expressions_and_closures]


def shown(function):
    return autograph.to_code(function).replace(THIS_FILE, "<this file>")


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_to_code_shows_the_pinned_text(function):
    expected = (EXPECTED / (function.__name__ + ".txt")).read_text(encoding="utf-8")
    assert shown(function) == expected


if __name__ == "__main__":
    EXPECTED.mkdir(exist_ok=True)
    for function in FUNCTIONS:
        (EXPECTED / (function.__name__ + ".txt")).write_text(shown(function), encoding="utf-8")
    sys.exit(0)
