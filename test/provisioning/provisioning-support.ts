/** A platform with local fakes of YouTube and Instagram (recorded shapes) and an owner holding API keys, for the provisioning suites. */
import { type FakeProfile, instagramUpstream } from '../../plugins/sources/instagram/test-fixtures/profile';
import { type FakeChannel, youtubeUpstream } from '../../plugins/sources/youtube/test-fixtures/channel';
import { FakeHttpServer } from '../fakes/fake-http-server';
import { waitFor } from '../public-chat/public-support';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

export interface ProvisioningWorld {
  p: TestPlatform;
  youtube: FakeHttpServer;
  channels: FakeChannel[];
  instagram: FakeHttpServer;
  profiles: FakeProfile[];
  owner: TestUser;
  /** A key with agents:write. */
  key: string;
  /** The configuration the platform was started with (another replica starts with the same). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** `env.OUTBOUND_ALLOW` adds hosts to the fakes' (a webhook receiver); `env.YOUTUBE_MEDIA_URL` may be a path on the fake YouTube. */
export async function startProvisioningWorld(
  channels: FakeChannel[],
  env: Record<string, string> = {},
  profiles: FakeProfile[] = [],
): Promise<ProvisioningWorld> {
  const youtube = new FakeHttpServer((req) => {
    const url = new URL(req.path, 'http://fake');
    const reply = youtubeUpstream(channels, url.pathname, url.searchParams);
    return reply && { status: reply.status ?? 200, headers: { 'content-type': reply.type }, body: reply.body };
  });
  const instagram = new FakeHttpServer((req) => {
    const url = new URL(req.path, 'http://fake');
    const reply = instagramUpstream(profiles, url.pathname, url.searchParams);
    return reply && { status: reply.status ?? 200, headers: { 'content-type': reply.type }, body: reply.body };
  });
  const base = await youtube.start();
  const instagramBase = await instagram.start();
  const allow = [new URL(base).host, new URL(instagramBase).host, ...(env.OUTBOUND_ALLOW ? [env.OUTBOUND_ALLOW] : [])].join(',');
  const platformEnv: Record<string, string> = { YOUTUBE_BASE_URL: base, INSTAGRAM_BASE_URL: instagramBase, ...env, OUTBOUND_ALLOW: allow };
  // A path for YOUTUBE_MEDIA_URL means "on the fake YouTube", whose port is known only now.
  if (env.YOUTUBE_MEDIA_URL?.startsWith('/')) platformEnv.YOUTUBE_MEDIA_URL = `${base}${env.YOUTUBE_MEDIA_URL}`;
  const p = await startTestPlatform(platformEnv);
  const owner = await registerUser(p.http, { label: 'builder' });
  const key = await apiKey(p, owner, ['agents:write']);
  return {
    p,
    youtube,
    channels,
    instagram,
    profiles,
    owner,
    key,
    env: platformEnv,
    close: async () => {
      await p.close();
      await youtube.close();
      await instagram.close();
    },
  };
}

export async function apiKey(p: TestPlatform, owner: TestUser, scopes: string[]): Promise<string> {
  const r = await p.http.post('/api/api-keys', { name: `key ${scopes.join(' ')}`, scopes }, { token: owner.accessToken });
  if (r.status !== 201) throw new Error(`api key: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.key as string;
}

export const fromUrl = (w: ProvisioningWorld, body: unknown, headers: Record<string, string> = {}, token = w.key) =>
  w.p.http.post('/v1/agents:from-url', body, { token, headers });

export const poll = (w: ProvisioningWorld, buildId: string) => w.p.http.get(`/v1/agents/builds/${buildId}`, { token: w.key });

export const settled = (w: ProvisioningWorld, buildId: string, timeoutMs = 60_000) =>
  waitFor(
    async () => {
      const r = await poll(w, buildId);
      return r.body.status === 'ready' || r.body.status === 'failed' ? r.body : null;
    },
    `build ${buildId}`,
    timeoutMs,
  );
