"""Saved models: traced functions and their variables written to a folder that a person can
read and diff (JSON graphs, `.npz` values, never pickle), and loaded back to run without the
source that traced them. The format is documented in docs/saved_model.md.

    save(module, "path")       # Functions with traces or input_signatures, Variables
    loaded = load("path")      # loaded.f(x), loaded.v.assign(...), loaded.signatures[...]
"""

from runtime.saved_model.errors import NotSaveableError, SavedModelError
from runtime.saved_model.load import LoadedFunction, LoadedObject, SignatureFunction, load
from runtime.saved_model.options import SaveOptions
from runtime.saved_model.save import FORMATS, SERVING_DEFAULT, save
from runtime.saved_model.schema import FORMAT_NAME, FORMAT_VERSION

__all__ = ["FORMATS", "FORMAT_NAME", "FORMAT_VERSION", "SERVING_DEFAULT", "LoadedFunction",
           "LoadedObject", "NotSaveableError", "SaveOptions", "SavedModelError",
           "SignatureFunction", "load", "save"]
