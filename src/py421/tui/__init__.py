"""The terminal UI (Textual): ``PlayApp(session).run()`` plays a game at the keyboard."""

from .game_app import PlayApp

__all__ = ["PlayApp"]
