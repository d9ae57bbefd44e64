import { expect, it } from 'vitest';
import { setupEmulator } from '../../emulator/vitest.js';

const ctx = setupEmulator({ seed: 3 });

async function agentId(): Promise<string> {
  const res = await ctx.api.POST('/v1/agents', { body: { name: 'Ada', identity: { businessName: 'Acme' } } });
  if (res.status !== 201) throw new Error(res.error.detail);
  return res.data.id;
}

it('a typed call whose Accept asks for no JSON, without parseAs, throws before sending: its answer type would be untrue (D-1111)', async () => {
  const id = await agentId();
  const path = { params: { path: { agentId: id } }, body: { message: 'Hello' } } as const;
  await expect(ctx.api.POST('/v1/agents/{agentId}/chat', { ...path, headers: { accept: 'text/event-stream' } })).rejects.toThrow(
    /Accept asks for "text\/event-stream": say how to read that answer with parseAs/,
  );
  await expect(ctx.api.POST('/v1/agents/{agentId}/chat', { ...path, headers: { Accept: 'text/html' }, parseAs: 'json' })).rejects.toThrow(TypeError);
  // Nothing was sent: no message credit spent.
  const usage = await ctx.api.GET('/v1/usage');
  expect(usage.ok && usage.data.messages.used).toBe(0);

  // Asked with parseAs, the stream comes as a stream; a JSON Accept (or any) as the typed JSON.
  const streamed = await ctx.api.POST('/v1/agents/{agentId}/chat', { ...path, headers: { accept: 'text/event-stream' }, parseAs: 'stream' });
  expect(streamed.status).toBe(200);
  expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(await new Response(streamed.body as ReadableStream).text()).toContain('event: done');
  for (const accept of ['application/json', '*/*', 'application/problem+json, application/json;q=0.9']) {
    const answered = await ctx.api.POST('/v1/agents/{agentId}/chat', { ...path, headers: { accept } });
    expect(answered.status === 200 && typeof answered.data.reply, accept).toBe('string');
  }
});
