"""The tests of chainrule on 'cuda' are collected only where 'cuda' exists: a GPU with CuPy,
or the CPU stand-in (CHAINRULE_CUDA=standin, which tests/test_cuda_standin.py sets for a
run of this folder in a subprocess). Elsewhere nothing here is collected (never skipped)."""

from devices import extra_devices

collect_ignore_glob = [] if extra_devices() else ["test_*.py"]
