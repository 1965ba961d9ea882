"""The gradient rule of Pack (`tf.stack`, declared in runtime/ops/common.py), named by its
declaration: it unstacks, an op declared above the module that declares Pack. The other array
ops declare their rules beside them.
"""

from runtime.ops import manipulation_ops as Manip


def pack_grad(ctx, grads):
    parts = Manip.unstack(grads[0], num=len(ctx.needed), axis=ctx.attrs["axis"])
    return [p if need else None for p, need in zip(parts, ctx.needed)]
