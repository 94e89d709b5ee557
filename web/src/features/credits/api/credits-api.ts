import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { CheckoutResult, CreditPackage, CreditPurchase } from '@/types/api';
import { creditCount } from '@/lib/format';

export const getPurchases = () => api<CreditPurchase[]>('/api/credits/purchases');
export const getPackages = () => api<CreditPackage[]>('/api/credit-packages');
export const startCheckout = (packageId: string) =>
  api<CheckoutResult>('/api/payments/checkout', { method: 'POST', json: { package_id: packageId } });

export const usePurchases = () => useQuery({ queryKey: ['credit-purchases'], queryFn: getPurchases });
export const usePackages = () => useQuery({ queryKey: ['credit-packages'], queryFn: getPackages });

export function purchaseName(p: CreditPurchase): string {
  return p.credit_packages?.name ?? p.package?.name ?? creditCount(p.credits_purchased);
}
