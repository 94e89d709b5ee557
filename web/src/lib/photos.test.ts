import { makeJob, makePhoto, TEST_CONFIG } from '@/test/fixtures';
import type { JobStatus, Photo, PhotoStatus } from '@/types/api';
import { filterGroup, hasActiveJobs, jobStatusLabel, latestJob, photoStats } from './photos';
import { utc } from '@/test/utc';

const job = (status: JobStatus, created_at = utc(2025, 1, 1, 10)) => makeJob({ id: `j-${status}-${created_at}`, status, created_at });

const photo = (status: PhotoStatus, jobs: ReturnType<typeof job>[] = []): Photo =>
  makePhoto({ id: `p-${Math.random()}`, original_filename: 'scarpa.jpg', file_size: 1000, status, created_at: utc(2025, 1, 1, 10), processed_path: null, jobs });

describe('job status badges (SPEC §4)', () => {
  it.each([
    [null, 'Non processata'],
    ['pending', 'In attesa'],
    ['processing', 'Processamento AI'],
    ['completed', 'Completata'],
    ['failed', 'Errore'],
    ['pending_human', 'In coda per grafici'],
    ['assigned_to_graphic', 'Assegnato a grafico'],
    ['in_progress_human', 'In lavorazione'],
    ['completed_human', 'Processata da grafico'],
    ['rejected_human', 'Rifiutata'],
    ['something_else', 'Sconosciuto'],
  ])('%s → %s', (status, label) => {
    expect(jobStatusLabel(status, TEST_CONFIG)).toBe(label);
  });

  it('groups statuses for the filter', () => {
    expect(filterGroup('completed_human', TEST_CONFIG)).toBe('completed');
    expect(filterGroup('in_progress_human', TEST_CONFIG)).toBe('processing');
    expect(filterGroup('rejected_human', TEST_CONFIG)).toBe('failed');
    expect(filterGroup('pending_human', TEST_CONFIG)).toBe('pending');
  });
});

describe('photo helpers', () => {
  it('shows the newest job', () => {
    const p = photo('processing', [job('failed', utc(2025, 1, 1, 10)), job('processing', utc(2025, 1, 2, 10))]);
    expect(latestJob(p)?.status).toBe('processing');
    expect(latestJob(photo('uploaded'))).toBeNull();
  });

  it('polls only while some job is unfinished', () => {
    expect(hasActiveJobs([photo('processed', [job('completed')]), photo('uploaded', [job('failed')])], TEST_CONFIG)).toBe(false);
    expect(hasActiveJobs([photo('processing', [job('processing')])], TEST_CONFIG)).toBe(true);
    expect(hasActiveJobs([photo('uploaded', [job('pending_human')])], TEST_CONFIG)).toBe(true);
    expect(hasActiveJobs(undefined, TEST_CONFIG)).toBe(false);
  });

  it('takes the dashboard counters from the server counts (zeros while loading)', () => {
    expect(photoStats({ total: 4, completed: 2, processing: 1, failed: 0, pending: 1, processed: 2, queued: 2, rejected: 0, designer_queue: 0 })).toEqual({
      total: 4,
      processed: 2,
      queued: 2,
    });
    expect(photoStats(undefined)).toEqual({ total: 0, processed: 0, queued: 0 });
  });
});
