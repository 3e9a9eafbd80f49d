"""Run on every rank of an MPI job: init the default group, run the named check sets
(mp_collectives, mp_ddp, mp_sync_batchnorm), and write each check's outcome ("ok" or the
error) to OUTDIR/rank<R>.json for tests/distributed/test_distributed.py.

    chainrule launch --nproc N tests/distributed/mp_worker.py OUTDIR collectives ddp sync_batchnorm
"""

import faulthandler
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import chainrule.distributed as dist  # noqa: E402

TIMEOUT = 60  # seconds for one check


def main(outdir, sets):
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    checks = {}
    for name in sets:
        checks.update(__import__(f"mp_{name}").CHECKS)
    results, seconds = {}, {}
    for name, check in checks.items():
        start = time.perf_counter()
        faulthandler.dump_traceback_later(TIMEOUT, exit=True)  # a hang ends the job, with stacks
        if os.environ.get("CHAINRULE_MP_VERBOSE"):
            print(f"rank {rank}: {name}", file=sys.stderr, flush=True)
        try:
            check(rank, world)
            results[name] = "ok"
        except Exception:  # recorded, so that every rank goes on with the same calls
            results[name] = traceback.format_exc()
        faulthandler.cancel_dump_traceback_later()
        seconds[name] = time.perf_counter() - start
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as f:
        json.dump({"world": world, "results": results, "seconds": seconds}, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
