"""Alembic environment: the engine comes from wislice_orchestrator.db (config.attributes), not from an ini file."""

from alembic import context

from wislice_orchestrator.models import Base

engine = context.config.attributes["engine"]
with engine.connect() as connection:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # A batch migration rebuilds a SQLite table (copy, drop, rename); with foreign keys on, dropping a table
        # that other rows reference fails. SQLite ignores this pragma inside a transaction: set it before one.
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.commit()
    try:
        context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
    finally:
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")  # as every connection of the engine has it
            connection.commit()
