import { Badge } from '@/components/ui/badge';
import { deadlineInfo, priorityTone } from '../lib/jobs';
import type { DesignerJob } from '../api/types';

export function PriorityBadge({ priority }: { priority: number }) {
  return <Badge tone={priorityTone(priority)}>Priorità {priority}</Badge>;
}

/** "Scadenza: tra 2 giorni" with an 'In ritardo' marker when late. */
export function Deadline({ job }: { job: Pick<DesignerJob, 'deadline' | 'overdue' | 'status'> }) {
  const info = deadlineInfo(job);
  if (!info) return null;
  return (
    <span className="job-deadline">
      {job.deadline ? (
        <>
          Scadenza: <time dateTime={job.deadline}>{info.relative}</time>
        </>
      ) : null}
      {info.overdue ? <Badge tone="danger">In ritardo</Badge> : null}
    </span>
  );
}
