"""The replicas and strategies entered in this thread, innermost last: a ReplicaContext
inside `strategy.run`, a strategy inside its `scope()` (its cross-replica context)."""

import threading


class _ThreadContexts(threading.local):
    def __init__(self):
        self.stack = []


_contexts = _ThreadContexts()


class _Entered:
    def __init__(self, item):
        self._item = item

    def __enter__(self):
        _contexts.stack.append(self._item)
        return self._item

    def __exit__(self, *exc):
        _contexts.stack.pop()
        return False


def in_replica(context):
    """A `with` block running on replica `context`."""
    return _Entered(context)


def cross_replica(strategy):
    """A `with` block in `strategy`'s cross-replica context (its scope)."""
    return _Entered(strategy)


def current_entry():
    """The innermost entered ReplicaContext or strategy of this thread (None: none)."""
    stack = _contexts.stack
    return stack[-1] if stack else None


def thread_stack():
    """This thread's entered contexts (a copy), for replica threads to start from."""
    return list(_contexts.stack)


def adopt_stack(stack):
    """Makes `stack` this thread's entered contexts (a replica thread's start)."""
    _contexts.stack[:] = stack
