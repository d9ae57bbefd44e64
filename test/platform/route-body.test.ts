import { describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';

const emulator = await fileEmulator({ seed: 44 });
const ws = await workspace(emulator);

/** A request whose body must not be asked for: node-server builds a whole Request over the socket when it is (D-1216). */
function bodyUnasked(url: string, init: RequestInit): Request {
  const request = new Request(url, init);
  Object.defineProperty(request, 'body', {
    get() {
      throw new Error('the body of a GET was asked for');
    },
  });
  return request;
}

describe('a route that takes no body (D-1165, D-1216)', () => {
  it('answers a GET without asking the request for a body', async () => {
    const res = await emulator.fetch(bodyUnasked('http://localhost/v1/me', { headers: { authorization: `Bearer ${ws.key}` } }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { workspaceId: string }).workspaceId).toBe(ws.workspaceId);
  });

  it('still reads the body sent to a POST that takes none', async () => {
    const res = await emulator.fetch(
      new Request('http://localhost/_emulator/queue/drain', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: unknown }).errors).toEqual([{ field: 'x', reason: 'unknown field' }]);
  });
});
