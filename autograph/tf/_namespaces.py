"""Sub-namespaces of the facade's modules that TensorFlow spells as attributes of a module
(`tf.data.experimental`, `tf.config.threading`): module objects made from existing names."""

import types


def namespace(name: str, doc: str, **members: object) -> types.ModuleType:
    """A module object called `name`, documented by `doc`, holding `members`."""
    module = types.ModuleType(name, doc)
    vars(module).update(members)
    return module
