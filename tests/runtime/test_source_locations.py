"""A SourceLocation names the user's file, line and function; tracing shares one among the
nodes of a line, so it never changes once made."""

import copy
import pickle

import pytest

from runtime import errors
from runtime.saved_model.graph_decode import SavedLocation


def test_a_location_cannot_be_changed():
    location = errors.SourceLocation("model.py", 12, "step")
    with pytest.raises(AttributeError, match="does not change once made"):
        location.lineno = 13
    assert (location.filename, location.lineno, location.function) == ("model.py", 12, "step")


def test_copies_are_the_location_itself_and_pickles_make_an_equal_one():
    location = errors.SourceLocation("model.py", 12, "step")
    assert copy.copy(location) is location and copy.deepcopy(location) is location
    again = pickle.loads(pickle.dumps(location))
    assert (again.filename, again.lineno, again.function) == ("model.py", 12, "step")


def test_a_saved_location_keeps_its_text_through_a_pickle():
    saved = SavedLocation("gone.py", 3, "f", "y = x * 2")
    again = pickle.loads(pickle.dumps(saved))
    assert type(again) is SavedLocation and again.source_line() == "y = x * 2"
    with pytest.raises(AttributeError):
        saved.text = "other"


def test_the_user_location_is_the_first_frame_outside_the_project():
    location = errors.user_location(skip=1)
    assert location.filename == __file__ and location.function == (
        "test_the_user_location_is_the_first_frame_outside_the_project")
