"""slice and operation ids are never reused

SQLite gives a new row the highest rowid + 1, so once the newest slices or operations were deleted (a tenant's
removal deletes its records) their ids came back for new records: an old Location URL, an event's "slice 12" or a
controller id t5s12 would then name something else. AUTOINCREMENT keeps every id ever given out. PostgreSQL's
sequences never hand an id out twice, so nothing changes there.

Revision ID: 0004
Revises: 0003
"""

from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

TABLES = ('slices', 'operations')


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != 'sqlite':
        return
    for table in TABLES:
        # SQLite cannot add AUTOINCREMENT to a table: batch mode copies it into a new one.
        with op.batch_alter_table(table, recreate='always', table_kwargs={'sqlite_autoincrement': autoincrement}):
            pass


def upgrade() -> None:
    _rebuild(True)


def downgrade() -> None:
    _rebuild(False)
