// The baseline: a bare Hono app on the same @hono/node-server, answering what /v1/me answers.
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const app = new Hono();
app.get('/v1/me', (c) => c.json({ workspaceId: 'ws_bare', scopes: ['landings:read'] }));
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`bare ready at http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
