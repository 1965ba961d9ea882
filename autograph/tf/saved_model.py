"""`tf.saved_model`: saving traced functions and variables to a folder, loading them back."""

from runtime.saved_model import (
    SERVING_DEFAULT as SERVING_DEFAULT_SIGNATURE_DEF_KEY,
)
from runtime.saved_model import (
    NotSaveableError,
    SavedModelError,
    SaveOptions,
    load,
    save,
)
