"""Alembic environment: the engine comes from wislice_orchestrator.db (config.attributes), not from an ini file."""

from alembic import context

from wislice_orchestrator.models import Base

engine = context.config.attributes["engine"]
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()
