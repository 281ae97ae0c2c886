"""The history of finished games, and the online tables with every step played.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TABLE_CODE = "online_tables.code"


def upgrade() -> None:
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
    op.create_table(
        "online_tables",
        sa.Column("code", sa.String(8), primary_key=True),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("seed_hash", sa.String(64), nullable=False),
        sa.Column("timeout", sa.Integer, nullable=False),
        sa.Column("first_seat", sa.Integer, nullable=False),
        sa.Column("rematch", sa.String(8)),
        sa.Column("game_id", sa.Integer),
    )
    op.create_table(
        "online_seats",
        sa.Column("code", sa.String(8), sa.ForeignKey(TABLE_CODE, ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("bot", sa.String(16)),
        sa.Column("name", sa.String(64)),
        sa.Column("token_hash", sa.String(64), index=True),
    )
    op.create_table(
        "online_steps",
        sa.Column("code", sa.String(8), sa.ForeignKey(TABLE_CODE, ondelete="CASCADE"), primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("text", sa.String(64), nullable=False),
    )


def downgrade() -> None:
    for name in ("online_steps", "online_seats", "online_tables", "game_players", "games"):
        op.drop_table(name)
