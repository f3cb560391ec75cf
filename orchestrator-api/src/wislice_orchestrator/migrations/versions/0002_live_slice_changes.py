"""per-vAP wired routes and pending slice changes

slice_vaps.path_links: the route placement reserved for the vAP's path (directed link keys, AP -> MEC), so link
reservations are kept per direction; NULL for rows from before (their route is re-derived from slices.path_links).
slices.pending_change: the bandwidth/latency change an update_slice operation is applying.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('slice_vaps') as batch:
        batch.add_column(sa.Column('path_links', sa.JSON(), nullable=True))
    with op.batch_alter_table('slices') as batch:
        batch.add_column(sa.Column('pending_change', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('slices') as batch:
        batch.drop_column('pending_change')
    with op.batch_alter_table('slice_vaps') as batch:
        batch.drop_column('path_links')
