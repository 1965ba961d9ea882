"""`SaveOptions`: the options of `save`, under TensorFlow's names and defaults.

One option changes what is saved here: `experimental_custom_gradients` (True by default, as
in TensorFlow) saves the gradient function of each `tf.custom_gradient` a saved function
calls as a traced graph beside it, so that the loaded function's gradient is the custom one;
with False that gradient is not saved, and asking for a gradient through such a function
after loading raises LookupError. TensorFlow's other options concern its own file format
and devices: they are accepted at their default values, and refused otherwise.
"""

from __future__ import annotations

from typing import Any

# TensorFlow's other options and their defaults (tf.saved_model.SaveOptions in TF 2.21).
_OTHER_OPTIONS: dict[str, Any] = {
    "namespace_whitelist": None, "save_debug_info": False, "function_aliases": None,
    "experimental_debug_stripper": False, "experimental_io_device": None,
    "experimental_variable_policy": None, "experimental_image_format": False,
    "experimental_skip_saver": False, "experimental_sharding_callback": None,
    "extra_tags": None,
}


class SaveOptions:
    """Options for `save` (TensorFlow's `tf.saved_model.SaveOptions`); see the module
    docstring for what each does here."""

    __slots__ = ("experimental_custom_gradients",) + tuple(_OTHER_OPTIONS)

    def __init__(self, namespace_whitelist: Any = None, save_debug_info: bool = False,
                 function_aliases: Any = None, experimental_debug_stripper: bool = False,
                 experimental_io_device: Any = None, experimental_variable_policy: Any = None,
                 experimental_custom_gradients: bool = True,
                 experimental_image_format: bool = False,
                 experimental_skip_saver: bool = False,
                 experimental_sharding_callback: Any = None, extra_tags: Any = None) -> None:
        given = dict(locals())
        for name, default in _OTHER_OPTIONS.items():
            if given[name] != default:
                raise NotImplementedError(
                    "SaveOptions(%s=%r) is not supported: it concerns TensorFlow's own saved "
                    "model format or devices (only experimental_custom_gradients changes what "
                    "is saved here)" % (name, given[name]))
            setattr(self, name, default)
        if not isinstance(experimental_custom_gradients, bool):
            raise TypeError("SaveOptions(experimental_custom_gradients=...) must be a bool, "
                            "got %r" % (experimental_custom_gradients,))
        self.experimental_custom_gradients = experimental_custom_gradients


DEFAULT = SaveOptions()
