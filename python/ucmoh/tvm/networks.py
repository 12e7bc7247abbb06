"""The operator shapes of real networks, as MetaSchedule tasks.

Each network is a list of its layers' tensor operators (batch 1, as a compiler
tunes for inference), written out from the published architectures: no model
is downloaded. A task is one operator + shape + dtype + fused epilogue; its
weight in a network is how many times the network runs it. A task that two
networks share is one task (named after the first network that has it) that
lists both networks, so a study can hold a network out by name and know every
task it touches.

    from ucmoh.tvm.networks import tasks
    for task in tasks(["resnet50", "bert_base"], "float32"): task.name, task.weights, task.prim_func()

Task names are `network.op.shape[.epilogue]`, e.g.
`resnet50.conv2d_nhwc.h56w56c64k256r1s1.bias_add_relu`.
"""
import collections
from dataclasses import dataclass, field

from tvm import te

from .operators import BUILDERS


@dataclass(frozen=True)
class Op:
    op: str
    shape: tuple  # the builder's keyword arguments, as sorted (name, value) pairs
    epilogue: str = ""

    def key(self, dtype):
        return (self.op, self.shape, self.epilogue, dtype)


def _shape_text(op, shape):
    s = dict(shape)
    if op == "dense":
        return f"m{s['m']}n{s['n']}k{s['k']}"
    if op == "batch_matmul":
        return f"b{s['b']}m{s['m']}n{s['n']}k{s['k']}"
    text = f"h{s['h']}w{s['w']}c{s['c']}k{s['k']}r{s['r']}s{s.get('stride', 1)}"
    if s.get("groups", 1) > 1:
        text += f"g{s['groups']}"
    if s.get("pad") is not None and s["pad"] != s["r"] // 2:
        text += f"p{s['pad']}"
    return text


def dense(m, n, k, epilogue=""):
    return Op("dense", (("k", k), ("m", m), ("n", n)), epilogue)


def bmm(b, m, n, k):
    return Op("batch_matmul", (("b", b), ("k", k), ("m", m), ("n", n)))


def conv(h, c, k, r, stride=1, groups=1, epilogue="bias_relu", layout="nhwc", pad=None):
    shape = {"h": h, "w": h, "c": c, "k": k, "r": r}
    if stride != 1:
        shape["stride"] = stride
    if groups != 1:
        shape["groups"] = groups
    if pad is not None:
        shape["pad"] = pad
    return Op("conv2d_" + layout, tuple(sorted(shape.items())), epilogue)


# --- CNNs ---------------------------------------------------------------------

def _resnet_bottleneck(width_per_group=64, groups=1, layout="nhwc"):
    """ResNet-50 v1.5 (stride on the 3x3) and ResNeXt-50 (grouped 3x3)."""
    layers = [conv(224, 3, 64, 7, stride=2, layout=layout)]
    h, cin = 56, 64
    for stage, (planes, blocks) in enumerate([(64, 3), (128, 4), (256, 6), (512, 3)]):
        mid = planes * width_per_group // 64 * groups
        out = planes * 4
        for b in range(blocks):
            stride = 2 if stage > 0 and b == 0 else 1
            layers.append(conv(h, cin, mid, 1, layout=layout))
            layers.append(conv(h, mid, mid, 3, stride=stride, groups=groups, layout=layout))
            oh = h // stride
            layers.append(conv(oh, mid, out, 1, epilogue="bias_add_relu", layout=layout))
            if b == 0:
                layers.append(conv(h, cin, out, 1, stride=stride, epilogue="bias", layout=layout))
            h, cin = oh, out
    layers.append(dense(1, 1000, 2048, "bias"))
    return layers


def resnet18(layout="nchwc"):
    """ResNet-18 in the blocked layout TVM's x86 backend tunes CNNs in."""
    layers = [conv(224, 3, 64, 7, stride=2, layout=layout)]
    h, cin = 56, 64
    for stage, planes in enumerate([64, 128, 256, 512]):
        for b in range(2):
            stride = 2 if stage > 0 and b == 0 else 1
            layers.append(conv(h, cin, planes, 3, stride=stride, layout=layout))
            oh = h // stride
            layers.append(conv(oh, planes, planes, 3, epilogue="bias_add_relu", layout=layout))
            if stride != 1:
                layers.append(conv(h, cin, planes, 1, stride=stride, epilogue="bias", layout=layout))
            h, cin = oh, planes
    layers.append(dense(1, 1000, 512, "bias"))
    return layers


def resnet50_nchwc():
    """ResNet-50 in the blocked layout TVM's x86 backend tunes it in (`resnet50` is its
    NHWC form). Without it every NCHWc convolution is ResNet-18's, so a study holding
    ResNet-18 out pretrained on no blocked-layout convolution at all."""
    return _resnet_bottleneck(layout="nchwc")


def _inverted_residuals(stem, settings, head, kernel_of=lambda s: 3):
    """MobileNetV2 / EfficientNet blocks: 1x1 expand, depthwise, 1x1 project (+ residual)."""
    layers = [conv(224, 3, stem, 3, stride=2)]
    h, cin = 112, stem
    for expand, cout, repeats, stride, kernel in settings:
        for i in range(repeats):
            s = stride if i == 0 else 1
            mid = cin * expand
            if expand != 1:
                layers.append(conv(h, cin, mid, 1))
            layers.append(conv(h, mid, mid, kernel, stride=s, groups=mid))
            h = h // s
            layers.append(conv(h, mid, cout, 1, epilogue="bias_add" if s == 1 and cin == cout else "bias"))
            cin = cout
    layers.append(conv(h, cin, head, 1))
    layers.append(dense(1, 1000, head, "bias"))
    return layers, cin


def mobilenet_v2():
    settings = [(1, 16, 1, 1, 3), (6, 24, 2, 2, 3), (6, 32, 3, 2, 3), (6, 64, 4, 2, 3), (6, 96, 3, 1, 3),
                (6, 160, 3, 2, 3), (6, 320, 1, 1, 3)]
    return _inverted_residuals(32, settings, 1280)[0]


def efficientnet_b0():
    """EfficientNet-B0 without its squeeze-excitation gates' elementwise parts
    (their two small linear layers per block are here)."""
    settings = [(1, 16, 1, 1, 3), (6, 24, 2, 2, 3), (6, 40, 2, 2, 5), (6, 80, 3, 2, 3), (6, 112, 3, 1, 5),
                (6, 192, 4, 2, 5), (6, 320, 1, 1, 3)]
    layers, _ = _inverted_residuals(32, settings, 1280)
    cin = 32
    for expand, cout, repeats, _, _ in settings:
        for _ in range(repeats):
            squeezed = max(1, cin // 4)
            layers.append(dense(1, squeezed, cin * expand, "bias_relu"))
            layers.append(dense(1, cin * expand, squeezed, "bias"))
            cin = cout
    return layers


# --- transformers ---------------------------------------------------------------

def _encoder(seq, hidden=768, heads=12, mlp=3072, layers=12, fused_qkv=True):
    per_layer = [dense(seq, 3 * hidden, hidden, "bias")] if fused_qkv else [dense(seq, hidden, hidden, "bias")] * 3
    per_layer += [bmm(heads, seq, seq, hidden // heads), bmm(heads, seq, hidden // heads, seq),
                  dense(seq, hidden, hidden, "bias_add"), dense(seq, mlp, hidden, "bias_gelu"),
                  dense(seq, hidden, mlp, "bias_add")]
    return per_layer * layers


def vit_b16():
    return [conv(224, 3, 768, 16, stride=16, epilogue="bias", pad=0)] + _encoder(197) + [dense(1, 1000, 768, "bias")]


def bert_base(seq=128):
    return _encoder(seq, fused_qkv=False) + [dense(1, 768, 768, "bias_tanh")]


def gpt2(prompt=256):
    """GPT-2 small: the prompt's forward pass, then one decoding step against the
    prompt's key / value cache; the LM head scores the last token."""
    decode = _encoder(1)
    decode = [op for op in decode if op.op != "batch_matmul"]
    decode += [bmm(12, 1, prompt + 1, 64), bmm(12, 1, 64, prompt + 1)] * 12
    return _encoder(prompt) + decode + [dense(1, 50257, 768)] * 2


NETWORKS = {
    "resnet50": lambda: _resnet_bottleneck(),
    "resnet18": resnet18,
    "mobilenet_v2": mobilenet_v2,
    "resnext50": lambda: _resnet_bottleneck(width_per_group=4, groups=32),
    "efficientnet_b0": efficientnet_b0,
    "vit_b16": vit_b16,
    "bert_base": bert_base,
    "gpt2": gpt2,
    "resnet50_nchwc": resnet50_nchwc,  # last: earlier networks keep their tasks' names
}

_INT8_EPILOGUE = {"bias_gelu": "bias", "bias_tanh": "bias"}  # int8 networks run these after dequantizing


def _int8_ok(op):
    """Operators MetaSchedule can tensorize with VNNI's 16x4 dot product: a
    reduction of a multiple of 4 channels per group (not depthwise, not an RGB
    stem) into a multiple of 16 output channels per group (operators.py packs
    the weight so)."""
    s = dict(op.shape)
    if op.op.startswith("conv2d"):
        groups = s.get("groups", 1)
        return (s["c"] // groups) % 4 == 0 and (s["k"] // groups) % 16 == 0
    return s["k"] % 4 == 0 and s["n"] % 16 == 0


@dataclass
class Task:
    name: str
    op: str
    shape: dict
    epilogue: str
    dtype: str
    weights: dict = field(default_factory=dict)  # network -> how many times it runs this task

    def prim_func(self):
        tensors = BUILDERS[self.op](**self.shape, dtype=self.dtype, epilogue=self.epilogue)
        return te.create_prim_func(tensors).with_attr("global_symbol", "main")

    def flops(self):
        s = self.shape
        if self.op == "dense":
            return 2 * s["m"] * s["n"] * s["k"]
        if self.op == "batch_matmul":
            return 2 * s["b"] * s["m"] * s["n"] * s["k"]
        stride, pad = s.get("stride", 1), s.get("pad", s["r"] // 2)
        out = ((s["h"] + 2 * pad - s["r"]) // stride + 1) ** 2
        return 2 * out * s["k"] * s["r"] * s["r"] * s["c"] // s.get("groups", 1)


def tasks(networks=None, dtype="float32"):
    """The distinct tasks of `networks` (default: all) in `dtype` ('float32' or 'int8')."""
    networks = list(NETWORKS) if networks is None else list(networks)
    unknown = [n for n in networks if n not in NETWORKS]
    if unknown:
        raise KeyError(f"unknown network '{unknown[0]}' (known: {', '.join(NETWORKS)})")
    if dtype not in ("float32", "int8"):
        raise KeyError(f"unknown dtype '{dtype}' (known: float32, int8)")
    found = collections.OrderedDict()
    for network in networks:
        for op in NETWORKS[network]():
            if dtype == "int8":
                if not _int8_ok(op):
                    continue
                op = Op(op.op, op.shape, _INT8_EPILOGUE.get(op.epilogue, op.epilogue))
            key = op.key(dtype)
            if key not in found:
                name = f"{network}.{op.op}.{_shape_text(op.op, op.shape)}" + (f".{op.epilogue}" if op.epilogue else "")
                if dtype == "int8":
                    name += ".int8"
                found[key] = Task(name, op.op, dict(op.shape), op.epilogue, dtype)
            weights = found[key].weights
            weights[network] = weights.get(network, 0) + 1
    return list(found.values())
