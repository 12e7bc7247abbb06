"""Reading TIR from Python (TVM 0.27 exposes no stmt_functor or arith to Python):
variables, integer index expressions, the buffer of a region, the calls under
a node. Shared by the converter, the intrinsic recognizer and the template
inputs."""
import typing


class UnsupportedTIR(ValueError):
    """A TIR construct the converter does not understand (its message names it)."""


def elements(array):
    """A TVM FFI array's elements as a list. Iterating the array asks the FFI
    for its size again before every element; a slice asks once (the converter
    walks thousands of these per candidate)."""
    return array[:]


class Loop(typing.NamedTuple):
    """An enclosing loop as the converter saw it: its variable's id, its kind
    (TVM's ForKind as an int: 0 serial, 1 parallel, 2 vectorized, 3 unrolled, 4
    thread-bound) and the For node, read through the FFI once."""
    id: int
    kind: int
    node: object

    @property
    def extent(self):
        return int(self.node.extent.value)


def id_of(var):
    """A variable's identity (its object's handle: two variables may share a name)."""
    return var.__hash__()


_BINARY = {"Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mul": lambda a, b: a * b,
           "FloorDiv": lambda a, b: a // b, "FloorMod": lambda a, b: a % b, "Min": min, "Max": max}


def perturbed(expr, forms):
    """An integer index expression with every loop at 0, and what it changes by
    when one loop alone is at 1: (value, {loop id: change}), i.e. the expression
    evaluated at the origin and at each loop's unit step, in one walk. `forms`
    holds the same pair for the block variables in scope; any other variable is
    a loop standing for itself. Exact for floordiv / floormod too (each
    operand's value at a step is its value at the origin plus its change)."""
    name = type(expr).__name__
    if name == "IntImm":
        return int(expr.value), {}
    if name == "Var":
        i = id_of(expr)
        return forms[i] if i in forms else (0, {i: 1})
    if name == "Cast":
        return perturbed(expr.value, forms)
    if name not in _BINARY:
        raise UnsupportedTIR(f"index expression '{expr}' ({name})")
    (a, da), (b, db) = perturbed(expr.a, forms), perturbed(expr.b, forms)
    if name in ("Add", "Sub") or (name == "Mul" and not (da and db)):  # linear: the changes combine directly
        return _linear(name, a, da, b, db)
    f = _BINARY[name]
    try:
        value, changes = f(a, b), {}
        for k in da.keys() | db.keys():
            change = f(a + da.get(k, 0), b + db.get(k, 0)) - value
            if change:
                changes[k] = change
    except ZeroDivisionError:
        raise UnsupportedTIR(f"index expression '{expr}' divides by zero at a loop step") from None
    return value, changes


def _linear(name, a, da, b, db):
    """perturbed's Add, Sub, and Mul by a constant, whose unit-step changes are
    exact without evaluating the expression at every step (most index arithmetic)."""
    if name == "Mul":
        value, (scale, changes) = a * b, ((b, da) if da else (a, db))
        return value, {k: v * scale for k, v in changes.items() if v * scale}
    sign = 1 if name == "Add" else -1
    changes = dict(da)
    for k, v in db.items():
        changes[k] = changes.get(k, 0) + sign * v
    return a + sign * b, {k: v for k, v in changes.items() if v}


def buffer_of(region):
    """The buffer of a block's read or write region (TVM 0.27: TensorRegion.source)."""
    return region.source if hasattr(region, "source") else region.buffer


def vars_in(expr):
    """Ids of the variables an index expression reads."""
    name = type(expr).__name__
    if name == "Var":
        return {id_of(expr)}
    return set().union(*[vars_in(getattr(expr, f)) for f in ("a", "b", "value") if hasattr(expr, f)] or [set()])


def calls_in(node):
    """Every Call under a statement or expression (TVM 0.27 has no Python stmt_functor)."""
    name = type(node).__name__
    if name == "Call":
        yield node
        for a in elements(node.args):
            yield from calls_in(a)
        return
    if name in ("SeqStmt",):
        for s in elements(node.seq):
            yield from calls_in(s)
        return
    for field in ("value", "a", "b", "body", "then_case", "else_case", "condition", "base", "block"):
        child = getattr(node, field, None) if name not in ("IntImm", "FloatImm", "StringImm", "Var") else None
        if child is not None and hasattr(child, "same_as"):
            yield from calls_in(child)


