"""Scheduled TIR -> the AST form (docs/ast-json.md).

Loops keep their extents and kinds (thread bindings become the GPU kinds,
software-pipelined loops `pipelined`; vectorized loops fold into the compute
stage's calls). Every block becomes load stages for its reads, a compute stage
when it multiply-accumulates (tensorized or on the vector unit), and store
stages for its writes, with the bytes one execution moves and, per enclosing
loop, the bytes a step of that loop moves the access (`loop_stride_bytes`,
feature schema 3: where data is reused). Anything else is
refused with UnsupportedTIR naming it, never dropped.
"""
import math

from .intrinsics import COPY_CALLS, DTYPES, INIT_CALLS, tensor_call, vector_intrinsic
from .tir_exprs import Loop, UnsupportedTIR, buffer_of, calls_in, elements, id_of, perturbed
from .template_inputs import gemm_inputs, tensorcore_inputs

_CPU_LOOPS = {0: "serial", 1: "parallel", 2: "vectorized", 3: "unrolled"}
_THREAD_TAGS = {"blockIdx": "gpu_grid", "threadIdx.x": "gpu_thread", "threadIdx.y": "gpu_warp",
                "threadIdx.z": "gpu_warp", "vthread": "serial"}


def loop_kind(loop):
    kind = int(loop.kind)
    if kind == 4:
        tag = str(loop.thread_binding.thread_tag)
        for prefix, name in _THREAD_TAGS.items():
            if tag.startswith(prefix):
                return name
        raise UnsupportedTIR(f"loop '{loop.loop_var.name}' bound to '{tag}'")
    if kind not in _CPU_LOOPS:
        raise UnsupportedTIR(f"loop '{loop.loop_var.name}' of kind {loop.kind}")
    if "software_pipeline_stage" in loop.annotations:
        return "pipelined"
    return _CPU_LOOPS[kind]


def _contiguous_elements(extents, shape):
    """Elements of a region that are adjacent in memory: its trailing extents while
    they span whole buffer dimensions, and the first one that does not."""
    count = 1
    for extent, full in zip(reversed(extents), reversed(shape)):
        count *= extent
        if extent != full:
            break
    return count


_ELEMENTWISE = {"Add", "Sub", "Mul", "Div", "FloorDiv", "FloorMod", "Max", "Min", "Cast", "Select", "BufferLoad",
                "TensorLoad", "FloatImm", "IntImm", "Var", "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or", "Not",
                "Broadcast", "Ramp"}
_ELEMENTWISE_CALLS = {"if_then_else", "exp", "tanh", "sigmoid", "sqrt", "rsqrt", "erf", "fabs", "likely"}


def _check_elementwise(block, expr):
    """Refuses, by name, anything in an epilogue that is not plain arithmetic."""
    name = type(expr).__name__
    if name == "Call":
        if expr.op.name.split(".")[-1] not in _ELEMENTWISE_CALLS:  # "tirx.exp", "prim.if_then_else"
            raise UnsupportedTIR(f"block '{block.name_hint}': calls {expr.op.name}")
        children = elements(expr.args)
    elif name in _ELEMENTWISE:
        children = [getattr(expr, f) for f in ("a", "b", "value", "condition", "true_value", "false_value")
                    if hasattr(expr, f) and hasattr(getattr(expr, f), "same_as")]
    else:
        raise UnsupportedTIR(f"block '{block.name_hint}': computes {name}")
    for child in children:
        _check_elementwise(block, child)


_AUTO_UNROLL_MAX_DEPTH = 8  # tirx.transform.UnrollLoop's auto_max_depth default


def unrolled_loops(func):
    """The serial loops TVM's UnrollLoop pass unrolls when it lowers `func`.

    MetaSchedule chooses unrolling as an annotation on an outer loop
    (`pragma_auto_unroll_max_step`: 0, 16, 64 or 512 on CPUs), not as loop
    kinds; the pass then unrolls each serial loop whose whole nest is unrolled
    and whose extent times the statements inside stays within that step budget
    (at most 8 unrolled levels; vectorized loops are one vector statement by
    then). This mirrors its rule, so the AST says which loops run unrolled."""
    unrolled = set()

    def visit(stmt, max_step):
        """(statements after unrolling, unrolled depth, depth of loops that stay loops)."""
        name = type(stmt).__name__
        if name == "SeqStmt":
            steps = unroll_depth = loop_depth = 0
            for child in elements(stmt.seq):
                s, u, n = visit(child, max_step)
                steps, unroll_depth, loop_depth = steps + s, max(unroll_depth, u), max(loop_depth, n)
            return steps, unroll_depth, loop_depth
        if name == "SBlockRealize":
            body = visit(stmt.block.body, max_step)
            if stmt.block.init is None:
                return body
            init = visit(stmt.block.init, max_step)
            return body[0] + init[0], max(body[1], init[1]), max(body[2], init[2])
        if name == "For":
            step_budget = stmt.annotations.get("pragma_auto_unroll_max_step")
            if step_budget is not None:
                max_step = int(step_budget)
            steps, unroll_depth, loop_depth = visit(stmt.body, max_step)
            kind = int(stmt.kind)
            if kind == 2:  # vectorized
                return steps, unroll_depth, loop_depth
            extent = int(stmt.extent.value) if type(stmt.extent).__name__ == "IntImm" else -1
            unroll = kind == 3 or (kind == 0 and extent >= 0 and loop_depth == 0 and
                                   unroll_depth <= _AUTO_UNROLL_MAX_DEPTH and extent * steps <= max_step)
            if unroll:
                unrolled.add(id_of(stmt.loop_var))
                return steps * extent, unroll_depth + 1, loop_depth
            return steps, unroll_depth, loop_depth + 1
        if name == "IfThenElse":
            parts = [visit(stmt.then_case, max_step)] + ([visit(stmt.else_case, max_step)] if stmt.else_case else [])
            return sum(p[0] for p in parts), max(p[1] for p in parts), max(p[2] for p in parts)
        if hasattr(stmt, "body") and name not in ("BufferStore", "Evaluate"):  # LetStmt, AttrStmt, ...
            return visit(stmt.body, max_step)
        return 1, 0, 0  # a store or an evaluated call

    visit(func.body, 0)
    return unrolled


class Converter:
    """Walks one PrimFunc; `loops` is the stack of enclosing loops (tir_exprs.Loop:
    each read through the FFI once, as every block and access inside asks for them)."""

    def __init__(self, target):
        self.target = target
        self.gpu = target.kind.name == "cuda"
        self.buffers, self.loops = {}, []
        self.element_bytes = {}  # buffer name -> bytes of one element
        self.unrolled = set()  # ids of the loops UnrollLoop unrolls (unrolled_loops)
        self.computes = []  # (loops, realize, TensorCall or None) of multiply-accumulate blocks
        self.copies = []    # (loops, realize, vector width) of copy blocks
        self.copied = set()  # buffers written by copies (cache_read / cache_write)
        self.forms = {}  # the enclosing blockized blocks' variables: tir_exprs.perturbed's (value, changes)
        self.intrinsic, self.lanes = (None, 4) if self.gpu else vector_intrinsic(target)

    def nodes(self, stmt):
        name = type(stmt).__name__
        if name == "SeqStmt":
            return [n for s in elements(stmt.seq) for n in self.nodes(s)]
        if name == "For":
            return self.loop(stmt)
        if name == "SBlockRealize":
            return self.block(stmt)
        raise UnsupportedTIR(f"statement {name}")

    def loop(self, loop):
        kind, var = loop_kind(loop), loop.loop_var
        loop_id = id_of(var)
        if kind == "serial" and loop_id in self.unrolled:
            kind = "unrolled"
        extent = loop.extent
        if type(extent).__name__ != "IntImm":
            raise UnsupportedTIR(f"loop '{var.name}' with a symbolic extent")
        self.loops.append(Loop(loop_id, int(loop.kind), loop))
        try:
            body = self.nodes(loop.body)
        finally:
            self.loops.pop()
        if kind == "vectorized":
            return body  # the vector lanes are the compute stage's calls (see block)
        return [{"loop": {"var": var.name, "extent": int(extent.value), "kind": kind}, "body": body}]

    def block(self, realize):
        block = realize.block
        writes = elements(block.writes)
        for buffer in elements(block.alloc_buffers):
            self.declare(buffer)
        if block.name_hint == "root" or not writes:
            return self.nodes(block.body)
        calls = list(calls_in(block.body))  # walked once: the intrinsic and the block's kind both read them
        tensor = tensor_call(block, calls, self.dtype_of)
        forms = dict(self.forms)
        for iv, value in zip(elements(block.iter_vars), elements(realize.iter_values)):
            forms[id_of(iv.var)] = perturbed(value, self.forms)
        if tensor is None and type(block.body).__name__ in ("For", "SeqStmt", "SBlockRealize"):
            # A blockized block (MetaSchedule's `_o` blocks around a tensorized
            # one, e.g. the init of a VNNI reduction): its inner loops and
            # blocks say what it does, in terms of its variables.
            outer, self.forms = self.forms, forms
            try:
                return self.nodes(block.body)
            finally:
                self.forms = outer
        what = "tensor" if tensor else self.classify(block, calls)
        vector = [l for l in self.loops if l.kind == 2]
        width = vector[-1].extent if vector else 1
        steps = self.loop_steps(vector)
        stages = [self.access("load", r, forms, steps, width) for r in elements(block.reads)]
        if what in ("tensor", "fma"):
            stages.append(self.compute(block, realize, tensor, width))
        elif what == "copy":
            self.copied.add(buffer_of(writes[0]).name)
            self.copies.append((list(self.loops), realize, width))
        stages += [self.access("store", r, forms, steps, width) for r in writes]
        return stages

    def classify(self, block, calls):
        """'fma' (a reduction C = C + A * B, casts allowed), 'copy' (X = Y, or a
        tensor-core fragment load / store), 'init' (X = constant, or a fragment
        fill), 'elementwise' (a fused epilogue or padding: arithmetic of loads and
        constants without a reduction; it has no intrinsic, so it is its loads
        and stores)."""
        ops = {c.op.name for c in calls}
        if ops & COPY_CALLS:
            return "copy"
        if ops & INIT_CALLS:
            return "init"
        store = block.body
        if type(store).__name__ != "BufferStore":
            raise UnsupportedTIR(f"block '{block.name_hint}': body {type(store).__name__}, not one store")
        value = store.value
        while type(value).__name__ == "Cast":
            value = value.value
        kind = type(value).__name__
        reduces = any(int(iv.iter_type) == 2 for iv in block.iter_vars)
        if reduces:
            if kind == "Add" and "Mul" in (type(value.a).__name__, type(value.b).__name__):
                return "fma"
            raise UnsupportedTIR(f"block '{block.name_hint}': a reduction computing {kind}, not a multiply-accumulate")
        if kind in ("BufferLoad", "TensorLoad"):
            return "copy"
        if kind in ("FloatImm", "IntImm"):
            return "init"
        _check_elementwise(block, value)
        return "elementwise"

    def compute(self, block, realize, tensor, width):
        if tensor is None and self.gpu:
            raise UnsupportedTIR(f"block '{block.name_hint}': a scalar multiply-accumulate on CUDA cores "
                                 "(only tensor-core blocks have a UCMoH intrinsic)")
        if tensor is None and self.dtype_of(buffer_of(block.writes[0])) != "f32":
            raise UnsupportedTIR(f"block '{block.name_hint}': an untensorized {self.dtype_of(buffer_of(block.writes[0]))} "
                                 "multiply-accumulate (the vector FMA intrinsics are fp32; tensorize it)")
        intrinsic = tensor.intrinsic if tensor else self.intrinsic
        if self.intrinsic and self.computes and intrinsic != self.intrinsic:
            raise UnsupportedTIR(f"block '{block.name_hint}' computes with {intrinsic}, another block with "
                                 f"{self.intrinsic}: one intrinsic per program")
        self.intrinsic = intrinsic
        self.computes.append((list(self.loops), realize, tensor))
        calls = tensor.calls if tensor else max(1, width // self.lanes)
        flops = tensor.flops_per_call if tensor else 2 * self.lanes
        return {"stage": {"kind": "compute", "name": block.name_hint, "intrinsic": intrinsic,
                          "calls": calls, "flops_per_call": flops}}

    def dtype_of(self, buffer):
        dtype = str(buffer.dtype)
        if dtype not in DTYPES:
            raise UnsupportedTIR(f"buffer '{buffer.name}' of dtype {dtype}")
        return DTYPES[dtype][0]

    def scope_of(self, buffer):
        scope = buffer.scope() if callable(getattr(buffer, "scope", None)) else "global"
        if scope == "global":
            return "global"
        if scope in ("shared", "shared.dyn"):
            return "shared"
        if scope in ("local", "warp") or scope.startswith("wmma.") or scope.startswith("m16n8k8."):
            return "register"
        raise UnsupportedTIR(f"buffer '{buffer.name}' in scope '{scope}'")

    def declare(self, buffer):
        """The buffer's AST entry; the first declaration of a name holds (read through the FFI once)."""
        name = buffer.name
        if name not in self.buffers:
            self.buffers[name] = {"name": name, "shape": [int(s) for s in elements(buffer.shape)],
                                  "dtype": self.dtype_of(buffer), "scope": self.scope_of(buffer)}
            self.element_bytes[name] = DTYPES[str(buffer.dtype)][1]
        return self.buffers[name]

    def loop_steps(self, vector):
        """The ids of the AST loops around a block (outermost first; vectorized
        loops fold into the stages) and of its innermost vector loop (or None)."""
        ast_loops = [l.id for l in self.loops if l.kind != 2]
        return ast_loops, (vector[-1].id if vector else None)

    @staticmethod
    def flat_changes(shape, mins, forms):
        """How a region's first element (row-major) moves when each loop alone steps by one."""
        changes = {}
        for extent, start in zip(shape, mins):
            changes = {k: v * extent for k, v in changes.items()}
            for k, v in perturbed(start, forms)[1].items():
                changes[k] = changes.get(k, 0) + v
        return changes

    def access(self, kind, region, forms, steps, width):
        declared = self.declare(buffer_of(region))
        name, shape = declared["name"], declared["shape"]
        ranges = [(r.min, r.extent) for r in elements(region.region)]  # read through the FFI once
        changes = self.flat_changes(shape, [start for start, _ in ranges], forms)
        ast_loops, vector_loop = steps
        stride = abs(changes.get(vector_loop, 0)) if vector_loop else 0
        extents = [int(e.value) if type(e).__name__ == "IntImm" else 1 for _, e in ranges]
        count = math.prod(extents) * (width if stride else 1)
        size = self.element_bytes[name]
        cap = 16 if self.gpu else self.lanes * 4  # bytes of one vector load: 128-bit on GPUs, the SIMD width on CPUs
        contiguous = (width if stride == 1 else 1) * _contiguous_elements(extents, shape) * size
        scope = declared["scope"]
        src, dst = (scope, "register") if kind == "load" else ("register", scope)
        return {"stage": {"kind": kind, "name": f"{kind}_{name}", "buffer": name, "src": src, "dst": dst,
                          "bytes": count * size, "unique_bytes": count * size,
                          "element_stride": stride if stride else 1,
                          "vector_bytes": max(size, min(contiguous, cap)), "reuse": 1,
                          "loop_stride_bytes": [abs(changes.get(k, 0)) * size for k in ast_loops]}}


def tir_to_ast(func, target, task="tvm"):
    """The AST program (a dict, docs/ast-json.md) of a scheduled PrimFunc."""
    c = Converter(target)
    c.unrolled = unrolled_loops(func)
    body = c.nodes(func.body)
    if not c.computes:
        raise UnsupportedTIR("no multiply-accumulate block")
    inputs = tensorcore_inputs(c) if c.gpu else gemm_inputs(c)
    return {"ast_format": 1, "task": task, "intrinsic": c.intrinsic, "template_inputs": inputs,
            "buffers": list(c.buffers.values()), "body": body}
