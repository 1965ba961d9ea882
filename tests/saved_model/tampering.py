"""Helpers of the tests that tamper with saved-model folders as an attacker would: edit
graphs.json and keep the manifest's sizes and checksums right, so that the loader's own
checks, not the checksums, must refuse the edit."""

import json

from runtime.saved_model import schema


def rehash(folder):
    """Rewrites the manifest with the current size and SHA-256 of every data file."""
    manifest = json.loads((folder / schema.MANIFEST).read_text())
    for name in schema.DATA_FILES:
        content = (folder / name).read_bytes()
        manifest["files"][name] = {"sha256": schema.digest(content), "bytes": len(content)}
    (folder / schema.MANIFEST).write_text(json.dumps(manifest))


def edit_graphs(folder, change):
    """Applies `change` to the parsed graphs.json, writes it back and rehashes."""
    path = folder / schema.GRAPHS
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    rehash(folder)


def nodes_of(data, key="__call___0"):
    """The node list of saved function `key`."""
    return data["functions"][key]["graph"]["nodes"]


def node_of_op(data, op, key="__call___0"):
    """The first node of op `op` in saved function `key`."""
    return next(node for node in nodes_of(data, key) if node["op"] == op)


def within(seconds, action):
    """`action()`'s result, run in a daemon thread that must finish within `seconds` (a
    load blocked on a FIFO would never finish); its exception is raised here."""
    import threading

    outcome = {}

    def run():
        try:
            outcome["result"] = action()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            outcome["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "still running after %s s: it hangs" % seconds
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]
