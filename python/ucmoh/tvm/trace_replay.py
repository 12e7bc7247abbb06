"""A task's database form replayed: the one place that turns the candidates the
collector kept (the traces file beside each records file, docs/data.md: the
task's workload, its target, each candidate's trace) back into MetaSchedule
schedules, for the converter (`reconvert`), MetaSchedule's own models
(tools/ms_baselines.py) and the conversion benchmark (tools/ms_conversion_bench.py).
"""
import json

import tvm


class TaskForm:
    """One line of a traces file: a task and its candidates."""

    def __init__(self, line):
        form = json.loads(line) if isinstance(line, (str, bytes)) else line
        self.task = form["task"]
        if "int8" in self.task:  # the VNNI intrinsics the traces name must be registered first
            from .vnni import register
            register()
        self.workload = tvm.ir.load_json(json.dumps(form["workload"]))
        self.target = tvm.target.Target(form["target"])
        self.candidates = form["candidates"]

    def schedules(self, converted_only=True, limit=None):
        """(candidate, schedule) for each candidate, its trace applied to the
        workload. converted_only: only those with a record (`program`); the
        others are the ones the converter refused when they were measured."""
        for c in self.candidates[:limit or None]:
            if converted_only and "program" not in c:
                continue
            sch = tvm.s_tir.Schedule(self.workload)
            tvm.s_tir.schedule.Trace.apply_json_to_schedule(c["trace"], sch)
            yield c, sch
