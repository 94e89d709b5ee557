import { Lock } from 'lucide-react';
import { useNavigate } from 'react-router-dom';
import { homePath, useMe } from '@/lib/auth';

export type AccessDeniedVariant = 'graphics' | 'admin' | 'seller';

const WORDING: Record<AccessDeniedVariant, { lead: string; detail: string }> = {
  graphics: {
    lead: 'Non hai i permessi necessari per accedere alla Dashboard del Team Grafici',
    detail: 'Questa sezione è riservata esclusivamente ai membri del team grafici autorizzati.',
  },
  admin: {
    lead: 'Non hai i permessi di amministratore necessari per accedere a questa sezione',
    detail: 'Questa sezione è riservata esclusivamente agli amministratori del sistema.',
  },
  seller: {
    lead: 'Questa pagina è riservata ai clienti',
    detail: 'Il tuo account fa parte del team grafico: i tuoi lavori sono nella Bacheca lavori.',
  },
};

/** The 'Accesso Negato' card shown by role guards (SPEC §2; targets per DESIGN decisions); 'Torna alla
 * Dashboard' goes to the caller's own home (a designer's is /graphics-dashboard). */
export function AccessDenied({ variant }: { variant: AccessDeniedVariant }) {
  const navigate = useNavigate();
  const me = useMe();
  const { lead, detail } = WORDING[variant];
  return (
    <div className="full-page-center">
      <section className="card access-denied" aria-labelledby="access-denied-title">
        <div className="access-denied-icon" aria-hidden="true">
          <Lock size={28} />
        </div>
        <h1 id="access-denied-title">Accesso Negato</h1>
        <p>{lead}</p>
        <p className="muted">{detail}</p>
        <div className="button-row">
          <button type="button" className="btn btn-primary" onClick={() => navigate(homePath(me.data))}>
            Torna alla Dashboard
          </button>
          <button type="button" className="btn btn-outline" onClick={() => navigate('/')}>
            Torna alla Home
          </button>
        </div>
      </section>
    </div>
  );
}
