"""The MCP SDK imported as a stdio server uses it: its HTTP stack and its client deferred.

``mcp`` 2.3 imports, at the tops of the modules every server loads (``mcp/__init__``,
``mcp.server.lowlevel.server``, ``mcp.server.mcpserver.server``), its HTTP transport
(starlette, sse_starlette and through it uvicorn and click), its HTTP client (httpx2, jwt) and
its own client: 0.27 s of the 1.84 s of CPU ``atc mcp`` spent before it answered
``initialize`` (BENCHMARKS.md, round 35, qa209), for code a stdio server never runs.

:func:`import_for_stdio` imports the SDK with each of the modules in :data:`DEFERRED` served,
for the length of that import, as a :class:`DeferredModule`: every name taken from it is a
:class:`Deferred`, which imports the real module the first time the name is used (called, an
attribute read, subclassed, in an ``isinstance``) and acts for it from then on. The SDK's
code runs unchanged: a name it only binds costs nothing, a name it uses is the real one.
Once the SDK is in, the deferred modules leave ``sys.modules``, so any later import of those
modules (the HTTP server's, a tool's) gets the real ones.

The SDK's pydantic models (``mcp_types``: about 500 of them, each protocol construct once in
the version-free form and once per protocol version's wire shape) are made with pydantic's
``defer_build`` for the length of that import: a model builds its validator and serializer at
its first use, not as it is defined, so that a session builds those it uses (the handshake, the
listings, ``tools/call``) and never the others (sampling, elicitation, tasks, the other
protocol version's). What a model validates and writes is the same either way; the models a
server makes later (its tools' arguments) are built as they are made, as before.

Should an SDK release use one of those names while it is imported in a way a stand-in cannot
serve, the import fails, what it left is discarded and the SDK is imported whole, as before:
slower, never wrong. ``atc mcp --http`` and every in-process use of :func:`.mcp_server.build_server`
import the SDK whole.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import operator
import sys
import types
import typing
from collections.abc import Iterator
from typing import Any, Callable

#: The modules a stdio server never runs, by package prefix: the SDK's HTTP transports and
#: client, and the third-party packages only they use.
DEFERRED = (
    "starlette", "sse_starlette", "uvicorn", "httpx2", "httpx_sse", "jwt",
    "python_multipart", "multipart",
    "mcp.client", "mcp.server.sse", "mcp.server.streamable_http",
    "mcp.server.streamable_http_manager", "mcp.server._streamable_http_modern",
    "mcp.shared._httpx_utils",
    # OAuth for HTTP; its settings model stays (the server's settings hold one)
    "mcp.server.auth.middleware", "mcp.server.auth.provider", "mcp.server.auth.routes",
    "mcp.server.auth.handlers",
)

#: What the stdio server imports of the SDK (``mcp_server`` and ``mcp_wire``).
STDIO_MODULES = ("mcp.server.mcpserver", "mcp.server.mcpserver.exceptions",
                 "mcp.server.stdio", "mcp.shared.message")

#: The SDK's protocol types, which ``mcp_server`` and ``mcp_wire`` import at their tops:
#: imported first, so that their models too build on first use.
TYPES_MODULE = "mcp_types"

#: The ``module.name`` of every deferred name a real module had to be imported for, in the
#: order they were first used (empty when the stdio server ran as planned).
resolved: list[str] = []

#: True while :func:`import_for_stdio` imports the SDK: a deferred name used then fails the
#: attempt (its real module would be imported under the deferring finder).
_importing = False


def deferred(module: str) -> bool:
    """Whether ``module`` is one of :data:`DEFERRED` or inside one."""
    return any(module == prefix or module.startswith(prefix + ".") for prefix in DEFERRED)


def import_for_stdio() -> None:
    """Import the SDK's modules the stdio server uses, the :data:`DEFERRED` ones deferred;
    nothing when they are imported already (the SDK whole, or by an earlier call)."""
    global _importing
    if any(name in sys.modules for name in STDIO_MODULES):
        return
    before = set(sys.modules)
    finder = _DeferringFinder()
    sys.meta_path.insert(0, finder)
    _importing = True
    try:
        with models_built_on_first_use():
            for name in (TYPES_MODULE, *STDIO_MODULES):
                importlib.import_module(name)
        failed = False
    except Exception:
        failed = True
    finally:
        _importing = False
        sys.meta_path.remove(finder)
    if failed:
        # the SDK's modules of the attempt go (they may hold stand-ins), the packages it
        # imported on the way stay (an extension module cannot be imported twice)
        sdk = {name.split(".")[0] for name in STDIO_MODULES}
        for name in set(sys.modules) - before:
            if name.split(".")[0] in sdk:
                del sys.modules[name]
    for name in [name for name, module in sys.modules.items()
                 if isinstance(module, DeferredModule)]:
        del sys.modules[name]
    if failed:      # the SDK whole, as without this module
        for name in STDIO_MODULES:
            importlib.import_module(name)


@contextlib.contextmanager
def models_built_on_first_use() -> Iterator[None]:
    """Every pydantic model defined meanwhile builds its validator and serializer at its first
    use (pydantic's ``defer_build``, which each model keeps in its own config); the models
    defined after are built as they are defined, as pydantic's default is."""
    from pydantic import BaseModel

    config = BaseModel.model_config
    had = "defer_build" in config
    old = config.get("defer_build")
    config["defer_build"] = True
    try:
        yield
    finally:
        if had:
            config["defer_build"] = old
        else:
            del config["defer_build"]


class _DeferringFinder(importlib.abc.MetaPathFinder):
    """Finds each :data:`DEFERRED` module as a :class:`DeferredModule`."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if not deferred(fullname):
            return None
        return importlib.machinery.ModuleSpec(fullname, _DeferringLoader(), is_package=True)


class _DeferringLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return DeferredModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing runs: the module's code is what is deferred."""


class DeferredModule(types.ModuleType):
    """A module not imported yet: each name read of it is a :class:`Deferred`."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__path__: list[str] = []          # a package: its submodules are deferred too

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return Deferred(self.__name__, name)


class Deferred:
    """``module.name``, imported at its first use and that object from then on."""

    __slots__ = ("_module", "_name", "_real")

    def __init__(self, module: str, name: str) -> None:
        object.__setattr__(self, "_module", module)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_real", _UNSET)

    def real(self) -> Any:
        """The object this name stands for, its module imported the first time."""
        if self._real is _UNSET:
            if _importing:
                raise ImportError(f"{self._module}.{self._name} is used as the MCP SDK is "
                                  "imported: it cannot be deferred")
            resolved.append(f"{self._module}.{self._name}")
            module = importlib.import_module(self._module)
            try:
                real = getattr(module, self._name)
            except AttributeError:      # a submodule (``from package import module``)
                real = importlib.import_module(f"{self._module}.{self._name}")
            object.__setattr__(self, "_real", real)
        return self._real

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.real()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if _importing and name.startswith("__"):    # typing probing (``__typing_subst__``)
            raise AttributeError(name)
        return getattr(self.real(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.real(), name, value)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[Any, ...]:
        return (self.real(),)

    def __instancecheck__(self, instance: Any) -> bool:
        return isinstance(instance, self.real())

    def __subclasscheck__(self, subclass: Any) -> bool:
        return issubclass(subclass, self.real())

    def __getitem__(self, item: Any) -> Any:
        return self.real()[item]

    # ``Response | None`` in an annotation Python evaluates as the SDK is imported (a module
    # without ``from __future__ import annotations``): the union of the name itself
    def __or__(self, other: Any) -> Any:
        return typing.Union[self, other] if _importing else self.real() | other

    def __ror__(self, other: Any) -> Any:
        return typing.Union[other, self] if _importing else other | self.real()

    def __repr__(self) -> str:
        state = "imported" if self._real is not _UNSET else "deferred"
        return f"<{state} {self._module}.{self._name}>"


def _forwarded(operation: Callable[..., Any]) -> Callable[..., Any]:
    """A special method of :class:`Deferred`: ``operation`` on the real object (Python looks
    such methods up on the type, past ``__getattr__``), e.g. a deferred constant compared."""
    return lambda self, *args: operation(self.real(), *args)


for _method, _operation in {
        "__iter__": iter, "__len__": len, "__bool__": bool, "__str__": str, "__int__": int,
        "__float__": float, "__index__": operator.index, "__lt__": operator.lt,
        "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
        "__contains__": operator.contains}.items():
    setattr(Deferred, _method, _forwarded(_operation))

_UNSET = object()
