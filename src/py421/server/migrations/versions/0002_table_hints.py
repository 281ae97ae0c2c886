"""Whether an online table was created with hints, kept for a restart or another process.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("online_tables") as table:
        table.add_column(sa.Column("hints", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("online_tables") as table:
        table.drop_column("hints")
