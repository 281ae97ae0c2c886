"""py421: the French bar dice game 421, every house rule, one engine."""

from typing import Any

from .core.errors import Message, set_wording


def _english(message: Message) -> str:
    # the catalogs sit above core, which words nothing itself: read when a message is first said
    from .i18n import error_text

    return error_text("en", message)


set_wording(_english)


def __getattr__(name: str) -> Any:
    # the version is looked up when asked for: importlib.metadata is slow to import,
    # and every command would pay for it
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("py421")
        except PackageNotFoundError:  # running from a source tree without installing
            return "0+unknown"
    raise AttributeError(f"module 'py421' has no attribute {name!r}")  # Python's own words
