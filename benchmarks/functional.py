"""Functional control flow: `tf.map_fn` and `tf.scan` over the rows of a tensor.

`map_fn_rows`: 500 rows of 8 features, each row to `reduce_sum(tanh(row))`;
`scan_rows`: the running `acc * 0.5 + row` over the same rows. Each runs with autograph.tf
eagerly and as a cached `tf.function` (one While op reading the rows from a TensorArray and
writing the results to another), and with a hand-written numpy loop.
"""

import numpy as np

import autograph.tf as ag_tf
from benchmarks.workload import Target, Variant, Workload, tensorflow, traced_once

GROUP = "functional"

ROWS, FEATURES = 500, 8


def _rows():
    return np.random.RandomState(0).uniform(-1, 1, (ROWS, FEATURES))


def make_map(tf):
    """Each row to the sum of its tanh, with `tf.map_fn`."""
    def rows_map(x):
        return tf.map_fn(lambda row: tf.reduce_sum(tf.tanh(row)), x)
    return rows_map


def make_scan(tf):
    """The running `acc * 0.5 + row`, with `tf.scan`."""
    def rows_scan(x):
        return tf.scan(lambda acc, row: acc * 0.5 + row, x)
    return rows_scan


def numpy_map(x):
    """The map by hand: a Python loop over the rows."""
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.tanh(x[i]).sum()
    return out


def numpy_scan(x):
    """The scan by hand: a Python loop filling a preallocated array."""
    out = np.empty_like(x)
    acc = out[0] = x[0]
    for i in range(1, x.shape[0]):
        acc = out[i] = acc * 0.5 + x[i]
    return out


def _builder(make, by_hand):
    def build():
        data = _rows()
        tensor = ag_tf.constant(data)
        function = ag_tf.function(make(ag_tf))
        variants = [
            Variant("numpy", by_hand, (data,), note="hand-written numpy loop"),
            Variant("eager", make(ag_tf), (tensor,), note="autograph.tf, eagerly"),
            Variant("function", function, (tensor,), verify=traced_once(function),
                    note="cached autograph.tf.function (one While op)"),
        ]
        tf = tensorflow()
        if tf is not None:
            variants.append(Variant("tensorflow.function", tf.function(make(tf)),
                                    (tf.constant(data),), note="TensorFlow tf.function"))
        return variants
    return build


WORKLOADS = [
    Workload(name="map_fn_rows",
             description="tf.map_fn over %d rows of %d: reduce_sum(tanh(row))"
                         % (ROWS, FEATURES),
             build=_builder(make_map, numpy_map),
             targets=[Target("function", "numpy"), Target("eager", "function")],
             group=GROUP),
    Workload(name="scan_rows",
             description="tf.scan over %d rows of %d: acc * 0.5 + row" % (ROWS, FEATURES),
             build=_builder(make_scan, numpy_scan),
             targets=[Target("function", "numpy"), Target("eager", "function")],
             group=GROUP),
]
