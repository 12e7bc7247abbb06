"""Finds and declares libucmoh: $UCMOH_LIBRARY, else the one installed with
this package (_install.py, written by `cmake --install`), else the loader's
search path."""
import ctypes
import ctypes.util
import os

_P, _S, _F, _D, _I64 = ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int64)


def path():
    if os.environ.get("UCMOH_LIBRARY"):
        return os.environ["UCMOH_LIBRARY"]
    try:
        from . import _install
        return os.path.normpath(os.path.join(os.path.dirname(__file__), _install.LIBRARY))
    except ImportError:
        return ctypes.util.find_library("ucmoh") or "libucmoh.so.1"


def load():
    lib = ctypes.CDLL(path())
    lib.ucmoh_api_version.restype = ctypes.c_int
    lib.ucmoh_feature_schema_version.restype = ctypes.c_int
    lib.ucmoh_last_error.restype = ctypes.c_char_p
    lib.ucmoh_open_registry.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_P)]
    lib.ucmoh_open_pulled.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_P)]
    lib.ucmoh_close.argtypes = [_P]
    lib.ucmoh_close.restype = None
    lib.ucmoh_score.argtypes = [_P, ctypes.c_int, ctypes.c_char_p, _S, _F, _S, ctypes.POINTER(_S)]
    lib.ucmoh_flat_features.argtypes = [_P, ctypes.c_int, ctypes.c_char_p, _S, ctypes.c_int, _F, _S,
                                        ctypes.POINTER(_S), ctypes.POINTER(_S)]
    lib.ucmoh_update.argtypes = [_P, ctypes.c_int, ctypes.c_char_p, _S, _D, _S, ctypes.c_int]
    lib.ucmoh_commit.argtypes = [_P, _I64]
    lib.ucmoh_info.argtypes = [_P, ctypes.POINTER(ctypes.c_char_p)]
    lib.ucmoh_set_precision.argtypes = [_P, ctypes.c_char_p]
    return lib
