import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { WebhookDelivery, WebhookDeliveryPage, WebhookEndpoint, WebhookEndpointCreated, WebhookEndpointInput } from '@/types/api';

export const WEBHOOKS_QUERY_KEY = ['webhook-endpoints'] as const;

/** `GET /api/webhook-endpoints`: the seller's endpoints, newest first. */
export const useWebhookEndpoints = () =>
  useQuery({ queryKey: WEBHOOKS_QUERY_KEY, queryFn: () => api<WebhookEndpoint[]>('/api/webhook-endpoints') });

/** `GET /api/webhook-endpoints/{id}/deliveries`: the endpoint's log (refreshed every 5 s while open). */
export const useWebhookDeliveries = (endpointId: string) =>
  useQuery({
    queryKey: [...WEBHOOKS_QUERY_KEY, endpointId, 'deliveries'],
    queryFn: () => api<WebhookDeliveryPage>(`/api/webhook-endpoints/${endpointId}/deliveries?limit=20`),
    refetchInterval: 5000,
  });

/** `POST /api/webhook-endpoints`: a new endpoint; the answer holds its secret, this once only. */
export const createWebhookEndpoint = (input: WebhookEndpointInput) =>
  api<WebhookEndpointCreated>('/api/webhook-endpoints', { method: 'POST', json: input });

/** `DELETE /api/webhook-endpoints/{id}`. */
export const deleteWebhookEndpoint = (id: string) => api<void>(`/api/webhook-endpoints/${id}`, { method: 'DELETE' });

/** `POST /api/webhook-endpoints/{id}/rotate-secret`: a new secret; the old one signs beside it for 24 h. */
export const rotateWebhookSecret = (id: string) =>
  api<WebhookEndpointCreated>(`/api/webhook-endpoints/${id}/rotate-secret`, { method: 'POST' });

/** `POST /api/webhook-deliveries/{id}/retry`: 'Reinvia'. */
export const retryWebhookDelivery = (id: string) => api<WebhookDelivery>(`/api/webhook-deliveries/${id}/retry`, { method: 'POST' });
