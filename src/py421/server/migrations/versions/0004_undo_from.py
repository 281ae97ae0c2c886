"""Where a scorekeeper's undo stops once a phone watching took the score from a keeper's dead phone.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("online_tables") as table:
        table.add_column(sa.Column("undo_from", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("online_tables") as table:
        table.drop_column("undo_from")
