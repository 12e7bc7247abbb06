"""ucmoh.tvm: TVM MetaSchedule ranks candidates with the registry's model.

    from ucmoh.tvm import CostModel
    model = CostModel("registry.db", "ucmoh@stable", target)
    ms.tune_tir(mod, target, work_dir, max_trials_global=64, cost_model=model)

`tir_to_ast` turns a scheduled TIR function into the AST form
(docs/ast-json.md): tensorized blocks name the tensor intrinsic they call
(x86 VNNI, ARM SDOT, CUDA wmma / mma: intrinsics.py), untensorized fp32
multiply-accumulates the target's vector FMA (x86.avx2 / x86.avx512 /
arm.neon). `CostModel` is a MetaSchedule PyCostModel whose predict scores
those ASTs through libucmoh and whose update is libucmoh's online update
(under the version's forgetting control); it hands the search each score as
`SearchFitness` (positive, one scale per task: how MetaSchedule reads a cost
model's output). `ModelChoice` ranks each task with
that model kept as pulled or with MetaSchedule's XGBModel learning online,
whichever has ranked more of the task's measured pairs right; `ModelBlend` scores
each task with both, weighted by how many of those pairs each ranked right; `TokenBoost`
corrects that model with trees learning the session's measurements on its own
tokens, boosting from its scores. Written for apache-tvm 0.27
(tools/setup-tvm); docs/compilers.md ("TVM") says what is converted and what
is refused (UnsupportedTIR, naming the construct: never silently dropped).
"""
import importlib

from .intrinsics import TensorCall, vector_intrinsic
from .tir_exprs import UnsupportedTIR
from .tir_to_ast import tir_to_ast  # after its module: the package's `tir_to_ast` is the function

# Imported when first named (PEP 562), not with the package: they need TVM's
# compiler (MetaSchedule), and ucmoh.tvm.run_exported runs where only TVM's
# runtime is. (The converter above needs only `import tvm`.)
_LAZY = {"CostModel": "cost_model", "LocalBuilder": "builder", "ModelChoice": "model_choice",
         "ModelBlend": "model_blend", "TokenBoost": "token_boost"}
__all__ = ["CostModel", "LocalBuilder", "ModelBlend", "ModelChoice", "TensorCall", "TokenBoost", "UnsupportedTIR", "tir_to_ast",
           "vector_intrinsic"]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
