import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { CreditPurchase } from '@/types/api';

export interface CreditPackage {
  id: string;
  name: string;
  credits: number;
  price_cents: number;
  currency: string;
}

export const getPurchases = () => api<CreditPurchase[]>('/api/credits/purchases');
export const getPackages = () => api<CreditPackage[]>('/api/credit-packages');
export const startCheckout = (packageId: string) =>
  api<{ url?: string | null }>('/api/payments/checkout', { method: 'POST', json: { package_id: packageId } });

export interface VerifyResult {
  success: boolean;
  creditsAdded?: number;
  totalCredits?: number;
  error?: string | null;
}

/** `POST /api/payments/verify`: asks the provider whether a checkout session was paid. */
export const verifyPayment = (sessionId: string) =>
  api<VerifyResult>('/api/payments/verify', { method: 'POST', json: { session_id: sessionId } });

export const usePurchases = () => useQuery({ queryKey: ['credit-purchases'], queryFn: getPurchases });
export const usePackages = () => useQuery({ queryKey: ['credit-packages'], queryFn: getPackages });

export function purchaseName(p: CreditPurchase): string {
  return p.credit_packages?.name ?? p.package?.name ?? `${p.credits_purchased} crediti`;
}
