import type { SortOrder } from '../api/types';

/** Current sort of a server-sorted table. */
export interface SortState {
  sort: string;
  order: SortOrder;
}

/**
 * A sortable column header: `aria-sort` on the `<th>` (ascending/descending/none) and a button
 * that sorts by this column, or reverses the order when it is already the sort column.
 */
export function SortableHeader({ label, column, state, onSort, className }: { label: string; column: string; state: SortState; onSort: (next: SortState) => void; className?: string }) {
  const active = state.sort === column;
  const ariaSort = active ? (state.order === 'asc' ? 'ascending' : 'descending') : 'none';
  const next: SortState = active ? { sort: column, order: state.order === 'asc' ? 'desc' : 'asc' } : { sort: column, order: 'asc' };
  return (
    <th scope="col" aria-sort={ariaSort} className={className}>
      <button type="button" className="sort-button" onClick={() => onSort(next)}>
        {label}
        <span aria-hidden="true" className={`sort-arrow ${active ? 'sort-arrow-active' : ''}`}>
          {active ? (state.order === 'asc' ? '↑' : '↓') : '↕'}
        </span>
      </button>
    </th>
  );
}

/** 'Pagina 2 di 5 · 87 risultati' with 'Precedente' and 'Successiva'. */
export function Pagination({ label, page, size, total, onPage }: { label: string; page: number; size: number; total: number; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / size));
  return (
    <nav className="pagination" aria-label={label}>
      <button type="button" className="btn btn-outline btn-sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Precedente
      </button>
      <span aria-live="polite">
        Pagina {Math.min(page, pages)} di {pages} · {total} {total === 1 ? 'risultato' : 'risultati'}
      </span>
      <button type="button" className="btn btn-outline btn-sm" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Successiva
      </button>
    </nav>
  );
}
