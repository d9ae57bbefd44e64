import { createEmulator } from 'svc-emulator';

const emulator = await createEmulator({ seed: 1 });        // empty, in memory, frozen clock
const { apiKey } = await emulator.createWorkspace();        // isolated workspace + key
const res = await emulator.fetch(new Request('http://localhost/v1/agents', {
  method: 'POST',
  headers: { authorization: `Bearer ${apiKey.secret}`, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Ada', identity: { businessName: 'Acme' } }),
}));
const agent = (await res.json()) as { name: string; createdAt: string };
console.log(res.status, agent.name, agent.createdAt);       // 201 Ada 2026-01-01T00:00:00.000Z
await emulator.clock.advance(60_000);                       // emulated time moves only when told (a key's rate-limit window too)
console.log(emulator.clock.get().now);                      // 2026-01-01T00:01:00.000Z
await emulator.close();
