export { toast, useToastStore } from './toast-store';
export type { ToastInput, ToastVariant } from './toast-store';
export { Toaster } from './toaster';
