import { CONTACT_EMAIL, PRODUCT_NAME } from '@/config/constants';
import { LegalLayout } from '../components/legal-layout';

const UPDATED = '1 gennaio 2025';
const Mail = () => <a href={`mailto:${CONTACT_EMAIL}`}>{CONTACT_EMAIL}</a>;

export function PrivacyPolicyPage() {
  return (
    <LegalLayout title="Privacy Policy" updated={UPDATED}>
      <h2>Titolare del trattamento</h2>
      <p>
        Il titolare del trattamento dei dati è {PRODUCT_NAME}. Per qualsiasi richiesta puoi scriverci a <Mail />.
      </p>
      <h2>Dati che raccogliamo</h2>
      <ul>
        <li>Dati dell’account: nome, cognome, indirizzo email.</li>
        <li>Le foto che carichi e le versioni elaborate.</li>
        <li>Dati di acquisto dei crediti (gestiti dal fornitore dei pagamenti; non conserviamo i dati della carta).</li>
      </ul>
      <h2>Come usiamo i dati</h2>
      <p>Usiamo i dati solo per fornire il servizio: elaborare le foto, gestire i crediti e comunicare con te. Le tue immagini non vengono condivise né riutilizzate.</p>
      <h2>Conservazione</h2>
      <p>Le foto vengono eliminate dai nostri server entro 30 giorni dalla consegna. I dati dell’account restano finché l’account è attivo.</p>
      <h2>I tuoi diritti</h2>
      <p>
        Puoi chiedere accesso, rettifica o cancellazione dei tuoi dati scrivendo a <Mail />.
      </p>
    </LegalLayout>
  );
}

export function TermsOfServicePage() {
  return (
    <LegalLayout title="Termini di servizio" updated={UPDATED}>
      <h2>Il servizio</h2>
      <p>{PRODUCT_NAME} elabora le foto dei prodotti per la vendita online, tramite intelligenza artificiale o tramite il nostro team di grafici.</p>
      <h2>Crediti e prezzi</h2>
      <ul>
        <li>L’elaborazione AI costa 1 credito per foto; l’elaborazione manuale costa 3 crediti per foto.</li>
        <li>I crediti sono validi 365 giorni dall’acquisto e non sono rimborsabili.</li>
        <li>Nessun abbonamento e nessun costo nascosto.</li>
      </ul>
      <h2>Consegna</h2>
      <p>La consegna standard avviene in 24-48 ore lavorative per un massimo di 900 foto.</p>
      <h2>Rimborsi</h2>
      <p>I rimborsi sono possibili solo per problemi tecnici non risolti, segnalati entro 7 giorni.</p>
      <h2>Conservazione delle foto</h2>
      <p>Le foto vengono eliminate dai nostri server entro 30 giorni dalla consegna.</p>
      <h2>Modifiche ai termini</h2>
      <p>Le modifiche ai termini entrano in vigore 30 giorni dopo la comunicazione via email.</p>
      <h2>Legge applicabile</h2>
      <p>
        I presenti termini sono regolati dalla legge italiana; per ogni controversia è competente il Foro di Milano. Contatti: <Mail />.
      </p>
    </LegalLayout>
  );
}

export function CookiePolicyPage() {
  return (
    <LegalLayout title="Cookie Policy" updated={UPDATED}>
      <h2>Cosa sono i cookie</h2>
      <p>I cookie sono piccoli file salvati dal browser che permettono al sito di funzionare e di ricordare le tue preferenze.</p>
      <h2>Cookie che usiamo</h2>
      <ul>
        <li>
          <strong>Essenziali</strong>: necessari per l’accesso e la sicurezza dell’account.
        </li>
        <li>
          <strong>Funzionali</strong>: ricordano le tue preferenze, ad esempio lo stato della barra laterale.
        </li>
        <li>
          <strong>Analitici</strong>: ci aiutano a capire come viene usato il sito, in forma aggregata.
        </li>
      </ul>
      <h2>Terze parti</h2>
      <ul>
        <li>Il fornitore dei pagamenti, per l’acquisto dei crediti.</li>
        <li>Il fornitore del backend e dell’autenticazione.</li>
        <li>Il fornitore dell’hosting.</li>
      </ul>
      <h2>Contatti</h2>
      <p>
        Per domande sui cookie scrivi a <Mail />.
      </p>
    </LegalLayout>
  );
}
