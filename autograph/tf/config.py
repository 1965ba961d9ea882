"""`tf.config`: global switches."""

import autograph as _autograph

run_functions_eagerly = _autograph.run_functions_eagerly
functions_run_eagerly = _autograph.functions_run_eagerly
