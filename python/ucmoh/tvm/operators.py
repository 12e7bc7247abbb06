"""The tensor operators of network workloads, as TE definitions.

Each builder takes the operator's shape and returns (inputs..., output) TE
tensors for `te.create_prim_func`. Every operator may carry the fused epilogue
its network has: `bias`, `bias_relu`, `bias_add` (a residual), `bias_add_relu`,
`bias_gelu` (erf form) or `bias_tanh`. fp32 operators multiply float32; int8
ones multiply uint8 activations by int8 weights into int32, the operand types
of x86 VNNI's `vpdpbusd` (MetaSchedule tensorizes them with dot_16x4_vnni).
An int8 operator's weight (the second operand) is prepacked the way TVM's own
x86 int8 schedules pack it (topi.x86 dense_vnni / conv2d_NCHWc_int8): 16
output channels by 4 reduction elements innermost, `[..., N/16, K/4, 16, 4]`,
so that every 16x4 block the intrinsic reads is contiguous. Unpacked, the
tensorized candidates need layout-rewrite blocks that TVM 0.27 fails to build
for most of them (docs/data.md, "MetaSchedule's own programs").
Padding is a stage of its own (TVM's topi does the same), which MetaSchedule
inlines or computes at its consumer.
"""
from tvm import te, tirx

_TYPES = {"float32": ("float32", "float32", "float32"), "int8": ("uint8", "int8", "int32")}


def _types(dtype):
    if dtype not in _TYPES:
        raise ValueError(f"dtype '{dtype}': expected one of {', '.join(_TYPES)}")
    return _TYPES[dtype]


def _mac(a, b, acc):
    """a * b in the accumulator type (int8 operands widen before multiplying)."""
    return a.astype(acc) * b.astype(acc) if acc != a.dtype else a * b


VNNI_LANES, VNNI_DEPTH = 16, 4  # dot_16x4_vnni: 16 int32 lanes, each a 4-deep u8 x s8 dot product


def _packed(shape_outer, n, k, name):
    """An int8 weight of n output by k reduction channels, VNNI-packed after `shape_outer`."""
    if n % VNNI_LANES or k % VNNI_DEPTH:
        raise ValueError(f"int8 {name}: {n} output channels by {k} reduction channels do not pack "
                         f"into {VNNI_LANES}x{VNNI_DEPTH} VNNI blocks")
    return te.placeholder((*shape_outer, n // VNNI_LANES, k // VNNI_DEPTH, VNNI_LANES, VNNI_DEPTH), "int8", name=name)


def _epilogue(out, epilogue, channel_axis):
    """Applies the fused epilogue to `out`; returns (extra inputs, result)."""
    if not epilogue:
        return [], out
    acc = out.dtype
    shape = [int(s) for s in out.shape]
    bias = te.placeholder((shape[channel_axis],), acc, name="bias")
    inputs = [bias]
    residual = None
    if "add" in epilogue.split("_"):
        residual = te.placeholder(shape, acc, name="residual")
        inputs.append(residual)
    zero = tirx.const(0, acc)

    def value(*index):
        v = out(*index) + bias[index[channel_axis]]
        if residual is not None:
            v = v + residual(*index)
        if epilogue.endswith("relu"):
            v = te.max(v, zero)
        elif epilogue.endswith("gelu"):
            v = tirx.const(0.5, acc) * v * (tirx.const(1.0, acc) + te.erf(v * tirx.const(0.7071067811865476, acc)))
        elif epilogue.endswith("tanh"):
            v = te.tanh(v)
        return v

    known = {"bias", "bias_relu", "bias_add", "bias_add_relu", "bias_gelu", "bias_tanh"}
    if epilogue not in known:
        raise ValueError(f"epilogue '{epilogue}': expected one of {', '.join(sorted(known))}")
    return inputs, te.compute(shape, value, name="T_" + epilogue)


def dense(m, n, k, dtype="float32", epilogue=""):
    """Y[m, n] = X[m, k] . W[n, k] (a linear layer, weights as stored)."""
    a_type, b_type, acc = _types(dtype)
    x = te.placeholder((m, k), a_type, name="X")
    r = te.reduce_axis((0, k), "k")
    if dtype == "int8":
        w = _packed((), n, k, "W")
        y = te.compute((m, n), lambda i, j: te.sum(_mac(x[i, r], w[j // 16, r // 4, j % 16, r % 4], acc), axis=r),
                       name="dense")
    else:
        w = te.placeholder((n, k), b_type, name="W")
        y = te.compute((m, n), lambda i, j: te.sum(_mac(x[i, r], w[j, r], acc), axis=r), name="dense")
    extra, out = _epilogue(y, epilogue, 1)
    return [x, w, *extra, out]


def batch_matmul(b, m, n, k, dtype="float32", epilogue=""):
    """Z[b, m, n] = X[b, m, k] . Y[b, n, k] (attention's QK^T and AV, as TVM's topi writes them)."""
    a_type, b_type, acc = _types(dtype)
    x = te.placeholder((b, m, k), a_type, name="X")
    r = te.reduce_axis((0, k), "k")
    if dtype == "int8":
        y = _packed((b,), n, k, "Y")
        z = te.compute((b, m, n), lambda t, i, j: te.sum(
            _mac(x[t, i, r], y[t, j // 16, r // 4, j % 16, r % 4], acc), axis=r), name="batch_matmul")
    else:
        y = te.placeholder((b, n, k), b_type, name="Y")
        z = te.compute((b, m, n), lambda t, i, j: te.sum(_mac(x[t, i, r], y[t, j, r], acc), axis=r),
                       name="batch_matmul")
    extra, out = _epilogue(z, epilogue, 2)
    return [x, y, *extra, out]


def _pad_nhwc(data, pad):
    if pad == 0:
        return data
    n, h, w, c = [int(s) for s in data.shape]
    zero = tirx.const(0, data.dtype)
    return te.compute((n, h + 2 * pad, w + 2 * pad, c),
                      lambda b, y, x, f: tirx.if_then_else(
                          tirx.all(y >= pad, y < h + pad, x >= pad, x < w + pad), data[b, y - pad, x - pad, f], zero),
                      name="pad")


def conv2d_nhwc(h, w, c, k, r, stride=1, pad=None, groups=1, dtype="float32", epilogue="", batch=1):
    """O[n, y, x, f] over I[n, h, w, c] and F[r, r, c / groups, k]: plain (groups 1),
    grouped (ResNeXt) or depthwise (groups == c == k, MobileNet's and EfficientNet's)."""
    a_type, b_type, acc = _types(dtype)
    pad = r // 2 if pad is None else pad
    if c % groups or k % groups:
        raise ValueError(f"conv2d: {groups} groups do not divide {c} input / {k} output channels")
    data = te.placeholder((batch, h, w, c), a_type, name="I")
    if dtype == "int8":  # [r, r, k/16, c_g/4, 16, 4]: a group's 16 output channels share their inputs
        if groups > 1 and (k // groups) % VNNI_LANES:
            raise ValueError(f"int8 conv2d: {k // groups} output channels per group do not fill {VNNI_LANES} lanes")
        weight = _packed((r, r), k, c // groups, "F")
        at = lambda ry, rx, rc, f: weight[ry, rx, f // 16, rc // 4, f % 16, rc % 4]  # noqa: E731
    else:
        weight = te.placeholder((r, r, c // groups, k), b_type, name="F")
        at = lambda ry, rx, rc, f: weight[ry, rx, rc, f]  # noqa: E731
    padded = _pad_nhwc(data, pad)
    oh, ow = (h + 2 * pad - r) // stride + 1, (w + 2 * pad - r) // stride + 1
    ry, rx, rc = te.reduce_axis((0, r), "ry"), te.reduce_axis((0, r), "rx"), te.reduce_axis((0, c // groups), "rc")
    per_group = k // groups

    def body(n, y, x, f):
        channel = rc if groups == 1 else f // per_group * (c // groups) + rc
        return te.sum(_mac(padded[n, y * stride + ry, x * stride + rx, channel], at(ry, rx, rc, f), acc),
                      axis=[ry, rx, rc])

    out = te.compute((batch, oh, ow, k), body, name="conv2d_nhwc")
    extra, result = _epilogue(out, epilogue, 3)
    return [data, weight, *extra, result]


def conv2d_nchwc(h, w, c, k, r, stride=1, pad=None, block=16, dtype="float32", epilogue="", batch=1):
    """The blocked layout TVM's x86 backend converts convolutions to:
    O[n, k/blk, y, x, blk] over I[n, c/blk, h, w, blk] and F[k/blk, c/blk, r, r, blk, blk]."""
    a_type, b_type, acc = _types(dtype)
    pad = r // 2 if pad is None else pad
    ic, oc = min(block, c), min(block, k)
    if c % ic or k % oc:
        raise ValueError(f"conv2d_nchwc: block {block} does not divide {c} input / {k} output channels")
    data = te.placeholder((batch, c // ic, h, w, ic), a_type, name="I")
    if dtype == "int8":  # TVM's conv2d_NCHWc_int8 kernel: [k/blk, c/blk, r, r, blk/4, blk, 4]
        if oc % VNNI_LANES or ic % VNNI_DEPTH:
            raise ValueError(f"int8 conv2d_nchwc: blocks of {ic} input / {oc} output channels do not pack for VNNI")
        weight = te.placeholder((k // oc, c // ic, r, r, ic // 4, oc, 4), b_type, name="F")
        at = lambda kb, cb, ry, rx, ci, ko: weight[kb, cb, ry, rx, ci // 4, ko, ci % 4]  # noqa: E731
    else:
        weight = te.placeholder((k // oc, c // ic, r, r, ic, oc), b_type, name="F")
        at = lambda kb, cb, ry, rx, ci, ko: weight[kb, cb, ry, rx, ci, ko]  # noqa: E731
    if pad:
        zero = tirx.const(0, a_type)
        padded = te.compute((batch, c // ic, h + 2 * pad, w + 2 * pad, ic),
                            lambda b, cb, y, x, ci: tirx.if_then_else(
                                tirx.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
                                data[b, cb, y - pad, x - pad, ci], zero), name="pad")
    else:
        padded = data
    oh, ow = (h + 2 * pad - r) // stride + 1, (w + 2 * pad - r) // stride + 1
    rcb, ry, rx, rci = (te.reduce_axis((0, c // ic), "rcb"), te.reduce_axis((0, r), "ry"),
                        te.reduce_axis((0, r), "rx"), te.reduce_axis((0, ic), "rci"))
    out = te.compute((batch, k // oc, oh, ow, oc),
                     lambda n, kb, y, x, ko: te.sum(
                         _mac(padded[n, rcb, y * stride + ry, x * stride + rx, rci], at(kb, rcb, ry, rx, rci, ko), acc),
                         axis=[rcb, ry, rx, rci]), name="conv2d_nchwc")
    if not epilogue:
        return [data, weight, out]
    # The bias of a blocked output is indexed by (block, lane): flatten its channel.
    bias = te.placeholder((k,), acc, name="bias")
    residual = te.placeholder([int(s) for s in out.shape], acc, name="residual") if "add" in epilogue else None
    zero = tirx.const(0, acc)

    def value(n, kb, y, x, ko):
        v = out[n, kb, y, x, ko] + bias[kb * oc + ko]
        if residual is not None:
            v = v + residual[n, kb, y, x, ko]
        return te.max(v, zero) if epilogue.endswith("relu") else v

    if epilogue not in ("bias", "bias_relu", "bias_add", "bias_add_relu"):
        raise ValueError(f"conv2d_nchwc: epilogue '{epilogue}' is not one of bias, bias_relu, bias_add, bias_add_relu")
    result = te.compute(out.shape, value, name="T_" + epilogue)
    return [data, weight, bias] + ([residual] if residual is not None else []) + [result]


BUILDERS = {"dense": dense, "batch_matmul": batch_matmul, "conv2d_nhwc": conv2d_nhwc, "conv2d_nchwc": conv2d_nchwc}
