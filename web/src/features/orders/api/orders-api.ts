import { useQuery } from '@tanstack/react-query';
import { api, apiFetch } from '@/lib/api-client';
import { saveBlob } from '@/lib/download';
import type { CreditPurchase, Order, OrderDetail } from '@/types/api';

/** A list endpoint that may not exist yet: answers [] instead of failing the page. */
async function optionalList<T>(path: string): Promise<T[]> {
  try {
    const data = await api<T[]>(path);
    return Array.isArray(data) ? data : [];
  } catch {
    return [];
  }
}

/** `GET /api/orders`: the caller's batch orders. */
export const useOrders = () => useQuery({ queryKey: ['orders'], queryFn: () => optionalList<Order>('/api/orders') });

/** `GET /api/credits/purchases`, shown beside the orders. */
export const useOptionalPurchases = () =>
  useQuery({ queryKey: ['credit-purchases-optional'], queryFn: () => optionalList<CreditPurchase>('/api/credits/purchases') });

/** `GET /api/orders/{id}`: one order with its photos, fetched once `enabled`. */
export const useOrderDetail = (orderId: string, enabled: boolean) =>
  useQuery({ queryKey: ['order', orderId], queryFn: () => api<OrderDetail>(`/api/orders/${orderId}`), enabled });

/** `GET /api/orders/{id}/download` → the ZIP of its completed photos, saved under the server's name. */
export async function downloadOrder(orderId: string): Promise<void> {
  const response = await apiFetch(`/api/orders/${orderId}/download`);
  const name = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1];
  saveBlob(await response.blob(), name ?? `ordine-${orderId.slice(0, 8)}.zip`);
}
