"""The op behind `tf.custom_gradient`: `CustomGradient(*xs, *variable_reads, *ys) -> ys`.

Its outputs are its last `len(ys)` inputs unchanged; the other inputs (the function's
arguments and the values of the variables it read) are there so that a GradientTape sees
the op depend on them. Its gradient rule (runtime.gradients.custom_gradient) calls the
user's gradient function; no gradient flows into `ys`, so the ops that computed them are
never differentiated.
"""

from runtime.ops.registry import not_saveable, register


def _forward(*values, n_args, n_outputs, **_):
    outputs = values[len(values) - n_outputs:]
    return outputs[0] if n_outputs == 1 else tuple(outputs)


def _infer(specs, attrs):
    return list(specs[len(specs) - attrs["n_outputs"]:])


def _emit(outs, ins, attrs, emitter):
    return "%s = %s" % (", ".join(outs), ", ".join(str(i) for i in ins[len(ins) - len(outs):]))


def _lowering(lowerer, node, ins, outs):
    for out, value in zip(outs, ins[len(ins) - len(outs):]):
        lowerer.assign(out, value)


CUSTOM_GRADIENT_OP = register("CustomGradient", _forward, _infer,
                              grad="runtime.gradients.custom_gradient:custom_gradient_rule",
                              emit=_emit, traits=("no_fold", "view"),
                              lowerings={"array": _lowering},
                              saving=not_saveable("its gradient is a Python function "
                                                  "(tf.custom_gradient's grad_fn)"))
