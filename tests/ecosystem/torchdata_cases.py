"""The torchdata cases of test_torchdata.py, run once per side.

``python torchdata_cases.py OUT oracle`` runs every case on the real PyTorch
(``OUT/torchdata_oracle.npz``); ``chainrule run torchdata_cases.py OUT chainrule`` runs
them under chainrule (``OUT/torchdata_chainrule.npz``). Datasets are made with NumPy, so
both sides hold the same data. Orders drawn from ``torch``'s generator (shuffling, weighted
sampling) differ between the two, so those cases put what must hold on either side: the
batches after a resume equal the rest of the uninterrupted run, and every sample comes
once. A case that raises records its traceback in ``OUT/torchdata_<side>_errors.json``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import numpy as np
import torch
import torchdata.nodes as tn
from case_runner import Cases
from torch.utils.data import Dataset, IterableDataset, SequentialSampler, TensorDataset
from torchdata.stateful_dataloader import StatefulDataLoader
from torchdata.stateful_dataloader.sampler import StatefulDistributedSampler

OUT, SIDE = sys.argv[1], sys.argv[2]
ORACLE = SIDE == "oracle"
CASES = Cases()
case, put = CASES.case, CASES.put

N = 23
DATA = np.random.default_rng(0).standard_normal((N, 3)).astype(np.float32)


def tensor_dataset() -> TensorDataset:
    return TensorDataset(torch.tensor(DATA), torch.arange(N))


def ids(batches: list) -> list[int]:
    """The sample ids of (features, ids) batches, in order."""
    return [int(i) for b in batches for i in b[1]]


def put_batches(name: str, batches: list) -> None:
    put(f"{name}.x", torch.cat([b[0] for b in batches]) if batches else np.zeros((0, 3)))
    put(f"{name}.ids", ids(batches))
    put(f"{name}.sizes", [len(b[1]) for b in batches])


def from_oracle_state(name: str, make: Callable[[], StatefulDataLoader], state: dict) -> list:
    """The batches a fresh loader gives from the oracle's ``state`` (saved by the oracle
    with ``torch.save``; both sides load that file)."""
    path = f"{OUT}/torchdata_state_{name}.pt"
    if ORACLE:
        torch.save(state, path)
    else:  # (test_torchdata.py resumes the real StatefulDataLoader from this one)
        torch.save(state, f"{OUT}/torchdata_cr_state_{name}.pt")
    loader = make()
    loader.load_state_dict(torch.load(path))
    return list(loader)


def resume_run(make: Callable[[], StatefulDataLoader], stop: int) -> tuple[list, list, list, dict]:
    """An uninterrupted epoch; the first ``stop`` batches of another with its state then;
    and the batches a fresh loader gives from that state."""
    full = list(make())
    loader = make()
    it = iter(loader)
    head = [next(it) for _ in range(stop)]
    state = loader.state_dict()
    resumed_loader = make()
    resumed_loader.load_state_dict(state)
    rest = list(resumed_loader)
    return full, head, rest, state


class Squares(Dataset):
    """A map-style dataset of (i, i*i) dicts."""

    def __len__(self) -> int:
        return N

    def __getitem__(self, i: int) -> dict:
        return {"i": i, "sq": torch.tensor([float(i * i)])}


class Counter(IterableDataset):
    """An iterable dataset of the numbers below ``limit``, with how many it yielded as its
    state; in worker processes, worker ``k`` of ``n`` yields ``k, k + n, k + 2n, ...`` (each
    worker's copy keeps its own state)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pos = 0

    def __iter__(self) -> Iterator[torch.Tensor]:
        info = torch.utils.data.get_worker_info()
        step, offset = (1, 0) if info is None else (info.num_workers, info.id)
        while offset + self.pos * step < self.limit:
            i = offset + self.pos * step
            self.pos += 1
            yield torch.tensor([float(i)])

    def state_dict(self) -> dict:
        return {"pos": self.pos}

    def load_state_dict(self, state: dict) -> None:
        self.pos = state["pos"]


@case
def stateful_in_order() -> None:
    make = lambda: StatefulDataLoader(tensor_dataset(), batch_size=4)  # noqa: E731
    full, head, rest, state = resume_run(make, 2)
    put_batches("seq.full", full)
    put_batches("seq.head", head)
    put_batches("seq.rest", rest)
    put("seq.state.num_yielded", state["_num_yielded"])
    put("seq.state.sampler_yielded", state["_sampler_iter_yielded"])
    put("seq.len", len(make()))
    put_batches("seq.rest_from_oracle_state", from_oracle_state("seq", make, state))


@case
def stateful_options() -> None:
    # drop_last, batch_size=None (no auto-collation), a custom collate_fn, dict samples
    make = lambda: StatefulDataLoader(tensor_dataset(), batch_size=5, drop_last=True)  # noqa: E731
    full, _, rest, _ = resume_run(make, 3)
    put_batches("drop_last.full", full)
    put_batches("drop_last.rest", rest)
    make = lambda: StatefulDataLoader(Squares(), batch_size=None)  # noqa: E731
    full, _, rest, _ = resume_run(make, 20)
    put("unbatched.full", [int(s["i"]) for s in full])
    put("unbatched.rest", [int(s["i"]) for s in rest])
    put("unbatched.sq", torch.cat([s["sq"] for s in rest]))

    def collate(samples: list) -> torch.Tensor:
        return torch.stack([s["sq"][0] + s["i"] for s in samples])

    make = lambda: StatefulDataLoader(Squares(), batch_size=6, collate_fn=collate)  # noqa: E731
    full, _, rest, _ = resume_run(make, 1)
    put("collate.full", torch.cat(full))
    put("collate.rest", torch.cat(rest))
    loader = StatefulDataLoader(Squares(), batch_size=4)
    batch = next(iter(loader))
    put("dict_batch.i", batch["i"])
    put("dict_batch.sq", batch["sq"])


@case
def stateful_shuffled() -> None:
    def make() -> StatefulDataLoader:
        g = torch.Generator()
        g.manual_seed(7)
        return StatefulDataLoader(tensor_dataset(), batch_size=4, shuffle=True, generator=g)

    full, head, rest, _ = resume_run(make, 3)
    put("shuffled.resume_continues", ids(head) + ids(rest) == ids(full))
    put("shuffled.all_once", sorted(ids(full)) == list(range(N)))
    put("shuffled.rest_len", len(ids(rest)))
    # the state after one complete epoch: the next epoch starts over
    loader = make()
    list(loader)
    state = loader.state_dict()
    again = make()
    again.load_state_dict(state)
    put("shuffled.next_epoch_all_once", sorted(ids(list(again))) == list(range(N)))


@case
def stateful_distributed_sampler() -> None:
    # rank 1 of 2 replicas (the sampler is given them: no process group needed)
    for shuffle in (False, True):

        def make(shuffle: bool = shuffle) -> StatefulDataLoader:
            sampler = StatefulDistributedSampler(
                tensor_dataset(), num_replicas=2, rank=1, shuffle=shuffle, seed=5
            )
            return StatefulDataLoader(tensor_dataset(), batch_size=3, sampler=sampler)

        full, head, rest, _ = resume_run(make, 2)
        put(f"dist.{shuffle}.resume_continues", ids(head) + ids(rest) == ids(full))
        put(f"dist.{shuffle}.count", len(ids(full)))
        if not shuffle:
            put("dist.in_order", ids(full))


@case
def stateful_iterable_dataset() -> None:
    make = lambda: StatefulDataLoader(Counter(17), batch_size=3)  # noqa: E731
    full, head, rest, state = resume_run(make, 2)
    put("iterable.full", torch.cat(full))
    put("iterable.head", torch.cat(head))
    put("iterable.rest", torch.cat(rest))
    put("iterable.dataset_state", state["dataset_state"]["pos"])
    put("iterable.rest_from_oracle_state", torch.cat(from_oracle_state("iterable", make, state)))


@case
def stateful_workers() -> None:
    make = lambda: StatefulDataLoader(tensor_dataset(), batch_size=3, num_workers=2)  # noqa: E731
    full, head, rest, state = resume_run(make, 3)
    put_batches("workers.full", full)
    put_batches("workers.head", head)
    put_batches("workers.rest", rest)
    put("workers.snapshot_step", state["_snapshot"]["_snapshot_step"])
    put("workers.last_worker", state["_snapshot"]["_last_yielded_worker_id"])
    put_batches("workers.rest_from_oracle_state", from_oracle_state("workers", make, state))
    make = lambda: StatefulDataLoader(Counter(14), batch_size=2, num_workers=2)  # noqa: E731
    full, head, rest, _ = resume_run(make, 3)
    put("workers.iterable.full", torch.cat(full))
    put("workers.iterable.rest", torch.cat(rest))


@case
def stateful_persistent_workers() -> None:
    loader = StatefulDataLoader(
        tensor_dataset(), batch_size=5, num_workers=2, persistent_workers=True
    )
    epochs = [ids(list(loader)) for _ in range(2)]
    it = iter(loader)
    head = [next(it) for _ in range(2)]
    state = loader.state_dict()
    other = StatefulDataLoader(
        tensor_dataset(), batch_size=5, num_workers=2, persistent_workers=True
    )
    other.load_state_dict(state)
    put("persistent.epochs", epochs)
    put("persistent.head", ids(head))
    put("persistent.rest", ids(list(other)))


@case
def spawned_workers_and_processes() -> None:
    # a worker process started with "spawn" (it imports torch afresh), resumed in a
    # forked one; ParallelMapper's process workers
    loader = StatefulDataLoader(
        tensor_dataset(), batch_size=4, num_workers=1, multiprocessing_context="spawn"
    )
    it = iter(loader)
    head = [next(it) for _ in range(2)]
    state = loader.state_dict()
    resumed = StatefulDataLoader(tensor_dataset(), batch_size=4, num_workers=1)
    resumed.load_state_dict(state)
    put_batches("spawn.head", head)
    put_batches("spawn.rest", list(resumed))
    put_batches("spawn.after", list(it))
    node = tn.SamplerWrapper(SequentialSampler(range(N)))
    node = tn.ParallelMapper(
        node, map_fn=square, num_workers=2, method="process", multiprocessing_context="fork"
    )
    loader = tn.Loader(tn.Batcher(node, batch_size=5, drop_last=False))
    put("process.fork", [x for b in loader for x in b])


def square(i: int) -> torch.Tensor:
    return torch.tensor(float(i)) ** 2


def node_pipeline(method: str = "thread") -> tn.Loader:
    node = tn.SamplerWrapper(SequentialSampler(range(N)))
    node = tn.ParallelMapper(
        node, map_fn=lambda i: float(i) * 1.5, num_workers=2, method=method, in_order=True
    )
    node = tn.Batcher(node, batch_size=4, drop_last=False)
    return tn.Loader(node)


@case
def nodes_pipelines() -> None:
    loader = node_pipeline()
    put("nodes.parallel.epoch1", [x for b in loader for x in b])
    put("nodes.parallel.epoch2", [x for b in loader for x in b])
    it = iter(loader)
    head = [next(it) for _ in range(2)]
    state = loader.state_dict()
    resumed = node_pipeline()
    resumed.load_state_dict(state)
    put("nodes.parallel.head", [x for b in head for x in b])
    put("nodes.parallel.rest", [x for b in resumed for x in b])
    # iterable -> mapper -> prefetcher -> batcher -> unbatcher
    node = tn.IterableWrapper(range(11))
    node = tn.Mapper(node, lambda x: torch.tensor(x) ** 2)
    node = tn.Prefetcher(node, prefetch_factor=3)
    node = tn.Batcher(node, batch_size=3, drop_last=False)
    put("nodes.batched", [torch.stack(b).tolist() + [-1] * (3 - len(b)) for b in tn.Loader(node)])
    node = tn.Unbatcher(tn.Batcher(tn.IterableWrapper(range(7)), batch_size=2, drop_last=True))
    put("nodes.unbatched", list(tn.Loader(node)))
    # a map-style dataset read through a sampler, collated like the DataLoader
    node = tn.MapStyleWrapper(tensor_dataset(), sampler=SequentialSampler(range(N)))
    node = tn.Batcher(node, batch_size=5, drop_last=False)
    node = tn.Mapper(node, torch.utils.data.default_collate)
    put_batches("nodes.mapstyle", list(tn.Loader(node)))


@case
def nodes_weighted_sampler() -> None:
    def make() -> tn.Loader:
        sources = {"a": tn.IterableWrapper(range(0, 50)), "b": tn.IterableWrapper(range(100, 150))}
        node = tn.MultiNodeWeightedSampler(
            sources, {"a": 0.7, "b": 0.3}, stop_criteria="FIRST_DATASET_EXHAUSTED", seed=3
        )
        return tn.Loader(node)

    loader = make()
    full = list(loader)
    loader = make()
    it = iter(loader)
    head = [next(it) for _ in range(10)]
    state = loader.state_dict()
    resumed = make()
    resumed.load_state_dict(state)
    rest = list(resumed)
    put("weighted.resume_continues", head + rest == full)
    put("weighted.no_repeats", len(set(full)) == len(full))
    put(
        "weighted.one_source_exhausted",
        set(range(50)) <= set(full) or set(range(100, 150)) <= set(full),
    )


def main() -> None:
    CASES.run(f"{OUT}/torchdata_{SIDE}")


if __name__ == "__main__":
    main()
