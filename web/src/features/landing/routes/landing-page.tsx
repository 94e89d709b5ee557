import { Menu, X } from 'lucide-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { Spinner } from '@/components/ui/spinner';
import { CONTACT_EMAIL, LANDING_PACKAGES, PRODUCT_NAME } from '@/config/constants';
import { formatList, useConfig } from '@/lib/app-config';
import { TrialDialog } from '../components/trial-dialog';
import { BENEFITS, COMPARISON, FAQ, NAV_LINKS, SECTORS, STEPS, TESTIMONIALS, ZERO_RISK } from '../lib/content';

/** Where every call to action leads: the sign-up tab, in its free-trial wording. */
const SIGNUP_PATH = '/auth?from=free-trial';

const BeforeAfterSlider = lazy(() => import('../components/before-after-slider'));

const TITLE = `${PRODUCT_NAME} – Foto prodotto professionali per e-commerce da €0,20 a foto`;
const DESCRIPTION =
  'Sfondo bianco, luce e colori ottimizzati, ombra naturale e nomi file SEO per le foto dei tuoi prodotti. Inizia con 15 foto gratis, da €0,20 a foto.';

/** Sets the page's own title, meta description and canonical link (SPEC §2). */
function usePageMeta() {
  useEffect(() => {
    const previousTitle = document.title;
    document.title = TITLE;
    let meta = document.querySelector<HTMLMetaElement>('meta[name="description"]');
    if (!meta) {
      meta = document.createElement('meta');
      meta.name = 'description';
      document.head.appendChild(meta);
    }
    meta.content = DESCRIPTION;
    let canonical = document.querySelector<HTMLLinkElement>('link[rel="canonical"]');
    const created = !canonical;
    if (!canonical) {
      canonical = document.createElement('link');
      canonical.rel = 'canonical';
      document.head.appendChild(canonical);
    }
    canonical.href = `${window.location.origin}/`;
    return () => {
      document.title = previousTitle;
      if (created) canonical?.remove();
    };
  }, []);
}

function Header() {
  const [open, setOpen] = useState(false);
  return (
    <header className="landing-header">
      <div className="container landing-nav">
        <a href="#home" className="brand">
          <img src="/favicon.svg" alt="" width={28} height={28} /> {PRODUCT_NAME}
        </a>
        <button
          type="button"
          className="btn btn-ghost nav-toggle"
          aria-expanded={open}
          aria-controls="landing-menu"
          aria-label={open ? 'Chiudi menu' : 'Apri menu'}
          onClick={() => setOpen((o) => !o)}
        >
          {open ? <X aria-hidden="true" size={22} /> : <Menu aria-hidden="true" size={22} />}
        </button>
        <nav id="landing-menu" aria-label="Navigazione principale" className={`landing-menu ${open ? 'open' : ''}`}>
          <ul>
            {NAV_LINKS.map((l) => (
              <li key={l.href}>
                <a href={l.href} onClick={() => setOpen(false)}>
                  {l.label}
                </a>
              </li>
            ))}
          </ul>
          <div className="landing-menu-cta">
            <Link to="/auth" className="btn btn-ghost">
              Accedi
            </Link>
            <Link to={SIGNUP_PATH} className="btn btn-primary">
              Inizia Gratis
            </Link>
          </div>
        </nav>
      </div>
    </header>
  );
}

export function LandingPage() {
  // the sign-up credits, from the server ('…' while they load)
  const config = useConfig().data;
  const freeCredits = config?.free_credits ?? '…';
  const formats = formatList(config?.accepted_formats);
  usePageMeta();
  const [trialOpen, setTrialOpen] = useState(false);
  return (
    <div className="landing">
      <Header />
      <main>
        <section id="home" className="hero">
          <div className="container hero-inner">
            <p className="eyebrow">Fotoritocco per e-commerce</p>
            <h1>Foto prodotto professionali, pronte in pochi minuti</h1>
            <p className="hero-lead">
              Sfondo bianco, luce e colori ottimizzati, ombra naturale e nomi file SEO. Carichi le foto, noi le rendiamo pronte
              per vendere. Da €0,20 a foto, senza abbonamento.
            </p>
            <div className="hero-cta">
              <Link to={SIGNUP_PATH} className="btn btn-primary btn-lg">
                Inizia ora - {freeCredits} foto gratis
              </Link>
              <a href="#before-after" className="btn btn-outline btn-lg">
                Guarda il prima e dopo
              </a>
            </div>
            <p className="muted hero-note">Nessuna carta di credito richiesta · {freeCredits} crediti gratuiti alla registrazione</p>
            <p className="hero-trial">
              Preferisci vedere prima il risultato sulle tue foto?{' '}
              <button type="button" className="link-button" onClick={() => setTrialOpen(true)}>
                Prova gratuita: 3 foto
              </button>
            </p>
          </div>
        </section>

        <section id="before-after" className="section" aria-labelledby="ba-title">
          <div className="container narrow">
            <h2 id="ba-title" className="section-title">
              Prima e dopo
            </h2>
            <p className="section-lead">Dallo scatto fatto in magazzino alla foto pronta per il tuo negozio online.</p>
            <Suspense fallback={<Spinner />}>
              <BeforeAfterSlider />
            </Suspense>
          </div>
        </section>

        <section className="section alt" aria-labelledby="benefits-title">
          <div className="container">
            <h2 id="benefits-title" className="section-title">
              Tutto quello che serve alle tue foto
            </h2>
            <div className="grid-4">
              {BENEFITS.map((b) => (
                <article key={b.title} className="card feature-card">
                  <span className="feature-icon" aria-hidden="true">
                    <b.icon size={22} />
                  </span>
                  <h3>{b.title}</h3>
                  <p className="muted">{b.text}</p>
                </article>
              ))}
            </div>
          </div>
        </section>

        <section className="section" aria-labelledby="sectors-title">
          <div className="container">
            <h2 id="sectors-title" className="section-title">
              Per ogni settore
            </h2>
            <ul className="sector-grid">
              {SECTORS.map((s) => (
                <li key={s} className="sector-tile">
                  {s}
                </li>
              ))}
            </ul>
          </div>
        </section>

        <section className="section alt" aria-labelledby="compare-title">
          <div className="container">
            <h2 id="compare-title" className="section-title">
              Il vecchio modo e il modo {PRODUCT_NAME}
            </h2>
            <div className="grid-2">
              <article className="card compare-card">
                <h3>Il vecchio modo</h3>
                <ul className="check-list negative">
                  {COMPARISON.oldWay.map((x) => (
                    <li key={x}>{x}</li>
                  ))}
                </ul>
              </article>
              <article className="card compare-card highlight">
                <h3>Con {PRODUCT_NAME}</h3>
                <ul className="check-list">
                  {COMPARISON.ourWay.map((x) => (
                    <li key={x}>{x}</li>
                  ))}
                </ul>
              </article>
            </div>
            <div className="mid-cta">
              <p>Caricamenti fino a 10 immagini alla volta, e fino a 900 foto in 24-48 ore lavorative.</p>
              <Link to={SIGNUP_PATH} className="btn btn-primary">
                Prova gratis con {freeCredits} foto
              </Link>
            </div>
          </div>
        </section>

        <section id="pricing" className="section" aria-labelledby="pricing-title">
          <div className="container">
            <h2 id="pricing-title" className="section-title">
              Pacchetti
            </h2>
            <p className="section-lead">Crediti validi 365 giorni. Nessun abbonamento, nessun costo nascosto. Da €0,20 a foto.</p>
            <div className="grid-3 pricing">
              {LANDING_PACKAGES.map((p) => (
                <article key={p.name} className={`card price-card ${p.popular ? 'popular' : ''}`} aria-labelledby={`pkg-${p.name}`}>
                  {p.popular ? <span className="badge badge-brand popular-badge">Più richiesto</span> : null}
                  <h3 id={`pkg-${p.name}`}>{p.name}</h3>
                  <p className="muted">{p.description}</p>
                  <p className="price">
                    {p.price} <span className="muted">/ {p.photos} foto</span>
                  </p>
                  <p className="per-photo">{p.perPhoto} a foto</p>
                  <ul className="check-list">
                    {p.features.map((f) => (
                      <li key={f}>{f}</li>
                    ))}
                  </ul>
                  <Link to={SIGNUP_PATH} className={`btn btn-block ${p.popular ? 'btn-primary' : 'btn-outline'}`}>
                    Scegli {p.name}
                  </Link>
                </article>
              ))}
            </div>
          </div>
        </section>

        <section id="how-it-works" className="section alt" aria-labelledby="how-title">
          <div className="container">
            <h2 id="how-title" className="section-title">
              Come funziona
            </h2>
            <ol className="steps">
              {STEPS.map((s, i) => (
                <li key={s.title} className="card step">
                  <span className="step-number" aria-hidden="true">
                    {i + 1}
                  </span>
                  <h3>{s.title}</h3>
                  <p className="muted">{s.text}</p>
                </li>
              ))}
            </ol>
          </div>
        </section>

        <section className="section" aria-labelledby="testimonials-title">
          <div className="container">
            <h2 id="testimonials-title" className="section-title">
              Come lo usano i venditori
            </h2>
            <div className="grid-3">
              {TESTIMONIALS.map((t) => (
                <figure key={t.author} className="card testimonial">
                  <blockquote>“{t.quote}”</blockquote>
                  <figcaption>
                    <strong>{t.author}</strong> · <span className="muted">{t.role}</span>
                  </figcaption>
                </figure>
              ))}
            </div>
          </div>
        </section>

        <section className="section alt" aria-labelledby="risk-title">
          <div className="container">
            <h2 id="risk-title" className="section-title">
              Zero rischi
            </h2>
            <div className="grid-3">
              {ZERO_RISK.map((z) => (
                <article key={z.title} className="card risk-card">
                  <h3>{z.title}</h3>
                  <p className="muted">{z.text}</p>
                </article>
              ))}
            </div>
          </div>
        </section>

        <section id="faq" className="section" aria-labelledby="faq-title">
          <div className="container narrow">
            <h2 id="faq-title" className="section-title">
              Domande frequenti
            </h2>
            <div className="faq">
              {FAQ.map((f) => (
                <details key={f.question} className="faq-item">
                  <summary>{f.question}</summary>
                  <p>{f.answer.replace('{formati}', formats)}</p>
                </details>
              ))}
            </div>
          </div>
        </section>

        <section className="section final-cta" aria-labelledby="final-title">
          <div className="container narrow center-text">
            <h2 id="final-title">Pronto a migliorare le foto dei tuoi prodotti?</h2>
            <p>Registrati e ricevi {freeCredits} crediti gratuiti. Da €0,20 a foto dopo la prova.</p>
            <Link to={SIGNUP_PATH} className="btn btn-lg btn-light">
              Trasforma {freeCredits} foto gratis
            </Link>
          </div>
        </section>
      </main>
      <footer className="landing-footer">
        <div className="container footer-inner">
          <div>
            <p className="brand">{PRODUCT_NAME}</p>
            <p className="muted">Foto prodotto professionali per e-commerce, da €0,20 a foto.</p>
            <p>
              <a href={`mailto:${CONTACT_EMAIL}`}>{CONTACT_EMAIL}</a>
            </p>
          </div>
          <nav aria-label="Link legali">
            <ul className="footer-links">
              <li>
                <Link to="/privacy-policy">Privacy Policy</Link>
              </li>
              <li>
                <Link to="/terms-of-service">Termini di servizio</Link>
              </li>
              <li>
                <Link to="/cookie-policy">Cookie Policy</Link>
              </li>
            </ul>
          </nav>
        </div>
        <p className="container muted copyright">© {new Date().getFullYear()} {PRODUCT_NAME}</p>
      </footer>
      {trialOpen ? <TrialDialog onClose={() => setTrialOpen(false)} /> : null}
    </div>
  );
}
