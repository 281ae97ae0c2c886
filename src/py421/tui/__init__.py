"""The terminal UI (Textual): ``PlayApp(session).run()`` plays a game at the keyboard."""

from .app import PlayApp

__all__ = ["PlayApp"]
