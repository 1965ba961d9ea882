"""The match pass: literal, value, `|`, capture and wildcard patterns (with guards) become an
if/else chain over a temporary, so a tensor subject stages like an `if` and a Python subject
keeps Python semantics; a match with other patterns stays a Python match whose subject
must not be a tensor (refused naming the line)."""

import enum

import numpy as np
import pytest

import autograph
import autograph.tf as tf


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


def classify(x):
    match x:
        case 0 | 1:
            y = x + 10
        case Color.GREEN:
            y = x * 100
        case None:
            y = -5
        case n if n > 5:
            y = n * 2
        case _:
            y = x * 0 - 1
    return y


@pytest.mark.parametrize("value", [0, 1, 2, 3, 7])
def test_match_on_a_tensor_subject_stages_like_the_python_match(value):
    staged = autograph.function(classify)(tf.constant(value))
    assert staged.numpy() == classify(value)


def test_match_on_a_tensor_builds_if_ops():
    graph = autograph.function(classify).get_concrete_function(tf.constant(3)).graph
    assert "StatelessIf" in {n.op for n in graph.as_graph_def().node}


@pytest.mark.parametrize("value", [0, 1, 2, 3, 7, None])
def test_match_on_a_python_subject_keeps_python_semantics(value):
    assert autograph.to_graph(classify)(value) == classify(value)


def test_the_subject_is_evaluated_once():
    calls = []

    def subject(x):
        calls.append(x)
        return x

    def f(x):
        match subject(x):
            case 1:
                return 10
            case 2:
                return 20
            case _:
                return 0
    out = autograph.function(f)(tf.constant(2))
    assert out.numpy() == 20 and len(calls) == 1


def test_a_return_inside_a_case_is_lowered_like_one_in_an_if():
    def f(x):
        for i in tf.range(5):
            match i:
                case 3:
                    x += 100
                    break
                case _:
                    x += 1
        return x
    assert autograph.function(f)(tf.constant(0)).numpy() == f(0) == 103


def test_an_or_pattern_with_a_capture_binds_the_subject():
    def f(x):
        match x * 2:
            case 2 | 4 as doubled:
                return doubled + 1
            case other:
                return other - 1
    fn = autograph.function(f)
    assert fn(tf.constant(1)).numpy() == 3 and fn(tf.constant(3)).numpy() == 5
    np.testing.assert_equal(autograph.to_graph(f)(2), 5)


def capture_of_a_failed_case(x):
    match x:
        case 1:
            r = 1
        case (2 | 3) as y:
            r = y
        case _:
            r = 0
    return r + y


def capture_read_by_a_guard(x):
    match x:
        case (2 | 3) as y if y > 2:
            r = y * 10
        case 4 as y:
            r = y
        case _:
            r = 0
    return r


@pytest.mark.parametrize("x", [1, 2, 3, 4, 5])
def test_a_capture_under_a_pattern_is_bound_only_when_it_matches(x):
    try:
        expected = capture_of_a_failed_case(x)
    except UnboundLocalError:
        with pytest.raises(UnboundLocalError):
            autograph.to_graph(capture_of_a_failed_case)(x)
        with pytest.raises(UnboundLocalError):
            tf.function(capture_of_a_failed_case)(tf.constant(x))
    else:
        assert autograph.to_graph(capture_of_a_failed_case)(x) == expected
        assert tf.function(capture_of_a_failed_case)(tf.constant(x)).numpy() == expected
    expected = capture_read_by_a_guard(x)
    assert tf.function(capture_read_by_a_guard)(tf.constant(x)).numpy() == expected


@pytest.mark.parametrize("pattern, what, python_subject", [
    ("[a, b]", "a sequence pattern", [3, 4]),
    ("{'k': v}", "a mapping pattern", {"k": 1}),
    ("int(v)", "a class pattern", 7),
])
def test_other_patterns_keep_python_match_and_refuse_a_tensor_subject(tmp_path, pattern, what,
                                                                       python_subject):
    namespace = {}
    source = ("def f(x):\n"
              "    match x:\n"
              "        case 0:\n"
              "            return 0\n"
              "        case %s:\n"
              "            return 1\n"
              "    return 2\n" % pattern)
    path = tmp_path / "patterns.py"
    path.write_text(source)
    exec(compile(source, str(path), "exec"), namespace)
    f = namespace["f"]
    assert "ag__.match_subject(x, %r, " % what in autograph.to_code(f)
    converted = autograph.to_graph(f)
    for subject in (0, python_subject, "other"):
        assert converted(subject) == f(subject)
    with pytest.raises(NotImplementedError, match=r"patterns\.py:5: .*%s" % what):
        autograph.function(f)(tf.constant(3))
