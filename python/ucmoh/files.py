"""Text files the tools read and write, gzip-compressed when the name ends in .gz.

One reading and one atomic writing for every record, trace and result file of
the Python side (the collector, the importer's helpers, the studies)."""
import gzip
import os


def open_text(path, mode="rt"):
    """`path` opened as text ("rt" or "wt"), through gzip when it ends in .gz."""
    return gzip.open(path, mode) if str(path).endswith(".gz") else open(path, mode.replace("t", ""))


def write_atomic(path, text):
    """Writes `text` to `path` whole or not at all, even across a power cut or
    SIGKILL: a sibling temporary file, synced, then a rename (gzip, at level 9,
    when `path` ends in .gz)."""
    tmp = f"{path}.tmp"
    with (gzip.open(tmp, "wt", compresslevel=9) if str(path).endswith(".gz") else open(tmp, "w")) as f:
        f.write(text)
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
