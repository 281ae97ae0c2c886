"""Players: one interface for humans and bots."""

from .base import Player
from .random_bot import RandomBot

__all__ = ["Player", "RandomBot"]
