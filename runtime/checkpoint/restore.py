"""Restoring a checkpoint into live objects, and the status a restore returns.

The checkpoint's object graph is matched against the objects below the root, edge by edge
by local name. A matched Variable takes its saved value at once (dtype and shape checked).
An edge whose object does not exist yet waits on its owner (see `deferred`): when the
attribute is set, the new object is matched and restored then, and so are the objects
below it. The status reads the match as it is when asked, so deferred restorations that
have happened since count:

    status = ckpt.restore(path)
    status.assert_existing_objects_matched()   # every variable that exists got a value
    model.dense = Dense()                      # restored on assignment
    status.assert_consumed()                   # and every saved value found its object
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

import numpy as np

from runtime import context, errors
from runtime.checkpoint import bundle, deferred, protos, trackables
from runtime.checkpoint.bundle import BundleReader
from runtime.io import protowire
from runtime.module import Module
from runtime.variables import Variable

_LOG = logging.getLogger("autograph.checkpoint")


class Restoration:
    """One restore of a checkpoint into a root object: what matched so far."""

    def __init__(self, reader: BundleReader, root: Any,
                 attached: list[tuple[str, Any]] | None) -> None:
        self.reader = reader
        self.root = root
        self.attached = attached
        if trackables.OBJECT_GRAPH_KEY not in reader.entries:
            raise errors.NotFoundError(
                "%s holds no object graph (%s): it was not written by tf.train.Checkpoint, "
                "and name-based checkpoints are not supported"
                % (reader.prefix, trackables.OBJECT_GRAPH_KEY))
        graph = reader.tensor(trackables.OBJECT_GRAPH_KEY)
        if graph.shape != () or not isinstance(graph.item(), bytes):
            raise errors.DataLossError("%s: %s is not a string scalar"
                                       % (reader.prefix, trackables.OBJECT_GRAPH_KEY))
        try:
            self.nodes = protos.decode_object_graph(graph.item())
        except protowire.WireFormatError as error:
            raise errors.DataLossError("%s: unreadable object graph (%s)"
                                       % (reader.prefix, error)) from None
        if not self.nodes:
            raise errors.DataLossError("%s: the object graph has no nodes" % reader.prefix)
        self.paths = self._node_paths()
        # node id -> (id of the object matched, whether it is a Variable): identities only,
        # so that restorations waiting on an object (held globally, see `deferred`) never
        # keep that object or the others alive
        self.matched: dict[int, tuple[int, bool]] = {}
        self.restored_keys: set[str] = set()
        self.flags = {"partial_expected": False}
        # when this restoration is gone (its status dropped and no object waiting on it),
        # report what it never restored, as TensorFlow does when its restore coordinator goes
        weakref.finalize(self, _warn_unrestored, reader.prefix, self.nodes, self.paths,
                         self.matched, self.flags)

    def _node_paths(self) -> list[tuple[str, ...] | None]:
        paths: list[tuple[str, ...] | None] = [None] * len(self.nodes)
        paths[0] = ()
        queue = [0]
        for node_id in queue:
            for child_id, name in self.nodes[node_id].children:
                if paths[child_id] is None:
                    paths[child_id] = paths[node_id] + (name,)  # type: ignore[operator]
                    queue.append(child_id)
        return paths

    def describe(self, node_id: int) -> str:
        """The node's path, '(root).model.w'."""
        path = self.paths[node_id]
        return trackables.pretty_path(path) if path is not None else "(unreachable %d)" % node_id

    def run(self) -> None:
        """Matches the whole graph from the root."""
        pending = [(0, self.root)]
        while pending:
            node_id, value = pending.pop()
            pending.extend(self._match(node_id, value))
        self.root = self.attached = None  # (held by the status, not by waiting restorations)

    def _match(self, node_id: int, value: Any) -> list[tuple[int, Any]]:
        previous = self.matched.get(node_id)
        if previous is not None and previous[0] == id(value):
            return []
        self.matched[node_id] = (id(value), isinstance(value, Variable))
        node = self.nodes[node_id]
        if isinstance(value, Variable):
            self._restore_variable(node_id, node, value)
        elif callable(getattr(value, "_restore_checkpoint_state", None)) and node.attributes:
            self._restore_state(node_id, node, value)
        links = dict(trackables.children(value))
        if node_id == 0 and self.attached:
            for name, item in self.attached:
                links.setdefault(name, item)
        found = []
        for child_id, name in node.children:
            item = links.get(name)
            if item is not None:
                found.append((child_id, item))
            elif isinstance(value, Module) or hasattr(value, "_checkpoint_children"):
                deferred.wait_for(value, name, self._deferred(child_id))
        return found

    def _deferred(self, node_id: int) -> Any:
        def restore_when_set(value: Any) -> None:
            if trackables.is_trackable(value):
                pending = [(node_id, value)]
                while pending:
                    next_id, item = pending.pop()
                    pending.extend(self._match(next_id, item))
        return restore_when_set

    def _restore_variable(self, node_id: int, node: protos.TrackableNode,
                          variable: Variable) -> None:
        for attribute in node.attributes:
            if attribute.name != trackables.VARIABLE_VALUE:
                continue
            key = attribute.checkpoint_key
            if key not in self.reader.entries:
                raise errors.NotFoundError("Key %s not found in checkpoint %s (listed by the "
                                           "object graph for %s)" % (key, self.reader.prefix,
                                                                     self.describe(node_id)))
            value = self.reader.tensor(key)
            stored = bundle.DTYPES[self.reader.entries[key].dtype][0]
            assign_restored(variable, value, stored, key, self.reader.prefix)
            self.restored_keys.add(key)

    def _restore_state(self, node_id: int, node: protos.TrackableNode, value: Any) -> None:
        """Gives an object that saves state of its own (see trackables.saved_state) its
        saved values, by attribute name."""
        values = {}
        for attribute in node.attributes:
            key = attribute.checkpoint_key
            if key not in self.reader.entries:
                raise errors.NotFoundError("Key %s not found in checkpoint %s (listed by the "
                                           "object graph for %s)" % (key, self.reader.prefix,
                                                                     self.describe(node_id)))
            values[attribute.name] = self.reader.tensor(key)
        value._restore_checkpoint_state(values, "%s (%s)" % (self.reader.prefix,
                                                             self.describe(node_id)))
        self.restored_keys.update(a.checkpoint_key for a in node.attributes)

    def unresolved(self) -> list[int]:
        """The ids of the nodes holding saved values that no object has matched yet."""
        return [node_id for node_id, node in enumerate(self.nodes)
                if node.attributes and node_id not in self.matched]

    def unused_attributes(self) -> list[tuple[int, str]]:
        """(node id, attribute name) of the saved values of matched objects never restored."""
        unused = []
        for node_id in self.matched:
            for attribute in self.nodes[node_id].attributes:
                if attribute.checkpoint_key not in self.restored_keys:
                    unused.append((node_id, attribute.name))
        return unused


def _warn_unrestored(prefix: str, nodes: list[protos.TrackableNode],
                     paths: list[tuple[str, ...] | None], matched: dict[int, tuple[int, bool]],
                     flags: dict[str, bool]) -> None:
    if flags["partial_expected"]:
        return
    unresolved = [trackables.pretty_path(paths[node_id] or ())
                  for node_id, node in enumerate(nodes)
                  if node.attributes and node_id not in matched]
    if unresolved:
        _LOG.warning("A checkpoint restore is being deleted with unrestored values (use "
                     "status.expect_partial() to silence this). Values in checkpoint %s that "
                     "could not be found in the restored object: %s",
                     prefix, ", ".join(unresolved))


def assign_restored(variable: Variable, value: np.ndarray, stored: str, key: str,
                    prefix: str) -> None:
    """Assigns a checkpoint's `value` (of dtype `stored`, under `key`) to `variable`,
    checking dtype and shape."""
    if stored != variable.dtype.name:
        raise errors.InvalidArgumentError(
            "Restoring %s from %s: the checkpoint holds %s, the variable %s is %s"
            % (key, prefix, stored, variable.name, variable.dtype.name))
    static = variable._static_shape
    if static is not None and (len(static) != value.ndim or any(
            d is not None and d != s for d, s in zip(static, value.shape))):
        raise ValueError(
            "Received incompatible tensor with shape %s when attempting to restore variable "
            "with shape %s and name %s (checkpoint key %s in %s)."
            % (tuple(value.shape), tuple(static), variable.name, key, prefix))
    with context.eager_scope():
        variable.assign(value)


class CheckpointLoadStatus:
    """What a restore matched (`tf.train.Checkpoint.restore`'s result); the assertions
    read the match as it stands, deferred restorations included, and return the status."""

    def __init__(self, restoration: Restoration, live_root: Any,
                 attached: list[tuple[str, Any]]) -> None:
        self._restoration = restoration
        self._live_root = live_root
        self._attached = attached

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Raises AssertionError unless every saved value found its object and every
        variable below the root got a value."""
        self.assert_existing_objects_matched()
        restoration = self._restoration
        for node_id in restoration.unresolved():
            keys = [a.checkpoint_key for a in restoration.nodes[node_id].attributes]
            raise AssertionError("Unresolved object in checkpoint %s: attributes %s"
                                 % (restoration.describe(node_id), keys))
        unused = restoration.unused_attributes()
        if unused:
            raise AssertionError(
                "Unused attributes in these objects (the attributes exist in the checkpoint "
                "but were not restored):\n" + "\n".join(
                    "%s: %s" % (restoration.describe(node_id), name)
                    for node_id, name in unused))
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Raises AssertionError if a variable that exists below the root got no value."""
        matched = {identity for identity, _ in self._restoration.matched.values()}
        gathered = trackables.gather(self._live_root, self._attached)
        unmatched = [(path, value) for path, value in zip(gathered.paths, gathered.objects)
                     if isinstance(value, Variable) and id(value) not in matched]
        if unmatched:
            shown = unmatched[:10]
            raise AssertionError(
                "Found %d Python objects that were not bound to checkpointed values, likely "
                "due to changes in the Python program. Showing %d of %d unmatched objects: %s"
                % (len(unmatched), len(shown), len(unmatched),
                   ", ".join("%s (%s)" % (trackables.pretty_path(path), value.name)
                             for path, value in shown)))
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Raises AssertionError if nothing but the root was matched."""
        if len(self._restoration.matched) <= 1:
            raise AssertionError("Nothing except the root object matched a checkpointed "
                                 "value. Typically this means that the checkpoint does not "
                                 "match the Python program.")
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Says that values of the checkpoint may stay unrestored: no warning is logged for
        them when the Checkpoint is deleted. Returns the status."""
        self._restoration.flags["partial_expected"] = True
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: values are assigned eagerly (TensorFlow 1's graph-mode hook)."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: values are assigned eagerly (TensorFlow 1's graph-mode hook)."""


class InitializationOnlyStatus:
    """The status of `restore(None)`: nothing was restored."""

    def assert_consumed(self) -> InitializationOnlyStatus:
        """Raises AssertionError: nothing was restored."""
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    def assert_existing_objects_matched(self) -> InitializationOnlyStatus:
        """Raises AssertionError: nothing was restored."""
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    def assert_nontrivial_match(self) -> InitializationOnlyStatus:
        """Raises AssertionError: nothing was restored."""
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    def expect_partial(self) -> InitializationOnlyStatus:
        """Returns the status."""
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run."""
