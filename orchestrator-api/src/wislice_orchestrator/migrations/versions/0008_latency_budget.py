"""latency budget per slice

slices.latency_budget_us: the wired + MEC part's latency budget in microseconds, required for the latency classes
(low, ultra_low) and NULL for best effort. Rows from before get none: a latency-class slice made before the budget
existed keeps working and is shown without one until a PATCH gives it one (the API asks for it at the next change
of its class or budget).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('slices', table_kwargs={'sqlite_autoincrement': True}) as batch:
        batch.add_column(sa.Column('latency_budget_us', sa.Integer(), nullable=True))


def downgrade() -> None:
    # SQLite rebuilds the table to drop a column; it must keep AUTOINCREMENT (0004), which reflection misses.
    with op.batch_alter_table('slices', table_kwargs={'sqlite_autoincrement': True}) as batch:
        batch.drop_column('latency_budget_us')
