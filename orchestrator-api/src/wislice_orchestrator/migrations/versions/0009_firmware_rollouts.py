"""firmware artifacts and staged rollouts (issue 18)

firmware: signed artifacts operators uploaded (bytes on disk under the firmware directory, named by sha256).
rollouts / rollout_aps: staged fleet upgrades and each AP's progress; a rollout is run by one instance at a time
under a lease (lease_owner / lease_expires_at, as operations). New tables only: the downgrade drops them (the
files stay on disk).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'firmware',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('version', sa.String(length=64), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('size', sa.Integer(), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False, unique=True),
        sa.Column('signature', sa.String(length=512), nullable=False),
        sa.Column('key_id', sa.String(length=16), nullable=False),
        sa.Column('download_token', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_table(
        'rollouts',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('firmware_id', sa.Integer(), sa.ForeignKey('firmware.id'), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('reason', sa.String(length=500), nullable=False),
        sa.Column('stage_size', sa.Integer(), nullable=False),
        sa.Column('parallel', sa.Integer(), nullable=False),
        sa.Column('max_failures', sa.Integer(), nullable=False),
        sa.Column('timeout_s', sa.Integer(), nullable=False),
        sa.Column('retry_offline_s', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('finished_at', sa.DateTime(), nullable=True),
        sa.Column('lease_owner', sa.String(length=64), nullable=True),
        sa.Column('lease_expires_at', sa.DateTime(), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_table(
        'rollout_aps',
        sa.Column('id', sa.Integer(), primary_key=True),
        sa.Column('rollout_id', sa.Integer(), sa.ForeignKey('rollouts.id', ondelete='CASCADE'), nullable=False),
        sa.Column('agent_id', sa.String(length=64), nullable=False),
        sa.Column('stage', sa.Integer(), nullable=False),
        sa.Column('state', sa.String(length=16), nullable=False),
        sa.Column('reason', sa.String(length=500), nullable=False),
        sa.Column('from_version', sa.String(length=64), nullable=True),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('requested_at', sa.DateTime(), nullable=True),
        sa.Column('offline_since', sa.DateTime(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.Column('ended_at', sa.DateTime(), nullable=True),
        sa.UniqueConstraint('rollout_id', 'agent_id'),
    )


def downgrade() -> None:
    op.drop_table('rollout_aps')
    op.drop_table('rollouts')
    op.drop_table('firmware')
