import { useRef, useState, type KeyboardEvent } from 'react';
import { AdminJobsTab, NEEDS_REVIEW_FILTER } from '../components/admin-jobs-tab';
import { AdminOverviewTab } from '../components/admin-overview-tab';
import { AdminTeamTab } from '../components/admin-team-tab';
import { AdminUsersTab } from '../components/admin-users-tab';

const TABS = [
  { id: 'overview', label: 'Panoramica' },
  { id: 'users', label: 'Gestione utenti' },
  { id: 'team', label: 'Team grafici' },
  { id: 'jobs', label: 'Lavori' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/** /admin-dashboard (SPEC §2, §6 Admin): Panoramica, Gestione utenti, Team grafici, Lavori. */
export function AdminDashboardPage() {
  const [tab, setTab] = useState<TabId>('overview');
  // the jobs tab's first status filter, when another tab sends the admin there
  const [jobsFilter, setJobsFilter] = useState('');
  const showNeedsReview = () => {
    setJobsFilter(NEEDS_REVIEW_FILTER);
    setTab('jobs');
    refs.current.jobs?.focus();
  };
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});

  const onKeyDown = (e: KeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === tab);
    let next: number | null = null;
    if (e.key === 'ArrowRight') next = (i + 1) % TABS.length;
    else if (e.key === 'ArrowLeft') next = (i - 1 + TABS.length) % TABS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = TABS.length - 1;
    if (next === null) return;
    e.preventDefault();
    setTab(TABS[next].id);
    refs.current[TABS[next].id]?.focus();
  };

  return (
    <div className="page">
      <header className="page-header">
        <h1>Pannello di amministrazione</h1>
        <p className="muted">Utenti, crediti e lavori del team grafici.</p>
      </header>
      <div role="tablist" aria-label="Sezioni amministrazione" className="tabs tabs-4 admin-tabs" onKeyDown={onKeyDown}>
        {TABS.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              refs.current[t.id] = el;
            }}
            type="button"
            role="tab"
            id={`admin-tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`admin-panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            className={`tab ${tab === t.id ? 'tab-active' : ''}`}
            onClick={() => setTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`admin-panel-${tab}`} aria-labelledby={`admin-tab-${tab}`}>
        {tab === 'overview' ? (
          <AdminOverviewTab onShowNeedsReview={showNeedsReview} />
        ) : tab === 'users' ? (
          <AdminUsersTab />
        ) : tab === 'team' ? (
          <AdminTeamTab />
        ) : (
          <AdminJobsTab key={jobsFilter} initialStatus={jobsFilter} />
        )}
      </div>
    </div>
  );
}
