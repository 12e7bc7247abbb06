"""A MetaSchedule LocalBuilder that does not re-register TVM's tensor intrinsics.

TVM 0.27's default build function imports tvm.s_tir.tensor_intrin, which parses
about 500 TVMScript functions (22 s on a 2-vCPU VM), and LocalBuilder starts
fresh worker processes for every batch, so every batch of candidates paid it:
a 64x64 matmul took 22 s to build instead of 0.08 s. Scheduled candidates
already carry their tensor intrinsics' implementations inline, so the build
itself does not need the registry.
"""
import os
import tempfile

import tvm.s_tir.meta_schedule as ms


def build(mod, target, _params):
    """MetaSchedule's default build, less the tensor-intrinsic import."""
    from tvm.driver import build as tvm_build
    from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

    mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
    return tvm_build(mod, target=target)


def LocalBuilder(**kwargs):  # noqa: N802  (named for the class it configures)
    """ms.builder.LocalBuilder(f_build=build, ...)."""
    return ms.builder.LocalBuilder(f_build=build, **kwargs)


def export_shared_library(mod):
    """A built candidate as a shared library, which TVM's runtime alone loads
    (MetaSchedule's default export is a tar of objects, which needs a compiler
    to load): the export function of ucmoh.tvm.export's builder."""
    path = os.path.join(tempfile.mkdtemp(prefix="ucmoh-export-"), "candidate.so")
    mod.export_library(path)
    return path
