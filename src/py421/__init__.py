"""py421: the French bar dice game 421, every house rule, one engine."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("py421")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0+unknown"
