"""ucmoh: a UCMoH cost model inside a Python compiler (TVM, ...).

    import ucmoh
    model = ucmoh.open("registry.db", "ucmoh@stable")   # or a `registry pull` directory
    scores = model.score(programs)                       # numpy float32, larger = faster
    model.update(measured, latencies)                    # online, under forgetting control
    version = model.commit()                             # a new registry version
    model.info                                           # intrinsics, schema, metrics

Programs are AST programs (dicts, docs/ast-json.md) or, with
format="records", records (dicts, docs/records.md). This package is a thin
ctypes layer over libucmoh's C API (ucmoh/ucmoh.h): no compiled extension, so
one install serves every Python 3, and Python drives exactly the ABI that C,
Rust or Java clients do. docs/compilers.md explains the calls.
"""
import builtins
import ctypes
import json
import os

import numpy as np

from . import _library

__all__ = ["Error", "Model", "open", "API_VERSION", "FEATURE_SCHEMA_VERSION"]

API_VERSION = 1  # the UCMOH_API_VERSION this package was written for
_FORMATS = {"ast": 0, "records": 1}


class Error(Exception):
    """A failed libucmoh call: `code` is its ucmoh_code, str(e) its message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class _LazyLibrary:
    """libucmoh, loaded on first use: ucmoh.tvm's workloads and collector
    (which only measure) run before the library is built."""

    def __getattr__(self, name):
        global _lib
        lib = _library.load()
        if lib.ucmoh_api_version() != API_VERSION:
            raise ImportError(f"ucmoh: libucmoh has API version {lib.ucmoh_api_version()}, "
                              f"this package needs {API_VERSION} ({_library.path()})")
        _lib = lib
        return getattr(lib, name)


_lib = _LazyLibrary()


def __getattr__(name):  # PEP 562: FEATURE_SCHEMA_VERSION asks the library
    if name == "FEATURE_SCHEMA_VERSION":
        return _lib.ucmoh_feature_schema_version()
    raise AttributeError(f"module 'ucmoh' has no attribute '{name}'")


def _check(code):
    if code != 0:
        raise Error(code, _lib.ucmoh_last_error().decode("utf-8", "replace"))


def _encode(programs):
    """JSON Lines bytes for a list of dicts / JSON strings, or one JSON string."""
    if isinstance(programs, (bytes, bytearray)):
        return bytes(programs)
    if isinstance(programs, str):
        return programs.encode()
    lines = [p if isinstance(p, str) else json.dumps(p, separators=(",", ":")) for p in programs]
    return ("\n".join(lines) + "\n").encode()


def _check_pulled_schema(directory):
    """Refuse a pulled model of another feature schema before loading anything."""
    path = os.path.join(directory, "manifest.json")
    with builtins.open(path) as f:
        manifest = json.load(f)
    schema = manifest.get("feature_schema", {}).get("version")
    known = _lib.ucmoh_feature_schema_version()
    if schema != known:
        raise Error(6, f"{path}: the model uses feature schema {schema}, this package knows only schema "
                       f"{known} (pull a version trained on schema {known})")


_flat_widths = {}  # max_tokens -> the library's flat row width


class Model:
    """An open model (one libucmoh handle). Scoring is safe from many threads."""

    def __init__(self, handle):
        self._handle = handle

    def score(self, programs, format="ast"):
        """One float32 score per program, in order; larger = predicted faster."""
        data = _encode(programs)
        capacity = len(programs) if isinstance(programs, list) else data.count(b"\n") + 1
        while True:
            count = ctypes.c_size_t(0)
            scores = np.empty(max(capacity, 1), dtype=np.float32)
            code = _lib.ucmoh_score(self._handle, _FORMATS[format], data, len(data),
                                    scores.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), capacity,
                                    ctypes.byref(count))
            if code != 0 and count.value > capacity:  # a JSON array on fewer lines than programs
                capacity = count.value
                continue
            _check(code)
            return scores[:count.value]

    def flat_features(self, programs, max_tokens=16, format="ast"):
        """The programs' feature tokens, one row each ([programs, max_tokens x
        dimensions + 1] float32: tokens zero-padded or truncated, then the token
        count), as the registry's XGBoost baseline reads them (ucmoh_flat_features)."""
        data = _encode(programs)
        rows = len(programs) if isinstance(programs, list) else data.count(b"\n") + 1
        capacity = rows * _flat_widths.get(int(max_tokens), 0)  # known after the first call: featurized once
        while True:
            count, width = ctypes.c_size_t(0), ctypes.c_size_t(0)
            values = np.empty(max(capacity, 1), dtype=np.float32)
            code = _lib.ucmoh_flat_features(self._handle, _FORMATS[format], data, len(data), int(max_tokens),
                                            values.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), capacity,
                                            ctypes.byref(count), ctypes.byref(width))
            if code != 0 and width.value and count.value * width.value > capacity:  # now it says how much
                capacity = count.value * width.value
                continue
            _check(code)
            _flat_widths[int(max_tokens)] = width.value
            return values[:count.value * width.value].reshape(count.value, width.value)

    def update(self, programs, latencies=None, epochs=0, format="ast"):
        """Fine-tunes on measured programs (latencies in seconds, or the programs' own)."""
        data = _encode(programs)
        if latencies is None:
            pointer, n = None, 0
        else:
            values = np.ascontiguousarray(latencies, dtype=np.float64)
            pointer, n = values.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), values.size
        _check(_lib.ucmoh_update(self._handle, _FORMATS[format], data, len(data), pointer, n, int(epochs)))

    def commit(self):
        """Commits the updated model as a new registry version; returns its number."""
        version = ctypes.c_int64(0)
        _check(_lib.ucmoh_commit(self._handle, ctypes.byref(version)))
        return version.value

    def set_precision(self, precision):
        """"float32" (default) or "bf16": the arithmetic later score() calls use (ucmoh_set_precision)."""
        _check(_lib.ucmoh_set_precision(self._handle, precision.encode()))

    @property
    def info(self):
        text = ctypes.c_char_p()
        _check(_lib.ucmoh_info(self._handle, ctypes.byref(text)))
        return json.loads(text.value)

    def close(self):
        if self._handle:
            _lib.ucmoh_close(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def open(path, ref=None, plugins=None):
    """A registry version (`path` a registry, `ref` like "ucmoh@stable"; default
    latest), a version on a server (`path` "http://HOST:PORT", pulled into the
    local cache and verified), or a pulled model (`path` a `registry pull`
    directory, no ref)."""
    handle = ctypes.c_void_p()
    plugins_arg = plugins.encode() if plugins else None
    if not path.startswith(("http://", "https://")) and os.path.isfile(os.path.join(path, "manifest.json")):
        if ref is not None:
            raise Error(1, f"{path} is a pulled model (one version); do not give a ref")
        _check_pulled_schema(path)
        _check(_lib.ucmoh_open_pulled(path.encode(), plugins_arg, ctypes.byref(handle)))
    else:
        _check(_lib.ucmoh_open_registry(path.encode(), ref.encode() if ref else None, plugins_arg,
                                        ctypes.byref(handle)))
    return Model(handle)
