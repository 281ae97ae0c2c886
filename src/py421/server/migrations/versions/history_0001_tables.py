"""The history's own line of migrations: the tables of finished games.

The local history file runs this line alone, so it never gets the online
tables; the server's database runs it after its own. A database that already
has the tables keeps them as they are: the server's (made by 0001) and a
history file written before the history had migrations (by ``create_all``,
the same columns).

Revision ID: history_0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "history_0001"
down_revision = None
branch_labels = ("history",)
depends_on = None


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    if "games" not in present:
        op.create_table(
            "games",
            sa.Column("id", sa.Integer, primary_key=True),
            sa.Column("finished_at", sa.String(32), nullable=False),
            sa.Column("rules", sa.String(64), nullable=False),
            sa.Column("players", sa.Text, nullable=False),
            sa.Column("losers", sa.Text, nullable=False),
            sa.Column("kind", sa.String(16), nullable=False),
            sa.Column("source", sa.String(16), nullable=False),
            sa.Column("record", sa.Text, nullable=False),
        )
    if "game_players" not in present:
        op.create_table(
            "game_players",
            sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
            sa.Column("seat", sa.Integer, primary_key=True),
            sa.Column("name", sa.String(64), nullable=False, index=True),
            sa.Column("bot", sa.String(32)),
            sa.Column("lost", sa.Boolean, nullable=False),
            sa.Column("rounds_lost", sa.Integer, nullable=False),
            sa.Column("throws_421", sa.Integer, nullable=False),
            sa.Column("nenettes", sa.Integer, nullable=False),
            sa.Column("tokens_taken", sa.Integer, nullable=False),
        )


def downgrade() -> None:
    # On the server's database the tables belong to its 0001, whose downgrade drops them.
    if "online_tables" not in set(sa.inspect(op.get_bind()).get_table_names()):
        op.drop_table("game_players")
        op.drop_table("games")
