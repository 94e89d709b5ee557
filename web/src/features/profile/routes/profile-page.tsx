import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { Badge } from '@/components/ui/badge';
import { Card, CardHeader } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { FullPageSpinner } from '@/components/ui/spinner';
import { toast } from '@/components/ui/toast';
import { errorMessage } from '@/lib/api-client';
import { logout, ME_QUERY_KEY, roleLabel, useMe } from '@/lib/auth';
import { formatDate } from '@/lib/format';
import { useOnChange } from '@/lib/use-on-change';
import { updateProfile } from '../api/profile-api';
import { ChangePasswordForm } from '../components/change-password-form';

export function ProfilePage() {
  const { data: profile, isPending } = useMe();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [brand, setBrand] = useState('');
  const [category, setCategory] = useState('');
  const [changingPassword, setChangingPassword] = useState(false);

  // the form follows the saved profile (loaded, or saved and read again)
  useOnChange([profile?.first_name, profile?.last_name, profile?.default_brand, profile?.default_category], () => {
    setFirstName(profile?.first_name ?? '');
    setLastName(profile?.last_name ?? '');
    setBrand(profile?.default_brand ?? '');
    setCategory(profile?.default_category ?? '');
  });

  const save = useMutation({
    mutationFn: updateProfile,
    onSuccess: () => {
      toast({ title: 'Profilo aggiornato' });
      return queryClient.invalidateQueries({ queryKey: ME_QUERY_KEY });
    },
    onError: (error) => toast({ title: 'Errore', description: errorMessage(error, 'Impossibile aggiornare il profilo'), variant: 'destructive' }),
  });

  if (isPending || !profile) return <FullPageSpinner />;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ first_name: firstName.trim(), last_name: lastName.trim(), default_brand: brand.trim(), default_category: category.trim() });
  };

  const signOut = async () => {
    await logout();
    queryClient.clear();
    toast({ title: 'Logout effettuato', description: 'A presto!' });
    navigate('/', { replace: true });
  };

  const dirty =
    firstName.trim() !== (profile.first_name ?? '') ||
    lastName.trim() !== (profile.last_name ?? '') ||
    brand.trim() !== (profile.default_brand ?? '') ||
    category.trim() !== (profile.default_category ?? '');

  return (
    <div className="page">
      <header className="page-header">
        <h1>Profilo</h1>
        <p className="muted">Gestisci i dati del tuo account.</p>
      </header>
      <div className="grid-2">
        <Card>
          <CardHeader title="Dati personali" />
          <dl className="info-list">
            <dt>Email</dt>
            <dd>{profile.email}</dd>
            <dt>Ruolo</dt>
            <dd>
              <Badge tone="brand">{roleLabel(profile.user_role)}</Badge>
            </dd>
            <dt>Crediti</dt>
            <dd>{profile.credits_remaining}</dd>
            <dt>Scadenza crediti</dt>
            <dd>{profile.credits_expiry_date ? formatDate(profile.credits_expiry_date) : 'Non impostata'}</dd>
            <dt>Membro dal</dt>
            <dd>{formatDate(profile.created_at)}</dd>
          </dl>
          <form className="form" onSubmit={onSubmit} aria-label="Modifica profilo">
            <div className="form-grid-2">
              <Field label="Nome" autoComplete="given-name" maxLength={60} value={firstName} onChange={(e) => setFirstName(e.target.value)} />
              <Field label="Cognome" autoComplete="family-name" maxLength={60} value={lastName} onChange={(e) => setLastName(e.target.value)} />
            </div>
            <p className="muted">Marca e categoria predefinite compilano il modulo di caricamento: compaiono nei nomi SEO delle foto.</p>
            <div className="form-grid-2">
              <Field label="Marca predefinita" maxLength={100} value={brand} onChange={(e) => setBrand(e.target.value)} />
              <Field label="Categoria prodotto predefinita" maxLength={100} value={category} onChange={(e) => setCategory(e.target.value)} />
            </div>
            <button type="submit" className="btn btn-primary" disabled={!dirty || save.isPending}>
              {save.isPending ? 'Salvataggio...' : 'Salva modifiche'}
            </button>
          </form>
        </Card>
        <Card>
          <CardHeader title="Informazioni account" />
          <dl className="info-list">
            <dt>Email</dt>
            <dd>{profile.email}</dd>
            <dt>Registrato il</dt>
            <dd>{formatDate(profile.created_at)}</dd>
            <dt>Stato</dt>
            <dd>
              <Badge tone={profile.is_active ? 'success' : 'danger'}>{profile.is_active ? 'Attivo' : 'Disattivato'}</Badge>
            </dd>
          </dl>
          <div className="stack">
            {changingPassword ? (
              <ChangePasswordForm onDone={() => setChangingPassword(false)} />
            ) : (
              <button type="button" className="btn btn-outline" onClick={() => setChangingPassword(true)}>
                Cambia password
              </button>
            )}
            <button type="button" className="btn btn-danger" onClick={signOut}>
              Disconnetti
            </button>
          </div>
        </Card>
      </div>
    </div>
  );
}
