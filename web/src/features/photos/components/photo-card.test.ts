import { makePhoto } from '@/test/fixtures';
import { confidencePercent, needsReview, resultDetails, shownJob } from '@/lib/photos';
import { isDownloadable, quoted } from './photo-card';

describe("download rules (the free rework and reprocess are the server's can_rework / can_reprocess)", () => {
  it('keeps the first result downloadable during a free rework', () => {
    const recent = makePhoto();
    const asked = { ...recent, jobs: [...recent.jobs, { ...recent.jobs[0], id: 'j2', job_type: 'background_removal_human' as const, status: 'pending_human' as const }] };
    expect(isDownloadable(asked)).toBe(true);
  });

  it('hides downloads once retention removed the files', () => {
    expect(isDownloadable(makePhoto({ files_deleted_at: new Date().toISOString() }))).toBe(false);
    expect(isDownloadable(makePhoto({ status: 'processing', processed_path: null }, { status: 'processing' }))).toBe(false);
  });
});

describe("'Da verificare' (processing_details.needs_review)", () => {
  it('flags a completed AI result the pipeline is unsure of, until a rework is asked', () => {
    const details = { seo_filename: 'banana.jpg', confidence: 0.384, needs_review: true };
    const flagged = makePhoto({}, { processing_details: details });
    expect(needsReview(flagged)).toBe(true);
    expect(confidencePercent(flagged.jobs[0])).toBe(38);
    expect(needsReview(makePhoto({}, { processing_details: { ...details, needs_review: false } }))).toBe(false);
    expect(needsReview(makePhoto({}, { processing_details: { seo_filename: 'x.jpg' } }))).toBe(false);
    expect(needsReview(makePhoto({}, { status: 'processing', processing_details: details }))).toBe(false);
    const asked = { ...flagged, jobs: [...flagged.jobs, { ...flagged.jobs[0], id: 'j2', job_type: 'background_removal_human' as const, status: 'pending_human' as const, processing_details: null, created_at: new Date().toISOString() }] };
    expect(needsReview(asked)).toBe(false);
    expect(resultDetails(asked)?.seo_filename).toBe('banana.jpg'); // the rework keeps the AI result's name
    expect(confidencePercent({ processing_details: null })).toBeNull();
  });
});

describe('the badge describes the photo the seller has (shown_job_id)', () => {
  it('after a rejected free rework the badge job is the earlier delivery; the newest job otherwise', () => {
    const delivered = makePhoto();
    const rejected = { ...delivered.jobs[0], id: 'j2', job_type: 'background_removal_human' as const, status: 'rejected_human' as const, processing_details: null, created_at: new Date().toISOString() };
    const photo = { ...delivered, shown_job_id: delivered.jobs[0].id, jobs: [...delivered.jobs, rejected] };
    expect(shownJob(photo)?.status).toBe('completed');
    expect(shownJob({ ...photo, shown_job_id: null })?.id).toBe('j2'); // an older server: the newest
    expect(quoted('Già corretta.')).toBe('«Già corretta»');
  });
});
