import { createHmac } from 'node:crypto';

/**
 * WhatsApp Cloud API webhook bodies as Meta POSTs them (one `messages` change), and their `X-Hub-Signature-256`.
 * Shared by the channel tests and the webhook bench so they send the same shape.
 */
export function whatsappNotification(input: { sender: { waId: string; name: string }; messages: unknown[]; statuses?: unknown[] }): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000000', phone_number_id: '1234567890' },
              contacts: [{ wa_id: input.sender.waId, profile: { name: input.sender.name } }],
              messages: input.messages,
              ...(input.statuses ? { statuses: input.statuses } : {}),
            },
          },
        ],
      },
    ],
  });
}

export const whatsappText = (from: string, id: string, body: string) => ({
  from,
  id,
  timestamp: '1700000000',
  type: 'text',
  text: { body },
});

export const whatsappSignature = (raw: string, appSecret: string) => `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
