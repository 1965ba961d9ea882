"""One home for running a script in a fresh process whose JAX sees two CPU devices."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_on_two_cpu_devices(script, tmp_path):
    """Runs `script` (source text) in a new Python with XLA forced to two host devices;
    asserts that it exits 0 and that its output ends with "ok"."""
    env = dict(os.environ, PYTHONPATH=REPO,
               XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    path = tmp_path / "sharded.py"
    path.write_text(script)
    ran = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip().endswith("ok")
