"""closed-loop slice policies

slices.policies: the policies a slice declared (a JSON list, empty for rows from before).
slices.policy_state: the policy engine's state of each policy, in the same order.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('slices') as batch:
        batch.add_column(sa.Column('policies', sa.JSON(), nullable=False, server_default='[]'))
        batch.add_column(sa.Column('policy_state', sa.JSON(), nullable=False, server_default='[]'))


def downgrade() -> None:
    with op.batch_alter_table('slices') as batch:
        batch.drop_column('policy_state')
        batch.drop_column('policies')
