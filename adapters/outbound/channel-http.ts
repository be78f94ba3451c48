import type { ChannelHttp } from '../../core/channels/channel-plugin';

/**
 * JSON POSTs of channel plugins to their configured upstream (the Graph API base URL is platform configuration,
 * not user input, so it is not behind the SSRF guard), bounded in time.
 */
export function channelHttp(timeoutMs = 10_000): ChannelHttp {
  return async (url, init) => {
    const res = await fetch(url, { method: 'POST', headers: init.headers, body: init.body, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, text: await res.text() };
  };
}
