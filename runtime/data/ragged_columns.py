"""RaggedTensors in dataset elements, batched and split into rows.

A RaggedTensor leaf of ragged rank k travels through a pipeline as k + 1 numpy arrays, in
`runtime.nest`'s order: the flat values, then the row splits of each ragged dimension from
the innermost out. As in TensorFlow, a row of a ragged rank 1 tensor is a dense tensor (its
spec a RaggedTensorSpec of ragged rank 0), and batching k-ragged elements gives a
(k + 1)-ragged batch:

    rows [0, 1], [2]  --batch-->  values [0, 1, 2], row_splits [0, 2, 3]
"""

import numpy as np

from runtime import errors


def count_rows(parts, ragged_rank):
    """The number of rows of a ragged leaf given as its arrays `parts`."""
    if ragged_rank == 0:
        return np.shape(parts[0])[0]
    return len(parts[-1]) - 1


def row(parts, ragged_rank, i):
    """The arrays of row `i` of a ragged leaf (ragged rank one less): the outer splits
    select the row, each inner level is cut to it and restarted at 0."""
    if ragged_rank == 0:
        return (parts[0][i],)
    flat, splits = parts[0], list(parts[1:])  # innermost first
    start, stop = int(splits[-1][i]), int(splits[-1][i + 1])
    inner = []
    for level in reversed(splits[:-1]):  # outermost of the rest first
        cut = np.asarray(level[start:stop + 1], np.int64)
        inner.append(cut - cut[0])
        start, stop = int(level[start]), int(level[stop])
    return (flat[start:stop],) + tuple(reversed(inner))


def batch(elements, ragged_rank):
    """The arrays of one batch of ragged leaves of ragged rank `ragged_rank`: their values
    joined, each level's splits joined (offset by the values before), and new outer splits
    counting each element's rows."""
    flats = [e[0] for e in elements]
    inner_shapes = {np.shape(f)[1:] for f in flats}
    if len(inner_shapes) > 1:
        raise errors.InvalidArgumentError(
            "batch: cannot batch ragged elements whose uniform inner dimensions differ: %s"
            % sorted(inner_shapes), "IteratorGetNext")
    levels = []
    for level in range(ragged_rank):
        joined, offset = [0], 0
        for e in elements:
            splits = np.asarray(e[1 + level], np.int64)
            joined.extend((splits[1:] + offset).tolist())
            offset += int(splits[-1])
        levels.append(np.asarray(joined, np.int64))
    outer = np.cumsum([0] + [count_rows(e, ragged_rank) for e in elements]).astype(np.int64)
    values = np.concatenate(flats) if flats else np.zeros((0,), np.float32)
    return (values,) + tuple(levels) + (outer,)
