import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '@/app/app';
import { rescueServerPage } from '@/app/server-page-rescue';
import '@/index.css';

void rescueServerPage()
  .catch(() => false)
  .then((reloading) => {
    if (reloading) return;
    createRoot(document.getElementById('root')!).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  });
