"""torchdata runs unchanged under ``chainrule run`` and gives what it gives on the real
PyTorch: ``StatefulDataLoader`` (mid-epoch ``state_dict``/``load_state_dict`` resuming
with the remaining batches, in the main process and with 2 worker processes, persistent
workers, workers started with "spawn", StatefulDistributedSampler, map-style and stateful iterable datasets, shuffling, drop_last, unbatched and
custom collation) and ``torchdata.nodes`` pipelines (SamplerWrapper, IterableWrapper,
MapStyleWrapper, Mapper, ParallelMapper on threads and processes, Prefetcher, Batcher, Unbatcher,
MultiNodeWeightedSampler, Loader, with their state) (torchdata_cases.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from two_sides import both_sides, check_case, check_sides

if not all(importlib.util.find_spec(m) for m in ("torch", "torchdata")):
    pytest.skip("needs the real torch and torchdata (the oracle)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("torchdata_cases.py")

# every case of torchdata_cases.py (the test checks the script runs exactly these)
CASES = [
    "stateful_in_order",
    "stateful_options",
    "stateful_shuffled",
    "stateful_distributed_sampler",
    "stateful_iterable_dataset",
    "stateful_workers",
    "stateful_persistent_workers",
    "spawned_workers_and_processes",
    "nodes_pipelines",
    "nodes_weighted_sampler",
]


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("torchdata")


@pytest.fixture(scope="module")
def sides(out: Path) -> tuple[dict, dict]:
    return both_sides(SCRIPT, "torchdata", out)


def test_sides_and_cases(sides: tuple[dict, dict]) -> None:
    check_sides(sides, CASES)


@pytest.mark.parametrize("case", CASES)
def test_case(sides: tuple[dict, dict], case: str) -> None:
    check_case(sides, case, False)


def test_resumes_continue_the_epoch(sides: tuple[dict, dict]) -> None:
    """Under chainrule, each resumed loader gives exactly the rest of the epoch."""
    res = sides[1]["results"]
    for name in ("seq", "workers", "spawn"):
        head, rest = res[f"{name}.head.ids"].tolist(), res[f"{name}.rest.ids"].tolist()
        assert head + rest == list(range(23))
    assert res["spawn.after.ids"].tolist() == res["spawn.rest.ids"].tolist()
    got = np.concatenate([res["iterable.head"], res["iterable.rest"]])
    np.testing.assert_array_equal(got, res["iterable.full"])
    assert res["persistent.head"].tolist() + res["persistent.rest"].tolist() == list(range(23))
    assert res["nodes.parallel.head"].tolist() + res["nodes.parallel.rest"].tolist() == [
        1.5 * i for i in range(23)
    ]
    keys = ("shuffled.resume_continues", "shuffled.all_once", "weighted.resume_continues")
    for key in (*keys, "dist.True.resume_continues", "dist.False.resume_continues"):
        assert bool(res[key]), key


def test_real_torchdata_resumes_from_chainrule_state(sides: tuple[dict, dict], out: Path) -> None:
    """The real StatefulDataLoader (on the real PyTorch, in this process) resumes from the
    mid-epoch states chainrule's run saved, with the batches chainrule resumed with."""
    import torch
    from torch.utils.data import TensorDataset
    from torchdata.stateful_dataloader import StatefulDataLoader

    ours = sides[1]["results"]
    data = TensorDataset(torch.zeros(23, 3), torch.arange(23))
    for name, kw in (("seq", {"batch_size": 4}), ("workers", {"batch_size": 3, "num_workers": 2})):
        state = torch.load(out / f"torchdata_cr_state_{name}.pt")
        loader = StatefulDataLoader(data, **kw)
        loader.load_state_dict(state)
        rest = [int(i) for _, ids in loader for i in ids]
        assert rest == ours[f"{name}.rest.ids"].tolist(), name
