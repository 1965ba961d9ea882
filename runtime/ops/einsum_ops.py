"""einsum: the Einsum op, its equation normalised when the graph is built (an ellipsis
becomes named dimensions, the output is written out), and its gradient (an einsum of the
output gradient with the other operands, broadcast over dimensions the operand sums out).
"""

import contextlib
import string
from typing import Any

import numpy as np

from runtime import lowering_api
from runtime import shape as shape_lib
from runtime.ops import array_ops, attr_types, batching, math_ops, numba_lowerings, reshape_ops
from runtime.ops.common import (
    NUMERIC,
    SpecError,
    convert_to_tensor,
    require_kind,
    require_same_dtype,
)
from runtime.ops.registry import KERNEL_CALL, execute1, register

OPS = {}


def _parse(equation, ranks):
    """(input subscripts, output subscripts) with every dimension named by a letter."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ranks):
        raise ValueError("einsum: equation %r has %d operands, got %d tensors"
                         % (equation, len(terms), len(ranks)))
    used = set(equation) & set(string.ascii_letters)
    spare = [c for c in string.ascii_letters if c not in used]
    widest = 0
    for term, rank in zip(terms, ranks):
        if "..." in term:
            if rank is None:
                raise ValueError("einsum: an ellipsis needs operands of known rank")
            widest = max(widest, rank - (len(term) - 3))
    ellipsis = "".join(spare[:widest])
    expanded = []
    for term, rank in zip(terms, ranks):
        if "..." in term:
            width = rank - (len(term) - 3)
            term = term.replace("...", ellipsis[widest - width:])
        if not all(c in string.ascii_letters for c in term):
            raise ValueError("einsum: bad subscripts %r in %r" % (term, equation))
        if rank is not None and len(term) != rank:
            raise ValueError("einsum: subscripts %r do not match an operand of rank %d"
                             % (term, rank))
        expanded.append(term)
    if arrow:
        output = output.replace("...", ellipsis)
    else:  # implicit output: the ellipsis, then letters used once, in alphabetical order
        counts = {c: "".join(expanded).count(c) for c in set("".join(expanded))}
        output = ellipsis + "".join(sorted(c for c, n in counts.items()
                                           if n == 1 and c not in ellipsis))
    return expanded, output


def _einsum_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    require_kind(dtype, NUMERIC)
    sizes: dict[str, Any] = {}
    for (_, shape), term in zip(specs, attrs["inputs"]):
        if shape is None:
            continue
        for letter, dim in zip(term, shape):
            known = sizes.get(letter)
            if dim is not None and known is not None and dim != known and 1 not in (dim, known):
                raise SpecError("shape", "einsum dimension %r is %d in one operand and %d in "
                                "another" % (letter, known, dim))
            if dim is not None and (known is None or known == 1):
                sizes[letter] = dim
    return [(dtype, tuple(sizes.get(c) for c in attrs["output"]))]


def _einsum_kernel(*operands, inputs, output):
    equation = ",".join(inputs) + "->" + output
    stored = operands[0].dtype
    if stored.kind == "V":  # bfloat16, which numpy's einsum lacks: computed in float32
        operands = tuple(np.asarray(x, np.float32) for x in operands)
    result = np.einsum(equation, *operands, optimize=len(operands) > 2)
    return np.asarray(result).astype(stored, copy=False)


def _einsum_grad(ctx, grads):
    inputs, output = ctx.attrs["inputs"], ctx.attrs["output"]
    out: list[Any] = []
    for i, term in enumerate(inputs):
        if not ctx.needed[i]:
            out.append(None)
            continue
        if len(set(term)) != len(term):
            raise NotImplementedError("the gradient of einsum with a repeated subscript in "
                                      "one operand (%r) is not supported" % term)
        others = [t for j, t in enumerate(inputs) if j != i]
        present = set(output).union(*others) if others else set(output)
        kept = "".join(c for c in term if c in present)
        # complex operands enter conjugated (TensorFlow's rule: the adjoint of the product)
        operands = [grads[0]] + [math_ops.conj(ctx.input(j)) for j in range(len(inputs))
                                 if j != i]
        g = execute1(OPS["Einsum"], operands, {"inputs": (output,) + tuple(others),
                                                "output": kept})
        if kept != term:  # dimensions the operand sums out: the gradient is the same along them
            for position, c in enumerate(term):
                if c not in kept:
                    g = reshape_ops.expand_dims(g, position)
            shape = ctx.input_shape(i)
            if shape is not None and None not in shape:
                g = reshape_ops.broadcast_to(g, shape)
            else:
                g = math_ops.multiply(g, array_ops.ones_like(ctx.input(i)))
        out.append(g)
    return out


def _einsum_lowering(lowerer, node, ins, outs):
    equation = ",".join(node.attrs["inputs"]) + "->" + node.attrs["output"]
    lowerer.assign(outs[0], "xp.einsum(%r, %s)" % (equation, ", ".join(ins)))


def _einsum_numba(lowerer, node, ins, outs):
    """numba (which has no einsum): a loop nest over the output's letters, then the summed
    ones, for operands of static shapes. Exact where the order of numpy's sums cannot
    matter: integers (sums wrap), or floats that nothing sums (a copy of one operand, or
    the product of two, plus numpy's zero start: a -0.0 product is 0.0)."""
    terms, output = node.attrs["inputs"], node.attrs["output"]
    sizes: dict[str, Any] = {}
    for x, term in zip(ins, terms):
        if x.shape is None or None in x.shape:
            raise lowering_api.Unsupported("an einsum of shapes known only at run time")
        for letter, size in zip(term, x.shape):
            if sizes.setdefault(letter, size) != size:
                raise lowering_api.Unsupported("an einsum broadcasting a dimension")
    summed = sorted(set("".join(terms)) - set(output))
    out = outs[0]
    if out.dtype.is_floating and (summed or len(ins) > 2):
        raise lowering_api.Unsupported("a float einsum summing in numpy's own order")
    result = lowerer.fresh("r")
    shape = tuple(sizes[c] for c in output) or (1,)
    lowerer.line("%s = np.zeros(%s, %s)" % (result, lowerer.literal(shape),
                                            numba_lowerings.type_name(out.dtype)))
    index = {c: lowerer.fresh("i") for c in sorted(set("".join(terms)))}
    with contextlib.ExitStack() as loops:
        for c in list(output) + summed:
            lowerer.line("for %s in range(%d):" % (index[c], sizes[c]))
            loops.enter_context(lowerer.block())
        _einsum_body(lowerer, ins, terms, output, index, result, out.dtype)
    numba_lowerings.finish(lowerer, out, result, [str(sizes[c]) for c in output])


def _einsum_body(lowerer, ins, terms, output, index, result, dtype):
    """The innermost statement of the einsum loop nest (see `_einsum_numba`)."""
    factors = ["%s[%s]" % (x, ", ".join(index[c] for c in term)) if term else str(x)
               for x, term in zip(ins, terms)]
    target = "%s[%s]" % (result, ", ".join(index[c] for c in output) or "0")
    if dtype.is_floating and len(ins) == 1:
        lowerer.line("%s = %s" % (target, factors[0]))
    elif dtype.is_floating:
        lowerer.line("%s = %s + %s(0)" % (target, " * ".join(factors),
                                          numba_lowerings.type_name(dtype)))
    else:
        lowerer.line("%s += %s" % (target, " * ".join(factors)))


OPS["Einsum"] = register("Einsum", _einsum_kernel, _einsum_infer, grad=_einsum_grad,
                         emit=KERNEL_CALL, traits=("view",),  # 'ij->ji' is a transpose
                         lowerings={"array": _einsum_lowering, "numba": _einsum_numba},
                         attr_types={"inputs": attr_types.STRS, "output": attr_types.STR})


def einsum(equation, *inputs, name=None, **kwargs):
    """Sums of products of `inputs`' elements as `equation` ('ij,jk->ik') names their
    dimensions; '...' stands for leading dimensions, and without '->' the output is the
    letters used once, in alphabetical order."""
    if kwargs:
        raise TypeError("einsum: unexpected arguments %s" % sorted(kwargs))
    tensors = [convert_to_tensor(t) for t in inputs]
    ranks = [None if t._shape_tuple() is None else len(t._shape_tuple()) for t in tensors]
    terms, output = _parse(equation, ranks)
    for c in output:
        if c not in "".join(terms):
            raise ValueError("einsum: output subscript %r appears in no operand of %r"
                             % (c, equation))
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise TypeError("einsum: operands must have the same dtype, got %s" % ", ".join(
                "%s %s" % (x.dtype.name, shape_lib.to_string(x._shape_tuple()))
                for x in tensors))
    return execute1(OPS["Einsum"], tensors, {"inputs": tuple(terms), "output": output},
                    name=name)


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


def _einsum_batched(batcher, node, args, batched):
    """A letter of its own for the batch, leading the batched operands and the output."""
    terms, output = node.attrs["inputs"], node.attrs["output"]
    used = set("".join(terms) + output)
    letter = next(c for c in string.ascii_letters if c not in used)
    return batcher.rerun(node, args, dict(
        node.attrs, inputs=tuple(letter + t if b else t for t, b in zip(terms, batched)),
        output=letter + output))


batching.declare(OPS["Einsum"], _einsum_batched)
