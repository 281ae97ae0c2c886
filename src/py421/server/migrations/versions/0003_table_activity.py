"""When a person last acted at an online table or was connected to it: idle tables are ended.

Revision ID: 0003
Revises: 0002
"""

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("online_tables") as table:
        table.add_column(sa.Column("active_at", sa.String(32), nullable=True))
    # a table from before counts as active at the upgrade: its players get a whole idle time
    upgraded = datetime.now(UTC).isoformat(timespec="seconds")
    op.execute(sa.text("UPDATE online_tables SET active_at = :t").bindparams(t=upgraded))
    op.create_index("online_tables_status", "online_tables", ["status"])


def downgrade() -> None:
    op.drop_index("online_tables_status", "online_tables")
    with op.batch_alter_table("online_tables") as table:
        table.drop_column("active_at")
