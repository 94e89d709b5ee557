import { makePhoto } from '@/test/fixtures';
import { confidencePercent, needsReview, resultDetails } from '@/lib/photos';
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

describe("'Da verificare' (processing_details.needs_review)", () => {
  it('flags a completed AI result the pipeline is unsure of, until a rework is asked', () => {
    const details = { seo_filename: 'banana.jpg', confidence: 0.384, needs_review: true };
    const flagged = makePhoto({}, { processing_details: details });
    expect(needsReview(flagged)).toBe(true);
    expect(confidencePercent(flagged.jobs[0])).toBe(38);
    expect(needsReview(makePhoto({}, { processing_details: { ...details, needs_review: false } }))).toBe(false);
    expect(needsReview(makePhoto({}, { processing_details: { seo_filename: 'x.jpg' } }))).toBe(false);
    expect(needsReview(makePhoto({}, { status: 'processing', processing_details: details }))).toBe(false);
    const asked = { ...flagged, jobs: [...flagged.jobs, { ...flagged.jobs[0], id: 'j2', job_type: 'background_removal_human', status: 'pending_human', processing_details: null, created_at: new Date().toISOString() }] };
    expect(needsReview(asked)).toBe(false);
    expect(resultDetails(asked)?.seo_filename).toBe('banana.jpg'); // the rework keeps the AI result's name
    expect(confidencePercent({ processing_details: null })).toBeNull();
  });
});
