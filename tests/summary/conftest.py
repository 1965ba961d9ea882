"""Each summary test starts with no default writer, no step and no `record_if`, and leaves
none behind (the recording state is per thread, shared by the tests), nor graph tracing on."""

import pytest

from runtime.summary import trace, writers


@pytest.fixture(autouse=True)
def clean_recording_state():
    state = writers._state
    saved = (list(state.writers), state.step, list(state.conditions))
    state.writers[:], state.step, state.conditions[:] = [], None, []
    yield
    state.writers[:], state.step, state.conditions[:] = saved
    trace.trace_off()
