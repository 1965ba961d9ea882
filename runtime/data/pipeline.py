"""`Pipeline`: one stage of a dataset's pipeline (a source or a transformation).

Each stage describes its elements (`element_spec`); at run time it produces them as flat
tuples of numpy values, `feed` holding the values of the tensors the pipeline was built from
(its own `tensors` and its inputs'): either through a `Reader` (`_reader(feed)`, see
runtime.data.readers), whose position can be saved in a checkpoint, or through a Python
generator (`_generate(feed)`), whose position cannot. A `Dataset` (runtime.data.dataset) is
the user's handle on a stage, and a stage itself to the stages built on it.
"""

from runtime.composite.base import CompositeTensor
from runtime.data import readers
from runtime.data.iterator import Cursor
from runtime.data.structure import path_text, spec_text
from runtime.ops import common
from runtime.variables import Variable

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


class Pipeline:
    """A stage of a dataset pipeline: its element structure, inputs and tensors."""

    _name = "Dataset"

    def __init__(self, element_spec, inputs=(), tensors=()):
        self._element_spec = element_spec
        self._inputs = tuple(inputs)
        self._tensors = tuple(tensors)
        self._all = None

    @property
    def element_spec(self):
        """The structure of TensorSpecs that every element matches."""
        return self._element_spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _all_tensors(self):
        """Every tensor the pipeline reads, its own and its inputs', without repeats."""
        if self._all is None:
            found: dict[int, object] = {}
            self._collect(found)
            self._all = tuple(found.values())
        return self._all

    def _collect(self, found):
        for t in self._tensors:
            found.setdefault(id(t), t)
        for ds in self._inputs:
            ds._collect(found)

    def _open_cursor(self, values):
        """A cursor over the elements, given the values of `_all_tensors()` (the
        `AnonymousIterator` kernel)."""
        feed = {id(t): v for t, v in zip(self._all_tensors(), values)}
        return Cursor(self._reader(feed))

    def _generate(self, feed):
        """Yields the flat elements (tuples of numpy values); `feed` maps id(tensor) to the
        value of each tensor of `_all_tensors()`. A stage defines this or `_reader`."""
        if type(self)._reader is Pipeline._reader:
            raise NotImplementedError("%s defines neither _generate nor _reader"
                                      % type(self).__name__)
        return self._reader(feed)

    def _reader(self, feed):
        """A `readers.Reader` over the flat elements (`feed` as for `_generate`): by default
        the stage's generator, whose position cannot be saved."""
        return readers.GeneratorReader(self, self._generate(feed))

    def __repr__(self):
        return "<%s element_spec=%s>" % (self._name, spec_text(self._element_spec))


def to_tensor(value, path, what):
    """`value` (at `path` of what `what` names) as a tensor; a Dataset is refused."""
    if isinstance(value, Pipeline):
        raise TypeError("%s: %s is a Dataset; a dataset element holds tensors (use "
                        "Dataset.zip to combine datasets)" % (what, path_text(path)))
    if isinstance(value, Variable):
        return value.read_value()
    if isinstance(value, CompositeTensor):
        return value  # a SparseTensor or RaggedTensor: its components travel
    try:
        return common.convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        raise TypeError("%s: %s cannot be converted to a tensor: %s"
                        % (what, path_text(path), e)) from None
