import { checkResultFile, deadlineInfo, jobAction, jobCounters, parseCreditAmount, priorityTone, sortJobs } from './jobs';
import { utc } from '@/test/utc';

describe('staff job helpers', () => {
  it('colours priorities: 4+ red, 2+ amber, else green (SPEC §9)', () => {
    expect([0, 1, 2, 3, 4, 7].map(priorityTone)).toEqual(['success', 'success', 'warning', 'warning', 'danger', 'danger']);
  });

  it('orders by priority, then age', () => {
    const jobs = [
      { id: 'a', priority: 1, created_at: utc(2026, 1, 1, 8) },
      { id: 'b', priority: 3, created_at: utc(2026, 1, 2, 8) },
      { id: 'c', priority: 3, created_at: utc(2026, 1, 1, 9) },
    ];
    expect(sortJobs(jobs).map((j) => j.id)).toEqual(['c', 'b', 'a']);
  });

  it('describes deadlines and marks late unfinished jobs', () => {
    const now = new Date(utc(2026, 3, 10, 12));
    expect(deadlineInfo({ deadline: utc(2026, 3, 12, 12), overdue: false, status: 'assigned_to_graphic' }, now)).toEqual({ relative: 'tra 2 giorni', overdue: false });
    expect(deadlineInfo({ deadline: utc(2026, 3, 10, 9), overdue: false, status: 'in_progress_human' }, now)?.overdue).toBe(true);
    expect(deadlineInfo({ deadline: null, overdue: true, status: 'pending_human' }, now)).toEqual({ relative: '', overdue: true });
    expect(deadlineInfo({ deadline: null, overdue: false, status: 'pending_human' }, now)).toBeNull();
  });

  it('counts total, in progress and assigned', () => {
    expect(jobCounters([{ status: 'pending_human' }, { status: 'in_progress_human' }, { status: 'assigned_to_graphic' }, { status: 'assigned_to_graphic' }])).toEqual({ total: 4, inProgress: 1, assigned: 2 });
  });

  it('offers each state its action, only on the designer’s own jobs', () => {
    expect(jobAction({ status: 'pending_human', assigned_to: null }, 'me')).toBe('assign');
    expect(jobAction({ status: 'assigned_to_graphic', assigned_to: 'me' }, 'me')).toBe('start');
    expect(jobAction({ status: 'in_progress_human', assigned_to: 'me' }, 'me')).toBe('work');
    expect(jobAction({ status: 'in_progress_human', assigned_to: 'other' }, 'me')).toBe('other');
  });

  it('checks result files exactly as SPEC §5', () => {
    for (const type of ['image/jpeg', 'image/jpg', 'image/png', 'image/webp']) expect(checkResultFile({ type, size: 10485760 })).toBeNull();
    expect(checkResultFile({ type: 'image/gif', size: 10 })).toEqual({ title: 'Formato non supportato', description: 'Sono ammessi solo file JPG, PNG e WebP' });
    expect(checkResultFile({ type: 'image/tiff', size: 10 })?.title).toBe('Formato non supportato');
    expect(checkResultFile({ type: 'image/png', size: 10485761 })).toEqual({ title: 'File troppo grande', description: 'Il file deve essere inferiore a 10MB' });
  });

  it('accepts only whole credit amounts of at least 1', () => {
    expect(parseCreditAmount('10')).toBe(10);
    expect(parseCreditAmount(' 1 ')).toBe(1);
    for (const bad of ['', '0', '-3', '1.5', 'abc', '1e3']) expect(parseCreditAmount(bad)).toBeNull();
  });
});
