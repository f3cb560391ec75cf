"""tokens expire and can be revoked

api_tokens.expires_at: when the token stops working (NULL: the configured bootstrap operator token only).
api_tokens.revoked_at: when it was revoked (NULL: not revoked).
api_tokens.last_used_at: when it last authenticated a request (NULL: not since this migration).

Existing tokens were issued without an end: they get the default lifetime (24 h) from the migration on, so a
deployment keeps working through the upgrade and its holders have a day to take tokens that expire, instead of
keeping credentials that never would. The bootstrap operator token (role operator, name "bootstrap", as
app._bootstrap named it) keeps no expiry: it lives as long as WISLICE_BOOTSTRAP_OPERATOR_TOKEN names it.

api_tokens.prefix: cut to the role's prefix (wso_, wst_); it also held the first 4 characters of the secret, which
nothing read and which should not rest in the database in clear.

The downgrade deletes revoked and expired tokens before dropping the columns: the older code cannot refuse them,
and a revoked credential must not come back to life.

Revision ID: 0005
Revises: 0004
"""

import datetime as dt

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

# The default lifetime of a tenant token (config.DEFAULTS["TOKEN_TTL_S"]) as it was when this migration was
# written; fixed here so the migration does the same whatever the configuration later says.
EXISTING_TOKEN_TTL_S = 24 * 3600

tokens = sa.table('api_tokens', sa.column('role', sa.String()), sa.column('name', sa.String()),
                  sa.column('prefix', sa.String()),
                  sa.column('expires_at', sa.DateTime()), sa.column('revoked_at', sa.DateTime()))


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)  # naive UTC, as models.utcnow


def upgrade() -> None:
    with op.batch_alter_table('api_tokens') as batch:
        batch.add_column(sa.Column('expires_at', sa.DateTime(), nullable=True))
        batch.add_column(sa.Column('revoked_at', sa.DateTime(), nullable=True))
        batch.add_column(sa.Column('last_used_at', sa.DateTime(), nullable=True))
    bootstrap = (tokens.c.role == 'operator') & (tokens.c.name == 'bootstrap')
    deadline = _now() + dt.timedelta(seconds=EXISTING_TOKEN_TTL_S)
    op.execute(tokens.update().where(~bootstrap).values(expires_at=deadline))
    op.execute(tokens.update().values(prefix=sa.func.substr(tokens.c.prefix, 1, 4)))


def downgrade() -> None:
    op.execute(tokens.delete().where(tokens.c.revoked_at.is_not(None) | (tokens.c.expires_at <= _now())))
    with op.batch_alter_table('api_tokens') as batch:
        batch.drop_column('last_used_at')
        batch.drop_column('revoked_at')
        batch.drop_column('expires_at')
