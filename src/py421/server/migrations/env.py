"""Alembic environment: py421 passes its connection in ``config.attributes``.

One folder for two kinds of database: the server's runs every line, the local
history file only the history's (``history@head``), so it never gets the
online tables.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

config = context.config
connection = config.attributes.get("connection")
if connection is not None:
    context.configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()
else:  # from the alembic command line
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as conn:
        context.configure(connection=conn)
        with context.begin_transaction():
            context.run_migrations()
