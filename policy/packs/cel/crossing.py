"""Calls from cel-expr-python into Python that leave nothing behind.

cel-expr-python 0.1.3 calls a Python function with a new argument tuple and then
forgets both that tuple and the function's result: `PyCelFunctionAdapter::Invoke`
(py_cel/py_cel_function.cc) makes the tuple with `PyTuple_New`, calls
`PyObject_CallObject`, and releases neither. Every call a rule makes into `path.*`,
`regex.*`, `glob` or `matches` kept its arguments (the path or the word asked about)
for the life of the process: ≈ 30 calls and ≈ 10 KB a realistic decision, the
growth issue 24 bounds at 1 KiB (decision record 0018).

So, in the environments programs run in, a function answering a bool or a string is
declared to return the protobuf wrapper (`google.protobuf.BoolValue`, `StringValue`),
which CEL reads as the bool or string itself, and is implemented by a class made here.
Calling the class makes an instance of it, a `BaseException`: exceptions keep the very
tuple they were called with as `.args`, so the instance holds the library's argument
tuple. It works out its answer when made (an exception raised there is the call's
error, as before) and hands the wrapper's bytes to the library through
`SerializePartialToString`, the method the library reads a message with. There it notes
itself as owed: the library is done with the instance and the tuple once the call
returns, but keeps the one reference to each that it never releases.

After an evaluation (`settle`), once a thread owes `_BATCH` instances (then every
`_STEP`, and when the thread ends), those references are released with `Py_DecRef`
(ctypes), and the instances, their tuples and what those hold are freed — except a
tuple holding a null, which the library put there without a reference of its own.
Only if a probe, run once in the process, showed that the library forgets exactly one
reference to each — and only for the library version that probe was written for
(`_KNOWN`): another version keeps whatever it leaks, as before, and a test fails until
this module is checked against it. Releasing only after the evaluation that made them
has returned means the library holds no pointer to them any more. A one-event hook
never owes `_BATCH` and never imports ctypes.

`keep_nulls` mends the same borrowed `None` in a program's result.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "BOOL_WRAPPER",
    "STRING_WRAPPER",
    "bool_crossing",
    "int_crossing",
    "keep_nulls",
    "result_crossing",
    "settle",
    "string_crossing",
]

#: The wrapper types the crossings are declared to return.
BOOL_WRAPPER = "google.protobuf.BoolValue"
STRING_WRAPPER = "google.protobuf.StringValue"

#: The cel-expr-python release whose calls into Python this module was checked
#: against (its py_cel_function.cc and py_cel_value.cc read, the probe run).
_KNOWN = ("0.1.3",)

#: Owed instances per thread before `settle` releases them: a one-event hook, ≈ 40
#: calls, never gets there; a long-lived process releases every few decisions.
_BATCH = 256

#: Once releasing is known to be right, what `settle` releases at a time: small, so
#: no one decision pays for many others' (a batch of 256 is ≈ 0.2 ms, at p99).
_STEP = 16

_TRUE = b"\x08\x01"  # BoolValue{value: true}; false is the empty message
_owed = threading.local()
_lock = threading.Lock()
_release: Callable[[object], None] | None = None
_probed = False


class _Descriptor:
    """What the library reads of a returned object to learn its message type: the
    `full_name` of its `DESCRIPTOR` (PyCelType::ForPyObject)."""

    __slots__ = ("full_name",)

    def __init__(self, full_name: str) -> None:
        self.full_name = full_name


class _Owed(list[Any]):
    """What one thread owes; released when the thread ends, too (its thread-local
    storage goes, and this with it): a pool that drops idle threads, or a host that
    decides on a new thread per call, would otherwise keep up to a batch each."""

    __slots__ = ()

    def __del__(self) -> None:
        # (not while the interpreter shuts down: the memory goes with the process, and
        # what a release needs may be gone; nor before a probe has said it may)
        if self and _release is not None and not sys.is_finalizing():
            _release_all(self)


def _owe(item: object) -> None:
    owed: _Owed | None = getattr(_owed, "items", None)
    if owed is None:
        owed = _owed.items = _Owed()
    owed.append(item)


def int_crossing(impl: Callable[..., Any], name: str) -> type[BaseException]:
    """`impl`, answering a bool, as a class whose instance the library reads as the int
    1 or 0 (through `__index__`): ≈ 0.8 µs a call where a wrapper costs ≈ 2.5 µs, but
    the call must be rewritten to compare (constants.with_int_answers)."""

    class IntCrossing(BaseException):
        # No __init__: BaseException's keeps the library's tuple as `.args`, and the
        # answer is worked out when the library reads it, one Python call a crossing.
        __slots__ = ()

        def __index__(self) -> int:
            # `__suppress_context__` (a flag every exception has, False when made)
            # marks the one read: a second (the library reads once) is an error,
            # and the instance is never owed twice
            if self.__suppress_context__:
                raise TypeError(f"{name}: answer already read")
            self.__suppress_context__ = True
            _owe(self)  # from here, whatever `impl` does: released with its tuple
            answer = impl(*self.args)
            if answer is True:
                return 1
            if answer is False:
                return 0
            raise TypeError(f"{name} answered {type(answer).__name__}, not a bool")

    IntCrossing.__qualname__ = IntCrossing.__name__ = f"crossing[{name}]"
    return IntCrossing


def bool_crossing(impl: Callable[..., Any], name: str) -> type[BaseException]:
    """`impl`, answering a bool, as the class cel-expr-python calls (see above)."""
    return _wrapper_crossing(impl, name, BOOL_WRAPPER, _bool_wire)


def string_crossing(impl: Callable[..., Any], name: str) -> type[BaseException]:
    """`impl`, answering a str, as the class cel-expr-python calls (see above)."""
    return _wrapper_crossing(impl, name, STRING_WRAPPER, _string_wire)


def _wrapper_crossing(
    impl: Callable[..., Any], name: str, wrapper: str, wire: Callable[[object, str], bytes]
) -> type[BaseException]:
    """The class whose instance holds `impl`'s answer as the bytes of `wrapper`."""

    class WrapperCrossing(BaseException):
        __slots__ = ("_wire",)
        DESCRIPTOR = _Descriptor(wrapper)

        def __init__(self, *args: Any) -> None:
            # (no BaseException.__init__: `self.args` stays the library's own tuple)
            try:
                self._wire: bytes | None = wire(impl(*args), name)
            except BaseException:
                _owe(self.args)  # never read: only the tuple is left to release
                raise

        def SerializePartialToString(self) -> bytes | None:  # the library's name for it
            return _read_once(self)

    WrapperCrossing.__qualname__ = WrapperCrossing.__name__ = f"crossing[{name}]"
    return WrapperCrossing


def _bool_wire(answer: object, name: str) -> bytes:
    if answer is True:
        return _TRUE
    if answer is False:
        return b""
    raise TypeError(f"{name} answered {type(answer).__name__}, not a bool")


def _string_wire(answer: object, name: str) -> bytes:
    if type(answer) is not str:
        raise TypeError(f"{name} answered {type(answer).__name__}, not a string")
    data = answer.encode()  # a lone surrogate cannot be a CEL string: an error
    return b"\n" + _varint(len(data)) + data if data else b""


def result_crossing(impl: Callable[..., Any]) -> Callable[..., Any]:
    """`impl`, answering a list, noted as owed: only the answer can be released (a list
    cannot hold the library's argument tuple, which stays leaked)."""

    def call(*args: Any) -> Any:
        answer = impl(*args)
        if type(answer) is list:
            _owe(answer)
        return answer

    return call


def _read_once(crossing: Any) -> bytes | None:
    """The instance's bytes, and the instance noted as owed — once: a second read
    (the library reads once) gets None, an error, and is never owed twice."""
    wire: bytes | None = crossing._wire
    if wire is not None:
        crossing._wire = None
        _owe(crossing)
    return wire


def _varint(number: int) -> bytes:
    out = bytearray()
    while number > 0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def settle() -> None:
    """Release what this thread owes: the first time once it owes `_BATCH` instances
    (a one-event hook never gets there), then every `_STEP`. Called after an
    evaluation has returned, never during one."""
    owed: _Owed | None = getattr(_owed, "items", None)
    if owed is not None and len(owed) >= (_BATCH if _release is None else _STEP):
        _release_all(owed)


def _release_all(owed: list[Any]) -> None:
    release = _releaser()
    if release is not None:
        for item in owed:
            kind = type(item)
            if kind is tuple:  # the arguments of a call that failed
                _release_arguments(release, item)
            elif kind is list:  # a list answer (result_crossing)
                release(item)
            else:
                _release_arguments(release, item.args)
                release(item)
    owed.clear()  # (our own references: without `release`, what leaks stays leaked)


#: How many values `_release_arguments` looks through for a null before it gives up
#: (and keeps the tuple, as the library would).
_SCAN_LIMIT = 10_000


def _release_arguments(release: Callable[[object], None], arguments: tuple[Any, ...]) -> None:
    """Release the library's argument tuple — unless a null is in it: the library puts
    `None` in a list (or the tuple) without taking a reference to it
    (CelValueToPyObject), so releasing the list would take one from `None` that was
    never given, until it is freed and the process aborts (Python 3.11; a red team's
    finding). Such a tuple is kept, as before."""
    for value in arguments:  # (most calls: strings and ints only, at once)
        kind = type(value)
        if kind is not str and kind is not int:
            break
    else:
        release(arguments)
        return
    pending: list[Any] = list(arguments)
    seen = 0
    while pending:
        value = pending.pop()
        seen += 1
        if value is None or seen > _SCAN_LIMIT:
            return
        kind = type(value)
        if kind is list:
            pending.extend(value)
        elif kind is dict:
            pending.extend(value.values())
    release(arguments)


def _releaser() -> Callable[[object], None] | None:
    """`Py_DecRef`, when this process's library forgets what the probe says; else None."""
    global _release, _probed
    if _probed:
        return _release
    with _lock:
        if not _probed:
            if _library_version() in _KNOWN and probe() == (1, 1):
                import ctypes

                decref = ctypes.pythonapi.Py_DecRef
                decref.argtypes = [ctypes.py_object]
                decref.restype = None
                _release = decref
            _probed = True
    return _release


def keep_nulls(value: object) -> None:
    """Give `None` back the references the library took converting `value`, a program's
    plain result. CelValueToPyObject returns `None` for a null without a reference of
    its own, and a list takes that as one it owns (and a map's conversion drops one):
    every null in a result cost `None` a reference, until Python 3.11 freed it and
    aborted — a pack whose `set` or `respond` echoes a caller's null was enough to take
    a long-lived service down (found with issue 24's red team; older than the
    crossings). Only for the library version whose sources say so."""
    nulls = _nulls_in(value)
    if nulls and _library_version() in _KNOWN:
        incref = _incref()
        for _ in range(nulls):
            incref(None)


@functools.lru_cache(maxsize=1)
def _incref() -> Callable[[object], None]:
    import ctypes

    incref = ctypes.pythonapi.Py_IncRef
    incref.argtypes = [ctypes.py_object]
    incref.restype = None
    return incref


def _nulls_in(value: object) -> int:
    """The nulls of a list, or of a map's values, at any depth (all of them: each one
    counts)."""
    kind = type(value)
    if kind is not list and kind is not dict:
        return 0
    nulls = 0
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        items = item.values() if type(item) is dict else item
        for element in items:
            if element is None:
                nulls += 1
            elif type(element) is list or type(element) is dict:
                pending.append(element)
    return nulls


@functools.lru_cache(maxsize=1)
def _library_version() -> str | None:
    from cel_expr_python import cel

    site = os.path.dirname(os.path.dirname(os.path.abspath(cel.__file__)))
    for version in _KNOWN:
        if os.path.isdir(os.path.join(site, f"cel_expr_python-{version}.dist-info")):
            return version
    return None


def probe() -> tuple[int, int] | None:
    """How many references the library forgets, after one call, to the result and to
    the argument tuple: (1, 1) for 0.1.3, (0, 0) for a library that releases both.
    None if a crossing's answer does not come back as CEL's bool."""
    from cel_expr_python import cel

    seen: list[BaseException] = []

    class Probe(BaseException):
        DESCRIPTOR = _Descriptor(BOOL_WRAPPER)

        def SerializePartialToString(self) -> bytes:  # the library's name for it
            seen.append(self)
            return _TRUE

    t = cel.Type
    try:
        overload = cel.Overload("probe_string", t.DYN, [t.STRING], impl=Probe)
        env = cel.NewEnv(functions=[cel.FunctionDecl("probe", [overload])])
        value = env.compile('probe("x") == true', disable_check=True).eval().plain_value()
    except Exception:  # noqa: BLE001 - a library that cannot run this is one we never release for
        return None
    if value is not True or len(seen) != 1:
        return None
    instance = seen[0]
    # getrefcount counts its own argument; the instance is held by `seen` and by
    # `instance`, its tuple by the instance
    return sys.getrefcount(instance) - 3, sys.getrefcount(instance.args) - 2
