"""Records without the tasks of held-out networks: the pretraining data of a
tuning study (issue 37) must not contain any task a held-out network runs.

    python -m ucmoh.tvm.hold_out --networks bert_base,resnet18 R.jsonl.gz... -o OUT.jsonl [--held HELD.jsonl]

A task shared by several networks is one task named after the first network
that has it (ucmoh.tvm.networks), so the names to drop come from the tasks'
weights, never from a name prefix: `resnet50.conv2d...` is dropped when
resnet18 runs it too. Every record is read before anything is written; the
output appears whole (renamed into place) or not at all; --held writes the
dropped records too (the held-out tasks' data, for evaluating on them). Prints what was kept
and dropped, per dtype, as one JSON line.
"""
import argparse
import collections
import json
import sys

from ..files import open_text, write_atomic
from .networks import NETWORKS, tasks


def held_out_tasks(networks):
    """Names of every fp32 and int8 task that any of `networks` runs."""
    unknown = [n for n in networks if n not in NETWORKS]
    if unknown:
        raise KeyError(f"unknown network '{unknown[0]}' (known: {', '.join(NETWORKS)})")
    return {t.name for dtype in ("float32", "int8") for t in tasks(None, dtype) if set(t.weights) & set(networks)}


def _task_of(record, path, line):
    task = record.get("task")
    key = task.get("key") if isinstance(task, dict) else None
    if not isinstance(key, str):
        raise ValueError(f"{path}:{line}: a record without task.key")
    return key


def split_records(paths, held):
    """(kept lines, dropped lines, counts): the lines of `paths` whose task is
    not in `held`, and those whose task is."""
    kept, dropped, counts = [], [], collections.Counter()
    for path in paths:
        with open_text(path) as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path}:{number}: not JSON ({e.msg})") from None
                line = line if line.endswith("\n") else line + "\n"
                if _task_of(record, path, number) in held:
                    dropped.append(line)
                    counts["dropped"] += 1
                else:
                    kept.append(line)
                    counts["kept"] += 1
    return kept, dropped, counts


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--networks", required=True, help="held-out networks, comma-separated")
    p.add_argument("records", nargs="+")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--held", help="also write the dropped records (the held-out tasks') here")
    args = p.parse_args(argv)
    try:
        networks = [n for n in args.networks.split(",") if n]
        held = held_out_tasks(networks)
        kept, dropped, counts = split_records(args.records, held)
    except (KeyError, ValueError, OSError) as e:
        print(f"hold_out: {e.args[0] if isinstance(e, KeyError) else e}", file=sys.stderr)
        return 1
    write_atomic(args.output, "".join(kept))
    if args.held:
        write_atomic(args.held, "".join(dropped))
    print(json.dumps({"networks": networks, "held_out_tasks": len(held), **counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
