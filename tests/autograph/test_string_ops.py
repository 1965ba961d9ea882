"""tf.strings and tf.io.decode_csv: values as TensorFlow 2.21 gives them (checked by hand
against it), eagerly and traced in a tf.function; ragged results as RaggedTensors."""

import numpy as np
import pytest
from op_checks import values_test

import autograph.tf as tf


def _plain(value):
    """A result as nested Python lists (bytes for strings)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, tf.RaggedTensor):
        return value.to_list()
    return np.asarray(value.numpy()).tolist()


HELLO = ["hello world", "", "  a  b "]

CASES = {
    "split_whitespace": (lambda: tf.strings.split(HELLO),
                         [[b"hello", b"world"], [], [b"a", b"b"]]),
    "split_sep_keeps_empty_pieces": (lambda: tf.strings.split(["1<>2<><>3", ""], sep="<>"),
                                     [[b"1", b"2", b"", b"3"], [b""]]),
    "split_maxsplit": (lambda: tf.strings.split(["a,b,c,d"], sep=",", maxsplit=2),
                       [[b"a", b"b", b"c,d"]]),
    "split_scalar_is_dense": (lambda: tf.strings.split("a b"), [b"a", b"b"]),
    "split_matrix_is_ragged_rank_2": (
        lambda: tf.strings.split([["a b", "c"], ["d", "e f g"]]),
        [[[b"a", b"b"], [b"c"]], [[b"d"], [b"e", b"f", b"g"]]]),
    "bytes_split": (lambda: tf.strings.bytes_split(["hé", ""]),
                    [[b"h", b"\xc3", b"\xa9"], []]),
    "unicode_split": (lambda: tf.strings.unicode_split(["hé", "ab"], "UTF-8"),
                      [[b"h", "é".encode()], [b"a", b"b"]]),
    "unicode_decode": (lambda: tf.strings.unicode_decode(["hé", "ab"], "UTF-8"),
                       [[104, 233], [97, 98]]),
    "unicode_decode_replaces_bad_bytes": (
        lambda: tf.strings.unicode_decode([b"a\xffb"], "UTF-8"), [[97, 65533, 98]]),
    "unicode_decode_ignores_bad_bytes": (
        lambda: tf.strings.unicode_decode([b"a\xffb"], "UTF-8", errors="ignore"), [[97, 98]]),
    "unicode_decode_scalar": (lambda: tf.strings.unicode_decode("hé", "UTF-8"), [104, 233]),
    "unicode_encode_ragged": (
        lambda: tf.strings.unicode_encode(tf.ragged.constant([[104, 233], [97]]), "UTF-8"),
        ["hé".encode(), b"a"]),
    "unicode_encode_dense_utf16": (
        lambda: tf.strings.unicode_encode([104, 233], "UTF-16-BE"), b"\x00h\x00\xe9"),
    "unicode_transcode": (
        lambda: tf.strings.unicode_transcode(["hé"], "UTF-8", "UTF-16-BE"),
        [b"\x00h\x00\xe9"]),
    "substr": (lambda: tf.strings.substr(["hello", "world"], 1, 3), [b"ell", b"orl"]),
    "substr_negative_pos": (lambda: tf.strings.substr(["hello"], -3, 2), [b"ll"]),
    "substr_at_the_end": (lambda: tf.strings.substr(["hello"], 5, 2), [b""]),
    "substr_utf8_chars": (lambda: tf.strings.substr(["héllo"], 1, 2, unit="UTF8_CHAR"),
                          ["él".encode()]),
    "substr_broadcasts_pos_and_len": (
        lambda: tf.strings.substr(["hello", "world"], [1, 2], [2, 3]), [b"el", b"rld"]),
    "ngrams": (lambda: tf.strings.ngrams(["a", "b", "c", "d"], 2), [b"a b", b"b c", b"c d"]),
    "ngrams_ragged": (lambda: tf.strings.ngrams(tf.ragged.constant([["a", "b", "c"], ["d"]]),
                                                2), [[b"a b", b"b c"], []]),
    "ngrams_padded": (lambda: tf.strings.ngrams(["a", "b", "c"], 3, pad_values=("LP", "RP"),
                                                padding_width=1),
                      [b"LP a b", b"a b c", b"b c RP"]),
    "ngrams_preserve_short": (
        lambda: tf.strings.ngrams(tf.ragged.constant([["a", "b", "c"], ["d"]]), 3,
                                  preserve_short_sequences=True), [[b"a b c"], [b"d"]]),
    "ngrams_several_widths": (lambda: tf.strings.ngrams(["a", "b", "c"], (1, 2)),
                              [b"a", b"b", b"c", b"a b", b"b c"]),
    "regex_full_match": (lambda: tf.strings.regex_full_match(["abc", "abd1"], "ab[a-z]"),
                         [True, False]),
    "regex_replace_groups": (
        lambda: tf.strings.regex_replace(["hello world"], r"(\w+) (\w+)", r"\2 \1 \0"),
        [b"world hello hello world"]),
    "regex_replace_first_only": (
        lambda: tf.strings.regex_replace(["hello world"], "o", "0", replace_global=False),
        [b"hell0 world"]),
    "lower_ascii_only": (lambda: tf.strings.lower(["HÉllo"]), ["hÉllo".encode()]),
    "lower_utf8": (lambda: tf.strings.lower(["HÉllo"], encoding="utf-8"), ["héllo".encode()]),
    "upper": (lambda: tf.strings.upper(["héllo"]), ["HéLLO".encode()]),
    "strip": (lambda: tf.strings.strip([" \t a b \n", "x"]), [b"a b", b"x"]),
    "to_number_float": (lambda: tf.strings.to_number(["1.5", "-2", " 3", "1e3"]),
                        [1.5, -2.0, 3.0, 1000.0]),
    "to_number_int64": (lambda: tf.strings.to_number(["12 ", "-3"], tf.int64), [12, -3]),
    "as_string_float": (lambda: tf.strings.as_string([1.5, 1e-7, 3.14159265]),
                        [b"1.500000", b"0.000000", b"3.141593"]),
    "as_string_precision": (lambda: tf.strings.as_string([3.14159265], precision=2),
                            [b"3.14"]),
    "as_string_scientific": (lambda: tf.strings.as_string([3.14159265], scientific=True),
                             [b"3.141593e+00"]),
    "as_string_shortest": (lambda: tf.strings.as_string([3.14159265, 1e20], shortest=True),
                           [b"3.14159", b"1e+20"]),
    "as_string_width_fill": (lambda: tf.strings.as_string([7, 42], width=4, fill="0"),
                             [b"0007", b"0042"]),
    "as_string_bool": (lambda: tf.strings.as_string([True, False]), [b"true", b"false"]),
    "as_string_nonfinite": (
        lambda: tf.strings.as_string([float("nan"), float("inf"), -float("inf")]),
        [b"nan", b"inf", b"-inf"]),
    "reduce_join_all": (lambda: tf.strings.reduce_join([["a", "b"], ["c", "d"]]), b"abcd"),
    "reduce_join_axis": (lambda: tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=-1,
                                                        separator="-"), [b"a-b", b"c-d"]),
    "reduce_join_keepdims": (
        lambda: tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=0, keepdims=True),
        [[b"ac", b"bd"]]),
    "decode_csv": (lambda: tf.io.decode_csv(["1,2.5,x", '3,,"y,z"'], [[0], [0.0], ["d"]]),
                   [[1, 3], [2.5, 0.0], [b"x", b"y,z"]]),
    "decode_csv_select_cols": (
        lambda: tf.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[0, 2]), [[1], [3]]),
    "decode_csv_na_value_and_delim": (
        lambda: tf.io.decode_csv(["NA;2"], [[5], [0]], field_delim=";", na_value="NA"),
        [[5], [2]]),
    "decode_csv_doubled_quote": (lambda: tf.io.decode_csv(['"a""b",2'], [["q"], [0]]),
                                 [[b'a"b'], [2]]),
    "decode_csv_scalar": (lambda: tf.io.decode_csv("1,2", [[5], [0]]), [1, 2]),
}


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_string_op_values(name, traced):
    fn, want = CASES[name]
    run = tf.function(fn, autograph=False) if traced else fn
    assert _plain(run()) == want


def test_split_gives_a_ragged_tensor_with_a_ragged_dimension():
    rt = tf.strings.split(["a b", "c"])
    assert isinstance(rt, tf.RaggedTensor)
    assert rt.shape.as_list() == [2, None] and rt.dtype == tf.string


def test_length_in_units_after_split():
    words = tf.strings.split("héllo wörld")
    assert tf.strings.length(words, unit="UTF8_CHAR").numpy().tolist() == [5, 5]
    assert tf.strings.length(words).numpy().tolist() == [6, 6]


def test_format_with_a_split_result():
    assert tf.strings.format("{}", tf.strings.split("a b")).numpy() == b'["a" "b"]'


VALUES = {
    # name: (function of string tensors, inputs, numpy reference of the same inputs)
    "strings_join": (lambda a: tf.strings.join([a, "!"], separator=" "),
                     [np.array(["héllo", "x"], object)],
                     lambda a: np.array(["héllo !".encode(), b"x !"], object)),
    "strings_length": (lambda a: tf.strings.length(a), [np.array(["héllo", ""], object)],
                       lambda a: np.array([6, 0], np.int32)),
    "strings_length_chars": (lambda a: tf.strings.length(a, unit="UTF8_CHAR"),
                             [np.array(["héllo", ""], object)],
                             lambda a: np.array([5, 0], np.int32)),
    "strings_format": (lambda x: tf.strings.format("x: {}!", x),
                       [np.arange(10, dtype=np.int32)],
                       lambda x: np.array(b"x: [0 1 2 ... 7 8 9]!", object)),
}


test_values_match_numpy = values_test(VALUES, keeps_input_dtype=lambda name: False)


ERRORS = {
    "substr_pos_out_of_range": (lambda: tf.strings.substr(["hello"], 7, 2),
                                "pos 7 out of range for string b'hello' at index 0"),
    "to_number_not_a_number": (lambda: tf.strings.to_number(["abc"]),
                               "could not correctly convert string: abc"),
    "to_number_int_overflow": (lambda: tf.strings.to_number(["99999999999"], tf.int32),
                               "could not correctly convert string: 99999999999"),
    "to_number_float_for_int": (lambda: tf.strings.to_number(["1.5"], tf.int32),
                                "could not correctly convert string: 1.5"),
    "unicode_decode_strict": (
        lambda: tf.strings.unicode_decode([b"a\xffb"], "UTF-8", errors="strict"),
        "Invalid formatting on input string"),
    "decode_csv_field_count": (lambda: tf.io.decode_csv(["1,2"], [[0], [0.0], ["d"]]),
                               "Expect 3 fields but have 2 in record 0"),
    "decode_csv_bad_int": (lambda: tf.io.decode_csv(["a,2"], [[0], [0]]),
                           "Field 0 in record 0 is not a valid int32: a"),
    "decode_csv_required_field": (
        lambda: tf.io.decode_csv([",2"], [tf.constant([], tf.int32), [0]]),
        "Field 0 is required but missing in record 0"),
    "decode_csv_quote_inside": (lambda: tf.io.decode_csv(['a"b,2'], [["q"], [0]]),
                                "Unquoted fields cannot have quotes"),
}


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_strings_raise_invalid_argument(name, traced):
    fn, message = ERRORS[name]
    run = tf.function(fn, autograph=False) if traced else fn
    with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace("(", r"\(")):
        run()


@pytest.mark.parametrize("fn, op, pattern", [
    (lambda: tf.strings.join([tf.constant([1])]), "StringJoin", "int32"),
])
def test_bad_values_raise_invalid_argument_naming_the_op(fn, op, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern) as info:
        fn()
    assert op in str(info.value)
    assert __file__ in str(info.value)  # the user's line


@pytest.mark.parametrize("call, message", [
    (lambda: tf.strings.regex_replace(["x"], "(", "0"), "Invalid pattern"),
    (lambda: tf.strings.regex_replace(["x"], "(a)", r"\2"), "names group"),
    (lambda: tf.strings.split(["x"], sep=""), "must not be empty"),
    (lambda: tf.strings.unicode_decode(["x"], "latin-7"), "encoding must be one of"),
    (lambda: tf.strings.substr(["x"], 0, 1, unit="CHAR"), "unit must be"),
    (lambda: tf.strings.as_string([1], precision=2), "precision is only for floats"),
    (lambda: tf.strings.ngrams(["a"], 0), "ngram_width must be positive"),
    (lambda: tf.strings.to_number(["1"], tf.bool), "out_type must be"),
])
def test_bad_arguments_are_refused_at_the_call(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_string_ops_in_a_converted_loop():
    @tf.function
    def count_words(lines):
        total = tf.constant(0, tf.int64)
        for line in lines:
            total += tf.size(tf.strings.split(line), out_type=tf.int64)
        return total
    assert count_words(tf.constant(["a b c", "d", ""])).numpy() == 4


def test_format_quotes_strings_as_tensorflow_does():
    assert tf.strings.format("{}", tf.constant("a")).numpy() == b'"a"'
    assert tf.strings.format("{}", tf.constant([["a"], ["b"]])).numpy() == b'[["a"]\n ["b"]]'
