"""Checks of chainrule.distributed's collectives, run on every rank of an MPI job.

Every rank can compute every rank's input (seeded by rank), so each check compares its
result with NumPy's reduction of all the inputs. ``CHECKS`` maps a check's name to a
function of (rank, world size) that raises on a mismatch; mp_worker.py runs them.
"""

from __future__ import annotations

import ml_dtypes  # noqa: F401 - NumPy's name "bfloat16" (the arrays of bfloat16 tensors)
import numpy as np

import chainrule as torch
import chainrule.distributed as dist

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]  # fmt: skip
OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
SHAPE = (3, 4)


def floating(dtype: str) -> bool:
    return "float" in dtype


def data(dtype: str, rank: int, shape: tuple = SHAPE, salt: int = 0) -> np.ndarray:
    """Rank ``rank``'s input: small values, so that products do not overflow int8."""
    rng = np.random.default_rng(1000 * salt + rank)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if floating(dtype):
        return rng.uniform(-2, 2, shape).astype(dtype)
    low = 0 if dtype == "uint8" else -3
    values = rng.integers(low, 4, shape)
    return np.where(values == 0, 1, values).astype(dtype)


def tensor(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(a.copy())


def tol(dtype: str) -> dict:
    return {
        "float16": {"rtol": 2e-3, "atol": 2e-3},
        "bfloat16": {"rtol": 8e-3, "atol": 8e-3},  # (reduced in float32, rounded once)
        "float32": {"rtol": 1e-6, "atol": 1e-6},
    }.get(dtype, {"rtol": 1e-12, "atol": 1e-12})


def close(got: torch.Tensor | np.ndarray, want: np.ndarray, dtype: str) -> None:
    got = got._data if isinstance(got, torch.Tensor) else got  # (bfloat16 has no numpy())
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if floating(dtype):
        np.testing.assert_allclose(got.astype("float64"), want.astype("float64"), **tol(dtype))
    else:
        np.testing.assert_array_equal(got, want)


def valid(op: str, dtype: str) -> bool:
    if dtype == "bool":
        return op != "AVG"
    return not (floating(dtype) and op in ("BAND", "BOR", "BXOR"))


def expected(op: str, dtype: str, inputs: list[np.ndarray]) -> np.ndarray:
    """NumPy's reduction of the ranks' inputs (bool: the logical one)."""
    x = np.stack(inputs)
    if dtype == "bool":
        f = {"SUM": np.any, "MAX": np.any, "BOR": np.any, "PRODUCT": np.all, "MIN": np.all,
             "BAND": np.all}  # fmt: skip
        if op == "BXOR":
            return np.logical_xor.reduce(x, axis=0)
        return f[op](x, axis=0)
    wide = x.astype("float64") if floating(dtype) else x.astype("int64")
    if op == "SUM":
        out = wide.sum(0)
    elif op == "AVG":
        out = wide.sum(0) / len(inputs)
        out = out if floating(dtype) else np.trunc(out)
    elif op == "PRODUCT":
        out = wide.prod(0)
    elif op == "MIN":
        out = wide.min(0)
    elif op == "MAX":
        out = wide.max(0)
    else:
        out = {"BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}[op].reduce(
            x, axis=0
        )
    return out.astype(dtype)


# ---------------------------------------------------------------- the checks


def check_all_reduce(dtype: str, op: str, async_op: bool = False):
    def run(rank: int, world: int) -> None:
        t = tensor(data(dtype, rank))
        array = t._data
        reduce_op = getattr(dist.ReduceOp, op)
        if not valid(op, dtype):
            try:
                dist.all_reduce(t, op=reduce_op)
            except ValueError:
                return
            raise AssertionError(f"all_reduce {op} on {dtype} did not raise")
        work = dist.all_reduce(t, op=reduce_op, async_op=async_op)
        if async_op:
            work.wait()
            assert work.is_completed()
        assert t._data is array  # in place, no copy
        close(t, expected(op, dtype, [data(dtype, r) for r in range(world)]), dtype)

    return run


def check_reduce(dtype: str, op: str):
    def run(rank: int, world: int) -> None:
        if not valid(op, dtype):
            return
        dst = world - 1
        t = tensor(data(dtype, rank))
        dist.reduce(t, dst=dst, op=getattr(dist.ReduceOp, op))
        if rank == dst:
            close(t, expected(op, dtype, [data(dtype, r) for r in range(world)]), dtype)
        else:
            close(t, data(dtype, rank), dtype)

    return run


def check_reduce_scatter(dtype: str, op: str, as_tensor: bool):
    def run(rank: int, world: int) -> None:
        if not valid(op, dtype):
            return
        inputs = [data(dtype, r, (world * 2, 3)) for r in range(world)]
        want = expected(op, dtype, inputs)[2 * rank : 2 * rank + 2]
        out = torch.zeros(2, 3, dtype=getattr(torch, dtype))
        reduce_op = getattr(dist.ReduceOp, op)
        if as_tensor:
            dist.reduce_scatter_tensor(out, tensor(inputs[rank]), op=reduce_op)
        else:
            pieces = list(tensor(inputs[rank]).split(2))
            dist.reduce_scatter(out, pieces, op=reduce_op)
        close(out, want, dtype)

    return run


def check_moves(dtype: str):
    """broadcast, all_gather(_into_tensor), gather, scatter, all_to_all(_single), send/recv."""

    def run(rank: int, world: int) -> None:
        dt = getattr(torch, dtype)
        mine = data(dtype, rank)
        every = [data(dtype, r) for r in range(world)]
        # broadcast from the last rank, async
        t = tensor(mine)
        dist.broadcast(t, src=world - 1, async_op=True).wait()
        close(t, every[-1], dtype)
        # all_gather into a list, and into one tensor (concatenated and stacked)
        got = [torch.zeros(*SHAPE, dtype=dt) for _ in range(world)]
        dist.all_gather(got, tensor(mine))
        for g, want in zip(got, every):
            close(g, want, dtype)
        cat = torch.zeros(world * SHAPE[0], SHAPE[1], dtype=dt)
        dist.all_gather_into_tensor(cat, tensor(mine))
        close(cat, np.concatenate(every), dtype)
        stacked = torch.zeros(world, *SHAPE, dtype=dt)
        dist.all_gather_into_tensor(stacked, tensor(mine))
        close(stacked, np.stack(every), dtype)
        # gather to rank 0, scatter from rank 0
        target = [torch.zeros(*SHAPE, dtype=dt) for _ in range(world)] if rank == 0 else None
        dist.gather(tensor(mine), target, dst=0)
        if rank == 0:
            for g, want in zip(target, every):
                close(g, want, dtype)
        pieces = [tensor(data(dtype, r, salt=1)) for r in range(world)] if rank == 0 else None
        out = torch.zeros(*SHAPE, dtype=dt)
        dist.scatter(out, pieces, src=0)
        close(out, data(dtype, rank, salt=1), dtype)
        # all_to_all: rank i's piece j goes to rank j's slot i
        piece = lambda i, j: data(dtype, 10 * i + j, (2, 2), salt=2)
        outs = [torch.zeros(2, 2, dtype=dt) for _ in range(world)]
        dist.all_to_all(outs, [tensor(piece(rank, j)) for j in range(world)])
        for i, o in enumerate(outs):
            close(o, piece(i, rank), dtype)
        single = torch.zeros(world * 2, 2, dtype=dt)
        dist.all_to_all_single(
            single, tensor(np.concatenate([piece(rank, j) for j in range(world)]))
        )
        close(single, np.concatenate([piece(i, rank) for i in range(world)]), dtype)
        # uneven splits: rank i sends j+1 rows to rank j
        rows = lambda i, j: data(dtype, 10 * i + j, (j + 1, 2), salt=3)
        send = np.concatenate([rows(rank, j) for j in range(world)])
        recv = torch.zeros(world * (rank + 1), 2, dtype=dt)
        dist.all_to_all_single(recv, tensor(send), [rank + 1] * world, list(range(1, world + 1)))
        close(recv, np.concatenate([rows(i, rank) for i in range(world)]), dtype)
        # a ring of point-to-point messages
        nxt, prev = (rank + 1) % world, (rank - 1) % world
        work = dist.isend(tensor(mine), dst=nxt)
        got = torch.zeros(*SHAPE, dtype=dt)
        assert dist.recv(got, src=prev) == prev
        work.wait()
        close(got, every[prev], dtype)
        # irecv from any source, send; the sender's rank comes back
        if rank == 0:
            got = torch.zeros(*SHAPE, dtype=dt)
            sources = set()
            for _ in range(world - 1):
                sources.add(dist.recv(got))
            assert sources == set(range(1, world)), sources
        else:
            dist.send(tensor(mine), dst=0)

    return run


def check_non_contiguous(rank: int, world: int) -> None:
    base = tensor(data("float64", rank, (4, 3)))
    view = base.t()  # not contiguous: reduced in a copy, written back
    dist.all_reduce(view)
    want = expected("SUM", "float64", [data("float64", r, (4, 3)) for r in range(world)])
    close(base, want, "float64")
    out = torch.zeros(6, 4).t()
    dist.all_gather_into_tensor(out, torch.ones(4 * 6 // world))
    assert bool((out == 1).all())


def check_groups(rank: int, world: int) -> None:
    pair = dist.new_group([1, 0])
    t = torch.tensor([float(rank + 1)])
    result = dist.all_reduce(t, group=pair)
    if rank < 2:
        assert dist.get_process_group_ranks(pair) == [0, 1]
        assert dist.get_rank(pair) == rank and dist.get_world_size(pair) == 2
        assert t.item() == 3.0, t
        b = torch.tensor([float(rank)])
        dist.broadcast(b, src=1, group=pair)  # src is a world rank, as in PyTorch
        assert b.item() == 1.0
    else:
        assert pair is dist.GroupMember.NON_GROUP_MEMBER and result is None
        assert dist.get_rank(pair) == -1 and t.item() == rank + 1
    odd = dist.new_group(list(range(1, world, 2)))
    if rank % 2:
        t = torch.tensor([rank])
        dist.all_reduce(t, group=odd)
        assert t.item() == sum(range(1, world, 2))
        assert dist.get_global_rank(odd, 0) == 1 and dist.get_group_rank(odd, rank) == rank // 2
    dist.barrier()
    assert dist.barrier(async_op=True).wait()


def check_objects(rank: int, world: int) -> None:
    objs = [{"rank": rank}, "x" * rank, None] if rank == 1 else [None, None, None]
    dist.broadcast_object_list(objs, src=1)
    assert objs == [{"rank": 1}, "x", None], objs
    gathered = [None] * world
    dist.all_gather_object(gathered, (rank, [rank] * rank))
    assert gathered == [(r, [r] * r) for r in range(world)], gathered
    at0 = [None] * world if rank == 0 else None
    dist.gather_object(rank * 10, at0, dst=0)
    if rank == 0:
        assert at0 == [r * 10 for r in range(world)]
    out = [None]
    dist.scatter_object_list(out, [f"to {r}" for r in range(world)] if rank == 0 else None, src=0)
    assert out == [f"to {rank}"], out


def check_errors(rank: int, world: int) -> None:
    try:
        dist.all_reduce([1.0])
    except TypeError as exc:
        assert "Expected parameter `tensor` of type torch.Tensor" in str(exc)
    else:
        raise AssertionError("all_reduce of a list did not raise")
    try:
        dist.init_process_group("mpi")
    except ValueError as exc:
        assert str(exc) == "trying to initialize the default process group twice!"
    else:
        raise AssertionError("a second init_process_group did not raise")
    assert dist.is_initialized() and dist.get_backend() == "gloo"


CHECKS: dict = {}
for _dtype in DTYPES:
    for _op in OPS:
        CHECKS[f"all_reduce[{_dtype},{_op}]"] = check_all_reduce(_dtype, _op)
        CHECKS[f"reduce[{_dtype},{_op}]"] = check_reduce(_dtype, _op)
        CHECKS[f"reduce_scatter[{_dtype},{_op}]"] = check_reduce_scatter(_dtype, _op, False)
        CHECKS[f"reduce_scatter_tensor[{_dtype},{_op}]"] = check_reduce_scatter(_dtype, _op, True)
    CHECKS[f"all_reduce_async[{_dtype}]"] = check_all_reduce(_dtype, "SUM", async_op=True)
    CHECKS[f"moves[{_dtype}]"] = check_moves(_dtype)
CHECKS["non_contiguous"] = check_non_contiguous
CHECKS["groups"] = check_groups
CHECKS["objects"] = check_objects
CHECKS["errors"] = check_errors
