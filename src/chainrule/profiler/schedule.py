"""Which steps a profiler records: the actions, the activities, and ``schedule``."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum


class ProfilerAction(Enum):
    """What the profiler does during a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


class ProfilerActivity(Enum):
    """What a profiler may trace. chainrule traces the CPU only: the others are accepted
    and record nothing more."""

    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


def supported_activities() -> set:
    """The activities chainrule traces: the CPU."""
    return {ProfilerActivity.CPU}


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:
    """The action for each step: after ``skip_first`` steps, cycles of ``wait`` steps doing
    nothing, ``warmup`` steps warming up and ``active`` steps recording, the last of which
    saves (RECORD_AND_SAVE); ``repeat`` cycles (0: for ever). With ``skip_first_wait``, the
    first cycle has no wait."""
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup}"
            f" (need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        import warnings

        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )

    def action(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait  # the first cycle starts at its warmup
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _default_schedule(step: int) -> ProfilerAction:
    """Without a schedule: every step records."""
    return ProfilerAction.RECORD
