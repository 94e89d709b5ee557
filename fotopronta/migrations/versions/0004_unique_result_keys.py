"""Repair photos whose results were stored under a shared SEO-named key (issue 11, item 1)

Until this revision the retouch activity stored a result at ``{user_id}/{seo name}.{jpg,webp}``. The
SEO name is cut at 90 characters, so with a long brand and category the job's short id fell off and
two photos of the same seller got the same ``processed_path``: the second result overwrote the first
file, and deleting either photo deleted the other's file. New results are stored at
``{user_id}/{job_id}.{jpg,webp}`` (``fotopronta.storage.result_key``); the SEO name is only the
download name.

What this migration can and cannot repair:

- **Rows with a unique SEO-named key** are correct as they are: the file is theirs and nothing writes
  SEO-named keys any more, so they keep their key (the download name comes from
  ``processing_details.seo_filename`` as for new rows). No file is moved.
- **Rows sharing a key** (same ``processed_path`` or ``processed_webp_path``, files not yet removed by
  retention): only one result file survives, the last one written. The retouch activity stores the
  file immediately before the workflow completes the job, so the photo whose delivering job
  completed **last** keeps the key; its file is (almost always) its own. Keys are per seller
  (``{user_id}/…``), so even a wrong guess shows a seller one of their own photos, never someone
  else's.
- **The other rows of each group lost their result for good**: the file was overwritten and cannot be
  recovered from anywhere (the original upload is still there, so the photo can be processed again).
  For each of them: the photo goes back to ``uploaded`` with no result paths, the delivering job
  becomes ``failed`` with an Italian message saying so, the credits it cost are given back as a ledger
  ``grant`` (idempotency key ``grant:repair-0004:{job_id}``, valid 365 days, ``credits_remaining``
  moved with it so balance = ledger sum), a warning notification tells the seller, and the order's
  ``processed_photos`` is recounted.
- A shared file that a deletion already removed cannot be brought back either: the remaining row keeps
  its key and the download answers 410 'Il file non è più disponibile…'.

Downgrade does nothing: the repaired rows were wrong before, and the refunds stay booked.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LOST_MESSAGE = (
    "Il risultato di questa foto è andato perso per un errore del server: i crediti sono stati "
    "restituiti. Carica di nuovo la foto per elaborarla."
)
NOTIFICATION_TITLE = "Risultato non disponibile"


def upgrade() -> None:
    conn = op.get_bind()
    # every photo whose result key another live photo also uses (grouped by key: hash aggregates, no
    # pairwise join), with the job that delivered it
    rows = conn.execute(
        sa.text(
            """
            WITH live AS (
                SELECT id, user_id, order_id, original_filename, processed_path, processed_webp_path
                FROM photos
                WHERE files_deleted_at IS NULL AND processed_path IS NOT NULL
            ),
            keys AS (
                SELECT id, processed_path AS k FROM live
                UNION ALL
                SELECT id, processed_webp_path FROM live WHERE processed_webp_path IS NOT NULL
            ),
            dup AS (SELECT k FROM keys GROUP BY k HAVING COUNT(DISTINCT id) > 1),
            shared AS (
                SELECT keys.id, MIN(keys.k) AS group_key
                FROM keys JOIN dup ON dup.k = keys.k
                GROUP BY keys.id
            )
            SELECT live.id AS photo_id, live.user_id, live.order_id, live.original_filename,
                   shared.group_key, job.id AS job_id, job.completed_at
            FROM shared
            JOIN live ON live.id = shared.id
            LEFT JOIN LATERAL (
                SELECT j.id, j.completed_at FROM photo_processing_jobs j
                WHERE j.photo_id = live.id AND j.status IN ('completed', 'completed_human')
                ORDER BY j.completed_at DESC NULLS LAST LIMIT 1
            ) job ON TRUE
            ORDER BY shared.group_key, job.completed_at DESC NULLS LAST, live.id
            """
        )
    ).mappings()
    keeper_of: dict[str, object] = {}
    losers = []
    for row in rows:
        if row["group_key"] not in keeper_of:
            keeper_of[row["group_key"]] = row["photo_id"]  # completed last: keeps the file
        else:
            losers.append(row)

    orders = set()
    for row in losers:
        conn.execute(
            sa.text(
                "UPDATE photos SET processed_path = NULL, processed_webp_path = NULL, status = 'uploaded' "
                "WHERE id = :photo_id"
            ),
            {"photo_id": row["photo_id"]},
        )
        if row["order_id"] is not None:
            orders.add(row["order_id"])
        if row["job_id"] is None:
            continue
        conn.execute(
            sa.text(
                "UPDATE photo_processing_jobs SET status = 'failed', error_message = :message "
                "WHERE id = :job_id"
            ),
            {"job_id": row["job_id"], "message": LOST_MESSAGE},
        )
        # what the job cost: reserve −n, charge 0, release +n per run, so −(sum) is what was kept
        paid = conn.execute(
            sa.text("SELECT COALESCE(-SUM(amount), 0) FROM credit_ledger WHERE job_id = :job_id"),
            {"job_id": row["job_id"]},
        ).scalar_one()
        if paid > 0:
            inserted = conn.execute(
                sa.text(
                    """
                    INSERT INTO credit_ledger (user_id, kind, amount, idempotency_key, job_id, expires_at, note)
                    VALUES (:user_id, 'grant', :amount, :key, :job_id, now() + interval '365 days',
                            'rimborso: risultato perso (chiave di archivio condivisa)')
                    ON CONFLICT (idempotency_key) DO NOTHING
                    RETURNING id
                    """
                ),
                {
                    "user_id": row["user_id"],
                    "amount": int(paid),
                    "key": f"grant:repair-0004:{row['job_id']}",
                    "job_id": row["job_id"],
                },
            ).first()
            if inserted is not None:
                conn.execute(
                    sa.text(
                        "UPDATE profiles SET credits_remaining = credits_remaining + :amount, "
                        "credits_expiry_date = GREATEST(COALESCE(credits_expiry_date, now()), "
                        "now() + interval '365 days') WHERE id = :user_id"
                    ),
                    {"user_id": row["user_id"], "amount": int(paid)},
                )
        conn.execute(
            sa.text(
                "INSERT INTO notifications (id, user_id, title, message, type, read, related_job_id) "
                "VALUES (gen_random_uuid(), :user_id, :title, :message, 'warning', false, :job_id)"
            ),
            {
                "user_id": row["user_id"],
                "title": NOTIFICATION_TITLE,
                "message": f"{row['original_filename']}: {LOST_MESSAGE}",
                "job_id": row["job_id"],
            },
        )
    for order_id in orders:
        conn.execute(
            sa.text(
                "UPDATE orders SET processed_photos = (SELECT count(*) FROM photos "
                "WHERE order_id = :order_id AND status = 'processed') WHERE id = :order_id"
            ),
            {"order_id": order_id},
        )


def downgrade() -> None:
    pass
