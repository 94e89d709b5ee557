import { create } from 'zustand';

export type ToastVariant = 'default' | 'destructive';

export interface ToastInput {
  title: string;
  description?: string;
  variant?: ToastVariant;
  /** Milliseconds before the toast closes itself (SPEC: 3-10 s). */
  duration?: number;
  action?: { label: string; onClick: () => void };
}

export interface ToastItem extends ToastInput {
  id: number;
}

interface ToastState {
  toasts: ToastItem[];
  add: (toast: ToastInput) => number;
  dismiss: (id: number) => void;
  clear: () => void;
}

const MAX_VISIBLE = 4;
export const DEFAULT_TOAST_MS = 5000;
let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

export const useToastStore = create<ToastState>()((set, get) => ({
  toasts: [],
  add: (input) => {
    const id = nextId++;
    set((s) => ({ toasts: [...s.toasts, { ...input, id }].slice(-MAX_VISIBLE) }));
    const duration = input.duration ?? DEFAULT_TOAST_MS;
    if (duration > 0) timers.set(id, setTimeout(() => get().dismiss(id), duration));
    return id;
  },
  dismiss: (id) => {
    const t = timers.get(id);
    if (t) clearTimeout(t);
    timers.delete(id);
    set((s) => ({ toasts: s.toasts.filter((x) => x.id !== id) }));
  },
  clear: () => {
    timers.forEach((t) => clearTimeout(t));
    timers.clear();
    set({ toasts: [] });
  },
}));

/** Shows a toast (title + description; `variant: 'destructive'` for errors). */
export function toast(input: ToastInput): number {
  return useToastStore.getState().add(input);
}
