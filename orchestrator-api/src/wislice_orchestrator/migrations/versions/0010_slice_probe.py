"""latency probe per slice (issue 15)

slices.probe: the in-band latency probe a latency slice asked for, {source_ip, target_ip, interval_ms} as JSON, or
NULL (none; every row from before). Its vAPs get it in their VapSpec while the slice has a latency class.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('slices', table_kwargs={'sqlite_autoincrement': True}) as batch:
        batch.add_column(sa.Column('probe', sa.JSON(), nullable=True))


def downgrade() -> None:
    # SQLite rebuilds the table to drop a column; it must keep AUTOINCREMENT (0004), which reflection misses.
    with op.batch_alter_table('slices', table_kwargs={'sqlite_autoincrement': True}) as batch:
        batch.drop_column('probe')
