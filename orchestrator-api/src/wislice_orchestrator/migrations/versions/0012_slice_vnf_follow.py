"""vNF follow per slice (issue 16)

slices.vnf_follow: the slice asked that its vNF chain move to the MEC node nearest its clients' AP after a handover
(vnf_follow.py); false for every row from before.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('slices', table_kwargs={'sqlite_autoincrement': True}) as batch:
        batch.add_column(sa.Column('vnf_follow', sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    # SQLite rebuilds the table to drop a column; it must keep AUTOINCREMENT (0004), which reflection misses.
    with op.batch_alter_table('slices', table_kwargs={'sqlite_autoincrement': True}) as batch:
        batch.drop_column('vnf_follow')
