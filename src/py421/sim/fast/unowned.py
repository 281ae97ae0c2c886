"""Arrays without reference counts, for compiled loops that are handed their arrays.

Every array a compiled function passes on (to a function, inlined or not) and
every view it makes costs an atomic increment and decrement of its owner's
count. A loop whose arrays belong to its caller, held for the whole call,
needs none of them: :func:`unowned` gives the same array without its owner,
and numba then skips the counting.
"""

from __future__ import annotations

from typing import Any

from numba.core import types
from numba.extending import intrinsic
from numba.np import arrayobj

_make_array: Any = arrayobj.make_array  # numba's own helpers, untyped
_populate_array: Any = arrayobj.populate_array


def _unowned_impl(typingctx: Any, array: Any) -> Any:
    """The same data, shape and strides, with no owner (``meminfo`` null): nothing to count."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        given = _make_array(array)(context, builder, args[0])
        out = _make_array(array)(context, builder)
        _populate_array(
            out,
            data=given.data,
            shape=given.shape,
            strides=given.strides,
            itemsize=given.itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return array(array), codegen


unowned: Any = intrinsic(_unowned_impl)
