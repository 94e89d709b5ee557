import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, STACK_DB_ENV } from './paths';

/**
 * Direct access to the e2e stack's database through the project's Python (as `tests/stack` does), for
 * what no screen can do: create confirmed accounts, write what another component would have written.
 */
function runPython(args: string[]): string {
  const stack = process.env[STACK_DB_ENV];
  if (!stack) throw new Error(`${STACK_DB_ENV} non impostata: la global setup non è stata eseguita`);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOTOPRONTA_')));
  const result = spawnSync(path.join(REPO_ROOT, '.venv', 'bin', 'python'), args, {
    cwd: REPO_ROOT,
    env: { ...inherited, FOTOPRONTA_ENVIRONMENT: 'development', ...(JSON.parse(stack) as Record<string, string>) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`python ${args.join(' ')}: ${result.stderr || result.error}`);
  return result.stdout;
}

/** A confirmed, active account (`fotopronta create-user`). */
export function createUser(email: string, password: string, role: 'client' | 'graphic' | 'admin', firstName = 'Giulia'): void {
  runPython(['-m', 'fotopronta.cli', 'create-user', '--email', email, '--password', password, '--role', role, '--first-name', firstName]);
}

const SET_REVIEW = `
import sys, uuid
from fotopronta.db import session_scope
from fotopronta.models import PhotoProcessingJob
with session_scope() as session:
    job = session.get_one(PhotoProcessingJob, uuid.UUID(sys.argv[1]))
    assert job.status == "completed", job.status
    job.processing_details = {**(job.processing_details or {}), "confidence": float(sys.argv[2]), "needs_review": sys.argv[3] == "1"}
`;

/** What the retouch pipeline writes on a doubtful result: `confidence` and `needs_review` on a completed job. */
export function setReview(jobId: string, confidence: number, needsReview: boolean): void {
  runPython(['-c', SET_REVIEW, jobId, String(confidence), needsReview ? '1' : '0']);
}

const ADD_PHOTOS = `
import sys
from datetime import UTC, datetime, timedelta
from sqlalchemy import select
from fotopronta.db import session_scope
from fotopronta.models import Photo, PhotoProcessingJob, Profile
with session_scope() as session:
    user_id = session.execute(select(Profile.id).where(Profile.email == sys.argv[1])).scalar_one()
    base = datetime.now(UTC) - timedelta(hours=1)
    for i in range(int(sys.argv[2])):
        at = base + timedelta(seconds=i)
        photo = Photo(user_id=user_id, original_filename=f"foto-{i:03d}.jpg", file_size=1000, file_format="image/jpeg",
                      upload_path=f"{user_id}/e2e-{i}.jpg", status="processed", created_at=at)
        session.add(photo)
        session.flush()
        session.add(PhotoProcessingJob(photo_id=photo.id, user_id=user_id, job_type="background_removal",
                                       status="completed", created_at=at, completed_at=at))
`;

/** `n` delivered photos (rows only, no files) named `foto-000.jpg`…, oldest first, for the list's pages. */
export function addPhotos(email: string, n: number): void {
  runPython(['-c', ADD_PHOTOS, email, String(n)]);
}

const ADD_PHOTO_ROWS = `
import json, sys
from datetime import UTC, datetime, timedelta
from sqlalchemy import select
from fotopronta.db import session_scope
from fotopronta.models import Photo, PhotoProcessingJob, Profile
with session_scope() as session:
    user_id = session.execute(select(Profile.id).where(Profile.email == sys.argv[1])).scalar_one()
    # a day ahead: the photo-jobs worker's reconciler leaves rows this young alone (no workflow to start)
    base = datetime.now(UTC) + timedelta(days=1)
    for i, row in enumerate(json.loads(sys.argv[2])):
        at = base + timedelta(seconds=row["second"])
        photo = Photo(user_id=user_id, original_filename=row["name"], file_size=1000, file_format="image/jpeg",
                      upload_path=f"{user_id}/e2e-rows-{i}.jpg", status=row["photo_status"], created_at=at)
        session.add(photo)
        session.flush()
        session.add(PhotoProcessingJob(photo_id=photo.id, user_id=user_id, job_type="background_removal",
                                       status=row["job_status"], created_at=at,
                                       completed_at=at if row["job_status"] == "completed" else None))
`;

/** One photo row per entry (no files): its name, the photo's and its job's status, and its creation
 * time in seconds after a moment a day ahead (larger = newer). */
export function addPhotoRows(email: string, rows: { name: string; photo_status: string; job_status: string; second: number }[]): void {
  runPython(['-c', ADD_PHOTO_ROWS, email, JSON.stringify(rows)]);
}

const AGE_CHECKOUTS = `
import sys
from datetime import timedelta
from sqlalchemy import select, update
from fotopronta.db import session_scope
from fotopronta.models import CreditPurchase, Profile
with session_scope() as session:
    user_id = session.execute(select(Profile.id).where(Profile.email == sys.argv[1])).scalar_one()
    session.execute(
        update(CreditPurchase)
        .where(CreditPurchase.user_id == user_id, CreditPurchase.status == "pending")
        .values(created_at=CreditPurchase.created_at - timedelta(minutes=int(sys.argv[2])))
    )
`;

/** Moves the account's pending checkouts `minutes` into the past: a checkout left open and forgotten. */
export function ageCheckouts(email: string, minutes: number): void {
  runPython(['-c', AGE_CHECKOUTS, email, String(minutes)]);
}
