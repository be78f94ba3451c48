import type { ChannelPlugin } from '../../../core/channels/channel-plugin';

/**
 * Web and widget channels ride the public chat lane (spec 4.5): visitors chat through the agent's slug, their
 * anonymousId is their identity, operators reach them through the presence stream. No inbound webhook.
 */
export function publicLaneChannel(type: 'web' | 'widget', description: string): ChannelPlugin {
  return {
    kind: 'channel',
    type,
    description,
    optionsSchema: {
      type: 'object',
      properties: {
        allowedOrigins: { type: 'array', items: { type: 'string', maxLength: 300 }, maxItems: 50, default: [] },
        ...(type === 'widget' ? { theme: { type: 'object', additionalProperties: { type: 'string', maxLength: 100 } } } : {}),
      },
    },
    capabilities: [],
    identityChannel: type,
    receive: () => ({ kind: 'unsupported' }),
    parse: () => [],
  };
}
