import { useEffect, useState } from 'react';
import { INSTALL_DISMISSED_KEY, INSTALL_PROMPT_DELAY_MS, PRODUCT_NAME } from '@/config/constants';
import { toast } from '@/components/ui/toast';

/** The browser's install-prompt event (not in the DOM typings). */
interface BeforeInstallPromptEvent extends Event {
  prompt: () => Promise<void>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed'; platform: string }>;
}

function dismissedBefore(): boolean {
  try {
    return localStorage.getItem(INSTALL_DISMISSED_KEY) === 'true';
  } catch {
    return false;
  }
}

/**
 * Bottom banner offering to install the PWA (SPEC §2 Banners, §4 Install prompt): shown 3 s after
 * load once the browser reports the app installable, unless dismissed before.
 */
export function InstallBanner() {
  const [promptEvent, setPromptEvent] = useState<BeforeInstallPromptEvent | null>(null);
  const [delayPassed, setDelayPassed] = useState(false);
  const [dismissed, setDismissed] = useState(dismissedBefore);

  useEffect(() => {
    const onPrompt = (e: Event) => {
      e.preventDefault();
      setPromptEvent(e as BeforeInstallPromptEvent);
    };
    const onInstalled = () => setPromptEvent(null);
    window.addEventListener('beforeinstallprompt', onPrompt);
    window.addEventListener('appinstalled', onInstalled);
    const timer = setTimeout(() => setDelayPassed(true), INSTALL_PROMPT_DELAY_MS);
    return () => {
      window.removeEventListener('beforeinstallprompt', onPrompt);
      window.removeEventListener('appinstalled', onInstalled);
      clearTimeout(timer);
    };
  }, []);

  if (!promptEvent || !delayPassed || dismissed) return null;

  const close = () => {
    try {
      localStorage.setItem(INSTALL_DISMISSED_KEY, 'true');
    } catch {
      /* storage unavailable: only hide for this visit */
    }
    setDismissed(true);
  };

  const install = async () => {
    await promptEvent.prompt();
    const { outcome } = await promptEvent.userChoice;
    if (outcome === 'accepted') {
      toast({ title: 'App installata!', description: `${PRODUCT_NAME} è ora disponibile sulla tua home screen.` });
      setPromptEvent(null);
    } else {
      toast({ title: 'Installazione annullata', description: "Puoi installare l'app in qualsiasi momento.", variant: 'destructive' });
    }
  };

  return (
    <aside className="install-banner" aria-label={`Installa ${PRODUCT_NAME}`}>
      <div>
        <p className="install-title">Installa {PRODUCT_NAME}</p>
        <p className="install-text">Aggiungi l'app alla tua home screen per un accesso più veloce</p>
      </div>
      <div className="install-actions">
        <button type="button" className="btn btn-primary btn-sm" onClick={install}>
          Installa
        </button>
        <button type="button" className="btn btn-ghost btn-sm" aria-label="Chiudi" onClick={close}>
          ×
        </button>
      </div>
    </aside>
  );
}
