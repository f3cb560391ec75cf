"""operation leases for several orchestrator instances on one database

operations.lease_owner / lease_expires_at: the instance running an operation and until when (lease.py). Rows
already there get none: an instance starting after the upgrade takes them over as interrupted operations, as a
restart did before. Table locks with the row 'admission': instances lock it (SELECT ... FOR UPDATE) so that one
admission at a time reads and writes reservations across all of them.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('operations') as batch:
        batch.add_column(sa.Column('lease_owner', sa.String(length=64), nullable=True))
        batch.add_column(sa.Column('lease_expires_at', sa.DateTime(), nullable=True))
    locks = op.create_table('locks', sa.Column('name', sa.String(length=32), primary_key=True))
    op.bulk_insert(locks, [{'name': 'admission'}])


def downgrade() -> None:
    op.drop_table('locks')
    # SQLite rebuilds the table to drop a column; it must keep AUTOINCREMENT (0004), which reflection misses.
    with op.batch_alter_table('operations', table_kwargs={'sqlite_autoincrement': True}) as batch:
        batch.drop_column('lease_expires_at')
        batch.drop_column('lease_owner')
