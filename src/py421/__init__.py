"""py421: the French bar dice game 421, every house rule, one engine."""

from typing import Any


def __getattr__(name: str) -> Any:
    # the version is looked up when asked for: importlib.metadata is slow to import,
    # and every command would pay for it
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("py421")
        except PackageNotFoundError:  # running from a source tree without installing
            return "0+unknown"
    raise AttributeError(f"module 'py421' has no attribute {name!r}")
