import { create } from 'zustand';

export type ToastVariant = 'default' | 'destructive';

export interface ToastInput {
  title: string;
  description?: string;
  variant?: ToastVariant;
  /** Milliseconds the toast stays on screen once shown (SPEC: 3-10 s); 0 keeps it until dismissed. */
  duration?: number;
  action?: { label: string; onClick: () => void };
}

export interface ToastItem extends ToastInput {
  id: number;
}

interface ToastState {
  /** The queue: the first one is on screen, the others wait their turn. */
  toasts: ToastItem[];
  add: (toast: ToastInput) => number;
  dismiss: (id: number) => void;
  clear: () => void;
}

/** Toasts kept waiting behind the visible one; older waiting ones are dropped beyond it. */
const MAX_WAITING = 3;
export const DEFAULT_TOAST_MS = 5000;
/** Once another toast waits, the visible one stays at most this long more (ms), so the queue moves. */
export const HURRY_TOAST_MS = 1500;
let nextId = 1;
let timer: { id: number; handle: ReturnType<typeof setTimeout>; endsAt: number } | null = null;

function stopTimer() {
  if (timer) clearTimeout(timer.handle);
  timer = null;
}

/** Starts the closing timer of the visible toast (the queue's head) if it has none yet; shortens it
 * to `HURRY_TOAST_MS` when others wait. A toast with `duration: 0` waits for its close button. */
function schedule(get: () => ToastState) {
  const [head, ...waiting] = get().toasts;
  if (!head) return stopTimer();
  const duration = head.duration ?? DEFAULT_TOAST_MS;
  if (duration <= 0) return undefined;
  const wanted = Math.min(duration, waiting.length > 0 ? HURRY_TOAST_MS : duration);
  const now = Date.now();
  if (timer?.id === head.id && timer.endsAt <= now + wanted) return undefined;
  stopTimer();
  timer = { id: head.id, endsAt: now + wanted, handle: setTimeout(() => get().dismiss(head.id), wanted) };
  return undefined;
}

/**
 * The toasts, shown one at a time (the `Toaster` renders the head of the queue): a new toast waits
 * until the visible one closes, which then closes sooner; an identical waiting toast is not queued twice.
 */
export const useToastStore = create<ToastState>()((set, get) => ({
  toasts: [],
  add: (input) => {
    const same = get().toasts.find((t) => t.title === input.title && t.description === input.description && t.variant === input.variant);
    if (same) return same.id;
    const id = nextId++;
    set((s) => {
      const [head, ...waiting] = [...s.toasts, { ...input, id }];
      return { toasts: [head, ...waiting.slice(-MAX_WAITING)] };
    });
    schedule(get);
    return id;
  },
  dismiss: (id) => {
    if (timer?.id === id) stopTimer();
    set((s) => ({ toasts: s.toasts.filter((x) => x.id !== id) }));
    schedule(get);
  },
  clear: () => {
    stopTimer();
    set({ toasts: [] });
  },
}));

/** Shows a toast (title + description; `variant: 'destructive'` for errors), after any visible one. */
export function toast(input: ToastInput): number {
  return useToastStore.getState().add(input);
}
