"""ucmoh.tvm: TVM MetaSchedule ranks candidates with the registry's model.

    from ucmoh.tvm import CostModel
    model = CostModel("registry.db", "ucmoh@stable", target)
    ms.tune_tir(mod, target, work_dir, max_trials_global=64, cost_model=model)

`tir_to_ast` turns a scheduled TIR function into the AST form
(docs/ast-json.md); `CostModel` is a MetaSchedule PyCostModel whose predict
scores those ASTs through libucmoh and whose update is libucmoh's online update
(under the version's forgetting control). Written for apache-tvm 0.27
(tools/setup-tvm). What the converter covers, and what it refuses, is in
docs/compilers.md ("TVM"): CPU programs whose blocks multiply-accumulate in
fp32 on vectorized loops (the x86.avx2 / x86.avx512 FMA intrinsics). Any other
construct raises UnsupportedTIR naming it: never silently dropped.
"""
import json

import numpy as np
import tvm
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel

import ucmoh

__all__ = ["CostModel", "UnsupportedTIR", "tir_to_ast", "cpu_intrinsic"]


class UnsupportedTIR(ValueError):
    """A TIR construct the converter does not understand (its message names it)."""


_LOOP_KINDS = {0: "serial", 1: "parallel", 2: "vectorized", 3: "unrolled"}
_DTYPES = {"float32": ("f32", 4)}


def cpu_intrinsic(target):
    """The FMA intrinsic of an LLVM CPU target and its fp32 lanes."""
    if target.kind.name != "llvm":
        raise UnsupportedTIR(f"target kind '{target.kind.name}': only llvm CPU targets are converted")
    attrs = " ".join(str(v) for v in (target.attrs.get("mcpu", ""), target.attrs.get("mattr", "")))
    if "avx512" in attrs or any(c in attrs for c in ("skylake-avx512", "cascadelake", "icelake", "sapphirerapids")):
        return "x86.avx512", 16
    return "x86.avx2", 8


def _evaluate(expr, env):
    """An integer index expression under loop values `env` (absent vars are 0)."""
    name = type(expr).__name__
    if name == "IntImm":
        return int(expr.value)
    if name == "Var":
        return env.get(id_of(expr), 0)
    binary = {"Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mul": lambda a, b: a * b,
              "FloorDiv": lambda a, b: a // b, "FloorMod": lambda a, b: a % b,
              "Min": min, "Max": max}
    if name in binary:
        return binary[name](_evaluate(expr.a, env), _evaluate(expr.b, env))
    if name == "Cast":
        return _evaluate(expr.value, env)
    raise UnsupportedTIR(f"index expression '{expr}' ({name})")


def id_of(var):
    return var.name + "#" + str(var.__hash__())


class _Converter:
    """Walks one PrimFunc; `loops` is the stack of enclosing For nodes."""

    def __init__(self, target, intrinsic, lanes):
        self.target, self.intrinsic, self.lanes = target, intrinsic, lanes
        self.buffers = {}
        self.loops = []
        self.blocks = []  # (loops at the block, realize) of the multiply-accumulate blocks
        self.copies = set()  # buffers written by copy blocks (cache_read / cache_write)

    def nodes(self, stmt):
        name = type(stmt).__name__
        if name == "SeqStmt":
            return [n for s in stmt.seq for n in self.nodes(s)]
        if name == "For":
            return self.loop(stmt)
        if name == "SBlockRealize":
            return self.block(stmt)
        raise UnsupportedTIR(f"statement {name}")

    def loop(self, loop):
        kind = int(loop.kind)
        if kind not in _LOOP_KINDS:
            raise UnsupportedTIR(f"loop '{loop.loop_var.name}' of kind {loop.kind} (thread bindings: GPU targets)")
        if type(loop.extent).__name__ != "IntImm":
            raise UnsupportedTIR(f"loop '{loop.loop_var.name}' with a symbolic extent")
        self.loops.append(loop)
        try:
            body = self.nodes(loop.body)
        finally:
            self.loops.pop()
        if _LOOP_KINDS[kind] == "vectorized":
            return body  # the vector lanes are the compute stage's calls (see block)
        return [{"loop": {"var": loop.loop_var.name, "extent": int(loop.extent.value), "kind": _LOOP_KINDS[kind]},
                 "body": body}]

    def block(self, realize):
        block = realize.block
        if block.name_hint == "root" or not block.writes:
            for buffer in block.alloc_buffers:
                self.declare(buffer)
            return self.nodes(block.body)
        what = _classify(block)
        vector = [l for l in self.loops if int(l.kind) == 2]
        width = int(vector[-1].extent.value) if vector else 1
        stages = [self.access("load", region, realize, vector, width) for region in block.reads]
        if what == "fma":
            stages.append({"stage": {"kind": "compute", "name": block.name_hint, "intrinsic": self.intrinsic,
                                     "calls": max(1, width // self.lanes), "flops_per_call": 2 * self.lanes}})
            self.blocks.append((list(self.loops), realize))
        elif what == "copy":
            self.copies.add(_buffer_of(block.writes[0]).name)
        stages += [self.access("store", region, realize, vector, width) for region in block.writes]
        return stages

    def declare(self, buffer):
        dtype = str(buffer.dtype)
        if dtype not in _DTYPES:
            raise UnsupportedTIR(f"buffer '{buffer.name}' of dtype {dtype} (fp32 FMA programs only)")
        scope = buffer.scope() if callable(getattr(buffer, "scope", None)) else "global"
        self.buffers[buffer.name] = {"name": buffer.name, "shape": [int(s) for s in buffer.shape],
                                     "dtype": _DTYPES[dtype][0], "scope": "register" if scope == "local" else "global"}

    def flat_index(self, region, realize, env):
        """The region's first element, row-major, with loop values `env`."""
        block_env = {id_of(iv.var): _evaluate(value, env) for iv, value in zip(realize.block.iter_vars, realize.iter_values)}
        buffer = _buffer_of(region)
        index = 0
        for extent, r in zip(buffer.shape, region.region):
            index = index * int(extent) + _evaluate(r.min, block_env)
        return index

    def access(self, kind, region, realize, vector, width):
        buffer = _buffer_of(region)
        if buffer.name not in self.buffers:
            self.declare(buffer)
        elements_each = 1
        for r in region.region:
            elements_each *= int(r.extent.value) if type(r.extent).__name__ == "IntImm" else 1
        stride = 0
        if vector:
            var = id_of(vector[-1].loop_var)
            stride = abs(self.flat_index(region, realize, {var: 1}) - self.flat_index(region, realize, {var: 0}))
        elements = elements_each * (width if stride else 1)
        size = _DTYPES[str(buffer.dtype)][1]
        scope = self.buffers[buffer.name]["scope"]
        src, dst = (scope, "register") if kind == "load" else ("register", scope)
        return {"stage": {"kind": kind, "name": f"{kind}_{buffer.name}", "buffer": buffer.name, "src": src, "dst": dst,
                          "bytes": elements * size, "unique_bytes": elements * size,
                          "element_stride": stride if stride else 1,
                          "vector_bytes": min(width * size, self.lanes * size) if stride == 1 else size,
                          "reuse": 1}}

    def template_inputs(self):
        """The x86 plugin's inputs (docs/ast-json.md) from the nest of the main update block."""
        reduce_loops = lambda loops, realize: [l for l in loops if _is_reduction(l, realize)]
        loops, realize = max(self.blocks, key=lambda b: len(reduce_loops(*b)))
        reduction = reduce_loops(loops, realize)
        inner = loops[loops.index(reduction[-1]) + 1:] if reduction else []
        extent = lambda ls: int(np.prod([int(l.extent.value) for l in ls])) if ls else 1
        vector = [l for l in loops if int(l.kind) == 2]
        parallel = [l for l in loops if int(l.kind) == 1]
        cores = int(self.target.attrs.get("num-cores", 1) or 1)
        mr = extent([l for l in inner if int(l.kind) != 2])
        unrolled_k = [l for l in reduction if int(l.kind) == 3]
        operands = [_buffer_of(r).name for r in realize.block.reads if _buffer_of(r).name not in
                    {_buffer_of(w).name for w in realize.block.writes}]
        packed = [int(name in self.copies) for name in operands[:2]] + [0, 0]
        return {"pack_a": packed[0], "pack_b": packed[1], "k_unroll": extent(unrolled_k), "mr": mr,
                "nr_vec": max(1, (int(vector[-1].extent.value) if vector else 1) // self.lanes),
                "kc": extent(reduction[1:]) if len(reduction) > 1 else extent(reduction),
                "mc": mr, "nc": int(vector[-1].extent.value) if vector else 1,
                "threads": max(1, min(extent(parallel), cores))}


def _classify(block):
    """'fma' (C = C + A * B, casts allowed), 'copy' (X = Y), 'init' (X = constant);
    any other block is refused, never converted as something it is not."""
    store = block.body
    if type(store).__name__ != "BufferStore":
        raise UnsupportedTIR(f"block '{block.name_hint}': body {type(store).__name__}, not one store")
    value = store.value
    while type(value).__name__ == "Cast":
        value = value.value
    kind = type(value).__name__
    if kind == "Add" and "Mul" in (type(value.a).__name__, type(value.b).__name__):
        return "fma"
    if kind in ("BufferLoad", "TensorLoad"):
        return "copy"
    if kind in ("FloatImm", "IntImm"):
        return "init"
    raise UnsupportedTIR(f"block '{block.name_hint}': computes {kind}, not a multiply-accumulate or a copy")


def _buffer_of(region):
    """The buffer a block's read or write region is of (TVM 0.27: TensorRegion.source)."""
    return region.source if hasattr(region, "source") else region.buffer


def _is_reduction(loop, realize):
    """Whether the loop feeds a reduction iterator of the block."""
    var = id_of(loop.loop_var)
    for iv, value in zip(realize.block.iter_vars, realize.iter_values):
        if int(iv.iter_type) == 2 and _evaluate(value, {var: 1}) != _evaluate(value, {var: 0}):
            return True
    return False


def tir_to_ast(func, target, task="tvm"):
    """The AST program (a dict, docs/ast-json.md) of a scheduled PrimFunc."""
    intrinsic, lanes = cpu_intrinsic(target)
    c = _Converter(target, intrinsic, lanes)
    body = c.nodes(func.body)
    if not c.blocks:
        raise UnsupportedTIR("no multiply-accumulate block")
    return {"ast_format": 1, "task": task, "intrinsic": intrinsic, "template_inputs": c.template_inputs(),
            "buffers": list(c.buffers.values()), "body": body}


@derived_object
class CostModel(PyCostModel):
    """MetaSchedule's cost model interface over a registry version (or a pulled model)."""

    def __init__(self, path, ref=None, target=None, plugins=None, update_epochs=5):
        super().__init__()
        self.path, self.ref, self.plugins = path, ref, plugins
        self.model = ucmoh.open(path, ref, plugins)
        self.target = target
        self.update_epochs = update_epochs
        self.predict_seconds = 0.0  # TIR -> AST conversion and scoring
        self.update_seconds = 0.0   # conversion and the online update
        self.predicted = 0  # candidates scored
        self.measured = 0   # measured candidates learned from

    def _program(self, context, candidate):
        target = self.target or context.target
        return tir_to_ast(candidate.sch.mod["main"], target, task=str(context.task_name or "tvm"))

    def predict(self, context, candidates):
        import time
        start = time.perf_counter()
        programs = [json.dumps(self._program(context, c)) for c in candidates]
        scores = self.model.score("\n".join(programs) + "\n") if programs else np.zeros(0, dtype=np.float32)
        self.predicted += len(programs)
        self.predict_seconds += time.perf_counter() - start
        return scores.astype("float64")

    def update(self, context, candidates, results):
        import time
        start = time.perf_counter()
        measured = [(c, r) for c, r in zip(candidates, results) if r.run_secs]  # failed runs are not latencies
        if len(measured) >= 2:
            programs = [json.dumps(self._program(context, c)) for c, _ in measured]
            latencies = [float(np.mean([float(s) for s in r.run_secs])) for _, r in measured]
            self.model.update("\n".join(programs) + "\n", latencies, epochs=self.update_epochs)
            self.measured += len(measured)
        self.update_seconds += time.perf_counter() - start

    @property
    def seconds(self):
        """The cost model's own time: predict and update."""
        return self.predict_seconds + self.update_seconds

    def save(self, path):
        """Commits the updated model as a registry version; writes its ref to `path`."""
        version = self.model.commit()
        with open(path, "w") as f:
            json.dump({"registry": self.path, "ref": f"ucmoh@{version}"}, f)

    def load(self, path):
        with open(path) as f:
            saved = json.load(f)
        self.model = ucmoh.open(saved["registry"], saved["ref"], self.plugins)
