/** Webhooks: the receivers, each one's delivery log, and the changes to them. */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, queryString } from './http-client';
import type { Webhook, WebhookBody, WebhookDelivery } from './server-types';

const KEY = ['dvr', 'webhooks'] as const;

export const webhookQueries = {
  list: () =>
    queryOptions({
      queryKey: KEY,
      queryFn: ({ signal }) => api<Webhook[]>('/dvr/webhooks', { signal }),
      // A receiver's health changes with each attempt; not asked again while refused (a token prompt every 15 s).
      refetchInterval: (query) => (query.state.status === 'error' ? false : 15_000),
    }),
  deliveries: (id: number) =>
    queryOptions({
      queryKey: [...KEY, id, 'deliveries'],
      queryFn: ({ signal }) =>
        api<WebhookDelivery[]>(`/dvr/webhooks/${id}/deliveries${queryString({ limit: 20 })}`, { signal }),
    }),
};

export function useWebhookChanges() {
  const client = useQueryClient();
  const settled = () => client.invalidateQueries({ queryKey: KEY });
  return {
    save: useMutation({
      mutationFn: ({ id, body }: { id?: number; body: WebhookBody }) =>
        id === undefined
          ? api<Webhook>('/dvr/webhooks', { method: 'POST', body })
          : api<Webhook>(`/dvr/webhooks/${id}`, { method: 'PUT', body }),
      onSettled: settled,
    }),
    remove: useMutation({
      mutationFn: (id: number) => api<void>(`/dvr/webhooks/${id}`, { method: 'DELETE' }),
      onSettled: settled,
    }),
  };
}
