"""`autograph check` AG301 on `range(len(xs))` of a parameter names the length that drives
the loop (`len(xs)`, retraced per length) and suggests a tensor loop over its shape, not
`tf.range(len(xs))` of "a Python number"."""

import textwrap

from autograph import lint


def test_range_of_the_length_of_a_parameter_reports_the_length():
    source = "import autograph.tf as tf\n" + textwrap.dedent('''
        @tf.function
        def total(xs):
            out = tf.constant(0.0)
            for i in range(len(xs)):
                out += xs[i]
            return out
        ''')
    findings = lint.check_source(source, "m.py")
    assert [(f.code, f.line, f.column) for f in findings] == [("AG301", 6, 20)]
    assert findings[0].message.startswith("`len(xs)` of parameter `xs`")
    assert findings[0].hint == ("loop over tf.range(tf.shape(xs)[0]), or iterate a "
                                "tf.data.Dataset")
