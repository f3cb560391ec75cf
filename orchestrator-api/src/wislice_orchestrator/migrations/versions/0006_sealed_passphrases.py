"""passphrases sealed at rest

slice_vaps.passphrase (a vAP's WPA passphrase in clear, kept until its agent has it) becomes
slice_vaps.sealed_passphrase: AES-256-GCM under the key in the passphrase key file (at_rest.py), bound to its vAP
id, padded to one length, widened to hold that (String(255)). Rows still holding one are sealed here, so the
migration needs the key: run it through `wislice db-upgrade` or `wislice serve`, which open the key file. The
downgrade opens them back into the clear column (the older code reads it), with the same key, and forgets the
recorded key id.

operations.request_hash of create_slice and add_vap operations (a plain SHA-256 of a body holding the passphrase)
is dropped: new hashes are keyed (service.request_hash), and a replay of such an operation is recognised by its
Idempotency-Key alone. The downgrade leaves them empty (the older code then answers a replay of one with 409).

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import context, op

from wislice_orchestrator.at_rest import KEY_ID_SETTING, KeyFileError, settings_table

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def _vaps(column: str) -> sa.TableClause:
    return sa.table('slice_vaps', sa.column('id', sa.Integer()), sa.column('vap_id', sa.String()),
                    sa.column(column, sa.String()))


def _stored(column: str) -> list[tuple[int, str, str]]:
    table = _vaps(column)
    rows = op.get_bind().execute(sa.select(table.c.id, table.c.vap_id, table.c[column])
                                 .where(table.c[column].is_not(None)))
    return [tuple(r) for r in rows]


def _box(count: int, doing: str):  # noqa: ANN202 - at_rest.PassphraseBox
    box = context.config.attributes.get('passphrase_box')
    if box is None and count:
        raise KeyFileError(f"migration 0006 {doing} {count} stored passphrase(s) and needs the passphrase key: run "
                           "it through `wislice db-upgrade` (it opens WISLICE_PASSPHRASE_KEY_FILE)")
    return box


def _write(column: str, values: list[tuple[int, str]]) -> None:
    table = _vaps(column)
    for row_id, value in values:
        op.execute(table.update().where(table.c.id == row_id).values({column: value}))


def upgrade() -> None:
    clear = _stored('passphrase')
    box = _box(len(clear), 'seals')
    with op.batch_alter_table('slice_vaps') as batch:
        batch.alter_column('passphrase', new_column_name='sealed_passphrase', type_=sa.String(length=255),
                           existing_type=sa.String(length=64), existing_nullable=True)
    _write('sealed_passphrase', [(row_id, box.seal(plain, vap_id)) for row_id, vap_id, plain in clear])
    # Their request hashes were plain SHA-256 of bodies holding the passphrase (a guess could be tested against
    # them offline); new ones are keyed. A replay of such a create is recognised by its Idempotency-Key alone.
    operations = sa.table('operations', sa.column('kind', sa.String()), sa.column('request_hash', sa.String()))
    op.execute(operations.update().where(operations.c.kind.in_(('create_slice', 'add_vap')))
               .values(request_hash=None))


def downgrade() -> None:
    sealed = _stored('sealed_passphrase')
    box = _box(len(sealed), 'opens')
    clear = [(row_id, box.open(value, vap_id)) for row_id, vap_id, value in sealed]
    op.execute(sa.table('slice_vaps', sa.column('sealed_passphrase', sa.String())).update()
               .values(sealed_passphrase=None))
    with op.batch_alter_table('slice_vaps') as batch:
        batch.alter_column('sealed_passphrase', new_column_name='passphrase', type_=sa.String(length=64),
                           existing_type=sa.String(length=255), existing_nullable=True)
    _write('passphrase', clear)
    op.execute(settings_table.delete().where(settings_table.c.key == KEY_ID_SETTING))
