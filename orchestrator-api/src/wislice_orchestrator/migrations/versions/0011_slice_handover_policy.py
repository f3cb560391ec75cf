"""handover policy per slice (issue 16)

slices.handover_policy: what the radio watch does when a client's handover into another of the slice's APs cannot
be re-admitted there: "best_effort" (the station stays, its guarantee not held; every row from before) or
"steer_back" (steered back to the AP it came from when that AP's radio holds it).

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('slices', table_kwargs={'sqlite_autoincrement': True}) as batch:
        batch.add_column(sa.Column('handover_policy', sa.String(length=16), nullable=False,
                                   server_default='best_effort'))


def downgrade() -> None:
    # SQLite rebuilds the table to drop a column; it must keep AUTOINCREMENT (0004), which reflection misses.
    with op.batch_alter_table('slices', table_kwargs={'sqlite_autoincrement': True}) as batch:
        batch.drop_column('handover_policy')
