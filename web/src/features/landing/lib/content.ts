import { Lightbulb, Search, Square, Zap } from 'lucide-react';

/** Static landing-page copy (SPEC §1, §2 Landing page, DESIGN decisions). */

export const NAV_LINKS = [
  { href: '#home', label: 'Home' },
  { href: '#before-after', label: 'Prima/Dopo' },
  { href: '#pricing', label: 'Pacchetti' },
  { href: '#how-it-works', label: 'Come Funziona' },
  { href: '#faq', label: 'FAQ' },
] as const;

export const BENEFITS = [
  { icon: Square, title: 'Sfondo bianco perfetto', text: 'Prodotto scontornato su bianco puro, pronto per marketplace e negozio online.' },
  { icon: Lightbulb, title: 'Luce e colori ottimizzati', text: 'Esposizione, contrasto e colori corretti, con un’ombra naturale e piccoli difetti rimossi.' },
  { icon: Zap, title: 'File leggeri in WebP', text: 'Immagini più leggere per pagine veloci, in WebP o JPG di alta qualità.' },
  { icon: Search, title: 'Nomi file SEO', text: 'Ogni foto viene rinominata con marca, categoria e colore per farti trovare su Google.' },
] as const;

export const SECTORS = ['Abbigliamento', 'Home Decor', 'Elettronica', 'Gioielli', 'Cosmetics', 'Sport'] as const;

export const COMPARISON = {
  oldWay: ['Ore perse con programmi di fotoritocco', 'Fotografo e studio costosi', 'Risultati diversi da foto a foto', 'File pesanti che rallentano il sito'],
  ourWay: ['Carichi le foto e ci pensiamo noi', 'Da €0,20 a foto, senza abbonamento', 'Stile uniforme su tutto il catalogo', 'File ottimizzati e nomi SEO inclusi'],
} as const;

export const STEPS = [
  { title: 'Carica', text: 'Trascina le tue foto nella dashboard: fino a 10 immagini per caricamento, quante volte vuoi.' },
  { title: 'Elaborazione automatica', text: 'La nostra AI scontorna, corregge luce e colori e rinomina i file.' },
  { title: 'Scarica', text: 'Scarica le foto pronte in JPG o WebP, con i nomi già ottimizzati.' },
] as const;

/** Example uses, by kind of shop. Not quotes: we publish testimonials only from real customers who agreed. */
export const TESTIMONIALS = [
  { quote: 'Schede prodotto con sfondo bianco uniforme e ombra naturale, pronte per Amazon e Zalando.', author: 'Abbigliamento', role: 'Esempio d’uso' },
  { quote: 'Foto dal magazzino caricate la sera, online il giorno dopo con nomi file SEO.', author: 'Articoli sportivi', role: 'Esempio d’uso' },
  { quote: 'Riflessi e piccole imperfezioni corretti a mano dal team grafico, 3 crediti a foto.', author: 'Gioielli artigianali', role: 'Esempio d’uso' },
] as const;

export const ZERO_RISK = [
  { title: 'Rielaborazione gratuita', text: 'Se un risultato non ti convince, entro 7 giorni il nostro team grafico lo rifà senza costi.' },
  { title: 'Nessun abbonamento', text: 'Paghi solo i crediti che usi. Nessun costo nascosto.' },
  { title: 'Le tue foto restano tue', text: 'Le immagini non vengono condivise né riutilizzate.' },
] as const;

export const FAQ = [
  {
    question: 'Quali formati posso caricare?',
    // `{formati}`: the server's accepted formats (GET /api/config), filled in by the landing page
    answer: 'Accettiamo {formati}. Puoi caricare fino a 10 immagini per volta, senza limiti al numero di caricamenti.',
  },
  {
    question: 'In che formato ricevo le foto?',
    answer: 'Ogni foto è disponibile in JPG di alta qualità e in WebP, più leggero per il web.',
  },
  {
    question: 'Quanto tempo serve?',
    answer: 'L’elaborazione AI richiede pochi minuti. Per grandi volumi, fino a 900 foto, la consegna è in 24-48 ore lavorative.',
  },
  {
    question: 'Come funzionano i crediti?',
    answer: 'L’elaborazione AI costa 1 credito a foto, quella manuale dei nostri grafici 3 crediti. I crediti valgono 365 giorni dall’acquisto.',
  },
  {
    question: 'E se il risultato non mi piace?',
    answer: 'Se un risultato non è soddisfacente puoi chiedere una rielaborazione gratuita entro 7 giorni.',
  },
] as const;
