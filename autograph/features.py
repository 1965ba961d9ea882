"""AutoGraph's optional features (`tf.autograph.experimental.Feature`), as accepted by
`tf.function(experimental_autograph_options=...)` and `autograph.function`.

TensorFlow documents the option as enabling *additional* conversion features. Here four of
them are what the converter always does (it gives what plain Python gives where TensorFlow
would refuse), so naming them changes nothing:

  AUTO_CONTROL_DEPS   stateful ops run in program order (the executor keeps it always)
  ASSERT_STATEMENTS   `assert` on a tensor is a run-time check
  EQUALITY_OPERATORS  `==` / `!=` on tensors are elementwise ops (staged in conditions)
  LISTS               a list appended to in a loop on a tensor is staged as a TensorArray
                      (`tf.autograph.experimental.set_element_type` declares its elements)

Two change results when enabled (ALL enables both):

  BUILTIN_FUNCTIONS   builtins called on tensors become ops: `print` of a tensor prints its
                      value at every call (as `tf.print` does, with Python's formatting of
                      the values); `enumerate`, `zip` over tensors iterate in a staged loop;
                      `abs`, `max`, `min`, `sum`, `any`, `all` reduce (`range`, `len`, `int`,
                      `float` on tensors are staged always)
  NAME_SCOPES         the ops of each converted function are named under a name scope of
                      the function's name ('f/add')

The enabled optional features travel with the converted code: its FunctionScope names them,
and functions it calls are converted with the same ones.
"""

import enum


class Feature(enum.Enum):
    """An optional AutoGraph feature (see autograph.features)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"

    @classmethod
    def all(cls):
        """Every feature, as a tuple."""
        return tuple(cls.__members__.values())

    @classmethod
    def all_but(cls, exclude):
        """Every feature except `exclude` (a Feature or a collection of them)."""
        if isinstance(exclude, Feature):
            exclude = (exclude,)
        excluded = set(exclude)
        return tuple(f for f in cls.__members__.values()
                     if f not in excluded and f is not Feature.ALL)


# What the converter does whether or not the features are named.
ALWAYS_ON = frozenset([Feature.AUTO_CONTROL_DEPS, Feature.ASSERT_STATEMENTS,
                       Feature.EQUALITY_OPERATORS, Feature.LISTS])
# The features that change the converted code's results, by the names converted code uses.
OPTIONAL = ("BUILTIN_FUNCTIONS", "NAME_SCOPES")


def optional_features(options):
    """The names (sorted, a tuple) of the optional features that `options` enables: None, a
    Feature, or a collection of Features (TypeError for anything else)."""
    if options is None:
        return ()
    if isinstance(options, Feature):
        options = (options,)
    try:
        given = list(options)
    except TypeError:
        raise TypeError("experimental_autograph_options must be a Feature or a tuple of "
                        "Features, got %r" % (options,)) from None
    for option in given:
        if not isinstance(option, Feature):
            raise TypeError("experimental_autograph_options must hold "
                            "tf.autograph.experimental.Feature values, got %r" % (option,))
    if Feature.ALL in given:
        return OPTIONAL
    return tuple(sorted(f.value for f in given if f.value in OPTIONAL))
