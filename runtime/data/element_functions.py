"""The functions of dataset elements (`map`, `filter`, `reduce`): converted by the converter
of the Function being traced (`runtime.context.function_converter`; outside any, the default
that importing `autograph` installs), traced once and compiled.
"""

import warnings

from runtime import context, errors, nest
from runtime.data.pipeline import to_tensor
from runtime.data.structure import flat_specs, lists_to_tuples, map_input, pack, path_text, spec_of
from runtime.function import ConcreteFunction, Function
from runtime.graph import Graph
from runtime.ops import registry
from runtime.tensor import SymbolicTensor


def convert(func):
    """`func` converted by `context.function_converter()`: inside a traced Function its
    converter, outside any the default one (unchanged without one, or for a Function); the
    converter's warnings point at the user's call."""
    if not callable(func):
        raise TypeError("expected a function, got %r" % (func,))
    converter = context.function_converter()
    if converter is None or isinstance(func, Function):
        return func
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        converted = converter(func)
    # The converter's warnings (source unavailable...) point at the user's map/filter call.
    location = errors.user_location(2)
    for w in caught:
        if location is None:
            warnings.warn(w.message, w.category, stacklevel=3)
        else:
            warnings.warn_explicit(w.message, w.category, location.filename, location.lineno)
    return converted


class TracedFunction:
    """A function of dataset elements, converted, traced once and compiled.

    The trace's graph nests in the graph being built when the dataset is (if any), so that
    the function may read that graph's tensors; those become inputs of the pipeline
    (`tensors`), fed after the element's components on every call."""

    def __init__(self, func, input_spec, what):
        converted = convert(func)
        self.what = what  # the transformation: "map", "filter", ...
        name = getattr(func, "__name__", what)
        name = "%s_%s" % (what, "lambda" if name == "<lambda>" else name)
        graph = Graph(name, outer=context.current_graph())
        flat_in = flat_specs(input_spec)
        with graph.as_default():
            placeholders = [graph.add_placeholder("args_%d" % i, d, s)
                            for i, (d, s) in enumerate(flat_in)]
            element = pack(input_spec, placeholders)
            if type(element) is tuple:  # TensorFlow's rule: a plain tuple is unpacked
                result = converted(*element)
            else:
                result = converted(element)
            structure = map_input(lists_to_tuples(result), lambda v, p: _output_tensor(
                v, p, what))
            outputs = [graph.capture(t) for t in nest.flatten(structure)]
        captured = [c for c in graph.captures
                    if isinstance(c.external, SymbolicTensor) and not c.leaked]
        feeds = placeholders + [c.placeholder for c in captured]
        graph.inputs, graph.outputs = list(feeds), list(outputs)
        self.tensors = [c.external for c in captured]
        self.output_spec = map_input(structure, lambda t, p: spec_of(t))
        self.out_dtypes = [t.dtype for t in outputs]
        self.concrete = ConcreteFunction(name, graph, feeds, outputs,
                                         [("t", i) for i in range(len(outputs))],
                                         structure, [], [])
        self._run = self.concrete._compiled_run()

    def __call__(self, flat, captured):
        try:
            values = self._run(*flat, *captured)
        except Exception as e:
            raise self.concrete._translate(e) from None
        return tuple(registry.np_result(v, d) for v, d in zip(values, self.out_dtypes))

    def calls_python(self):
        """True when the function calls Python at run time (tf.py_function,
        tf.numpy_function): state that an iterator's checkpoint cannot hold."""
        return any(node.op.name in _PYTHON_OPS for node in self.concrete.graph.nodes)


# The ops that run Python functions (runtime.ops.py_function_ops).
_PYTHON_OPS = ("EagerPyFunc", "PyFunc")


def _output_tensor(value, path, what):
    if value is None:
        raise TypeError(errors.with_user_location(
            "the function given to %s returned None%s; it must return tensors"
            % (what, "" if not path else " at " + path_text(path))))
    return to_tensor(value, path, "the function given to %s returned a value that" % what)


class DatasetFunction:
    """A function of dataset elements that returns a Dataset (`flat_map`, `interleave`),
    traced once, as TensorFlow traces it.

    The trace's graph computes the tensors that the returned dataset reads (its
    `_all_tensors()`); at run time, for each element, the graph runs and the dataset then
    produces its elements from those values. A component that is itself a dataset (a
    window) is passed to the function as `fed(spec, key)`, a dataset whose elements come
    from the run-time feed under `key`."""

    def __init__(self, func, input_spec, what, fed):
        converted = convert(func)
        name = getattr(func, "__name__", what)
        name = "%s_%s" % (what, "lambda" if name == "<lambda>" else name)
        graph = Graph(name, outer=context.current_graph())
        leaves = nest.flatten(input_spec)
        self._is_dataset = [s.dtype is None for s in leaves]
        self._keys = []
        with graph.as_default():
            placeholders, args = [], []
            for i, spec in enumerate(leaves):
                if spec.dtype is None:
                    key = _FeedKey()
                    self._keys.append(key)
                    args.append(fed(spec.element_spec, key))
                else:
                    p = graph.add_placeholder("args_%d" % i, spec.dtype, spec._shape)
                    placeholders.append(p)
                    args.append(p)
            element = pack(input_spec, args)
            result = converted(*element) if type(element) is tuple else converted(element)
            if not hasattr(result, "_all_tensors"):
                raise TypeError(errors.with_user_location(
                    "the function given to %s must return a Dataset, got %r" % (what, result)))
            inner = list(result._all_tensors())
            outputs = [graph.capture(t) for t in inner]
        captured = [c for c in graph.captures
                    if isinstance(c.external, SymbolicTensor) and not c.leaked]
        feeds = placeholders + [c.placeholder for c in captured]
        graph.inputs, graph.outputs = list(feeds), list(outputs)
        self.tensors = [c.external for c in captured]
        self.dataset = result
        self._inner = inner
        self.concrete = ConcreteFunction(name, graph, feeds, outputs,
                                         [("t", i) for i in range(len(outputs))],
                                         tuple(outputs), [], [])
        self._run = self.concrete._compiled_run()

    def __call__(self, flat, captured):
        """The flat elements of the dataset the function returns for the element `flat`."""
        tensor_values = [v for v, is_ds in zip(flat, self._is_dataset) if not is_ds]
        try:
            values = self._run(*tensor_values, *captured)
        except Exception as e:
            raise self.concrete._translate(e) from None
        feed = {id(t): v for t, v in zip(self._inner, values)}
        windows = (v for v, is_ds in zip(flat, self._is_dataset) if is_ds)
        for key, window in zip(self._keys, windows):
            feed[id(key)] = window
        return self.dataset._generate(feed)


class _FeedKey:
    """The feed key of a dataset-valued argument of a DatasetFunction."""

    __slots__ = ()
