import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { ApiKey, ApiKeyCreated, ApiKeyInput } from '@/types/api';

export const API_KEYS_QUERY_KEY = ['api-keys'] as const;

/** `GET /api/api-keys`: the caller's keys, newest first (revoked ones too). */
export const useApiKeys = () => useQuery({ queryKey: API_KEYS_QUERY_KEY, queryFn: () => api<ApiKey[]>('/api/api-keys') });

/** `POST /api/api-keys`: a new key; the answer holds its secret, this once only. */
export const createApiKey = (input: ApiKeyInput) => api<ApiKeyCreated>('/api/api-keys', { method: 'POST', json: input });

/** `DELETE /api/api-keys/{id}`: revoked at once (the next request with it is refused). */
export const revokeApiKey = (id: string) => api<void>(`/api/api-keys/${id}`, { method: 'DELETE' });
