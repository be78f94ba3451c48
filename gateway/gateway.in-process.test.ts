import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import { createIdentityHandoff } from '../core/identity/identity-handoff';
import { startFakeUpstream } from './testing/fake-upstream';
import { type GatewayFixture, startGatewayFixture, USER_ID } from './testing/gateway-fixture';

type NodeConstructor = (this: unknown, ...args: unknown[]) => void;

/** Request and response constructors of a backend's own kind, as an express app's are. */
function backendClasses() {
  function BackendRequest(this: unknown, socket: Socket) {
    (IncomingMessage as unknown as NodeConstructor).call(this, socket);
  }
  BackendRequest.prototype = Object.create(IncomingMessage.prototype) as object;
  function BackendResponse(this: unknown, req: IncomingMessage, options?: unknown) {
    (ServerResponse as unknown as NodeConstructor).call(this, req, options);
  }
  BackendResponse.prototype = Object.create(ServerResponse.prototype) as object;
  return {
    IncomingMessage: BackendRequest as unknown as typeof IncomingMessage,
    ServerResponse: BackendResponse as unknown as typeof ServerResponse,
  };
}

async function withInProcessBackend(withClasses: boolean, run: (fx: GatewayFixture, seen: unknown[]) => Promise<void>) {
  const loopback = await startFakeUpstream(); // for streamed bodies only; none is sent here
  const identities = createIdentityHandoff();
  const classes = backendClasses();
  const seen: unknown[] = [];
  const fx = await startGatewayFixture({
    upstream: {
      host: '127.0.0.1',
      port: loopback.port,
      inProcess: {
        identities,
        ...(withClasses ? { messageClasses: classes, headersOnEveryAnswer: new Set(['x-content-type-options']) } : {}),
        listener: (req, res) => {
          seen.push({
            backendKind: req instanceof classes.IncomingMessage && res instanceof classes.ServerResponse,
            userId: identities.take(req)?.identity.userId ?? null,
            // what the gateway set before handing the exchange over
            preset: { nosniff: res.getHeader('x-content-type-options') ?? null, referrer: res.getHeader('referrer-policy') ?? null },
          });
          res.setHeader('x-content-type-options', 'nosniff');
          res.end('ok');
        },
      },
    },
  });
  try {
    await run(fx, seen);
  } finally {
    await fx.close();
    await loopback.close();
  }
}

describe('gateway: a backend in the same process', () => {
  it("serves with the backend's request and response constructors, and leaves it the headers it always sets, when it names them", async () => {
    await withInProcessBackend(true, async (fx, seen) => {
      const res = await fetch(`http://127.0.0.1:${fx.port}/api/agents`, { headers: { authorization: `Bearer ${fx.accessToken}` } });
      expect(await res.text()).toBe('ok');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(seen).toEqual([{ backendKind: true, userId: USER_ID, preset: { nosniff: null, referrer: 'no-referrer' } }]);
    });
  });

  it("uses node's own when it does not", async () => {
    await withInProcessBackend(false, async (fx, seen) => {
      const res = await fetch(`http://127.0.0.1:${fx.port}/api/agents`, { headers: { authorization: `Bearer ${fx.accessToken}` } });
      expect(await res.text()).toBe('ok');
      expect(seen).toEqual([{ backendKind: false, userId: USER_ID, preset: { nosniff: 'nosniff', referrer: 'no-referrer' } }]);
    });
  });
});
