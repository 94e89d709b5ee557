"""The activity that lets a seller's waiting jobs go on once a job of theirs gave credits back
(task queue ``photo-jobs``)."""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session, sessionmaker
from temporalio import activity

from activities.contracts import ResumeWaitingInput
from activities.resume import resume_waiting_jobs


class CreditActivities:
    """Holds the session factory; the Temporal client is the worker's (``activity.client()``)."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    @activity.defn(name="resume_waiting_jobs")
    async def resume_waiting_jobs(self, inp: ResumeWaitingInput) -> int:
        """Resume ``inp.user_id``'s jobs in ``waiting_for_credits``, oldest upload first, through
        :func:`activities.resume.resume_waiting_jobs` (the function purchases and admin grants use).
        Asynchronous: it awaits one ``resume`` update per waiting job on the worker's event loop; the
        database query runs in a thread.

        Returns:
            How many jobs now hold their credits.
        """
        with self.sessions() as session:
            return await resume_waiting_jobs(activity.client(), session, uuid.UUID(inp.user_id))
