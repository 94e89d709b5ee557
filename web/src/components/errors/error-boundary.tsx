import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  children: ReactNode;
  /** Where the boundary sits, for the log. */
  name: string;
  fallback?: ReactNode;
}

interface State {
  error: Error | null;
}

/** Catches render errors of one part of the app so the rest keeps working. */
export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`[${this.props.name}]`, error, info.componentStack);
  }

  render() {
    if (!this.state.error) return this.props.children;
    return (
      this.props.fallback ?? (
        <div role="alert" className="card error-fallback">
          <h2>Qualcosa è andato storto</h2>
          <p>Si è verificato un errore imprevisto. Riprova.</p>
          <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
            Ricarica la pagina
          </button>
        </div>
      )
    );
  }
}
