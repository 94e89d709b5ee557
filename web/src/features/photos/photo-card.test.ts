import { makePhoto } from '@/test/fixtures';
import { canRequestRework, isDownloadable } from './photo-card';

const DAY = 24 * 60 * 60 * 1000;

describe('free rework and download rules', () => {
  it('offers the free rework once, within 7 days of an AI delivery', () => {
    const now = Date.now();
    const recent = makePhoto({}, { completed_at: new Date(now - 2 * DAY).toISOString() });
    expect(canRequestRework(recent, now)).toBe(true);
    expect(canRequestRework(makePhoto({}, { completed_at: new Date(now - 8 * DAY).toISOString() }), now)).toBe(false);
    expect(canRequestRework(makePhoto({}, { status: 'failed', completed_at: null }), now)).toBe(false);
    const asked = { ...recent, jobs: [...recent.jobs, { ...recent.jobs[0], id: 'j2', job_type: 'background_removal_human', status: 'pending_human' }] };
    expect(canRequestRework(asked, now)).toBe(false);
    expect(isDownloadable(asked)).toBe(true); // the first result stays downloadable during the rework
  });

  it('hides downloads once retention removed the files', () => {
    expect(isDownloadable(makePhoto({ files_deleted_at: new Date().toISOString() }))).toBe(false);
    expect(isDownloadable(makePhoto({ status: 'processing', processed_path: null }, { status: 'processing' }))).toBe(false);
  });
});
