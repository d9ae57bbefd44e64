import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Context } from 'hono';
import type { ServerType } from '@hono/node-server';
import type { AppEnv } from '../src/platform/context.js';

/**
 * One line per request, Prism-style, once its answer has gone out (a stream when it
 * ends): `GET /v1/agents 200 1.8ms ws_... req_...`. The path is logged without its query
 * string, which may carry a signed URL's signature; `-` stands for no workspace (a
 * request no key admitted) and no request id.
 */
export class RequestLog {
  // Filled by the app's answer hook, read when node has sent the answer.
  readonly #answers = new WeakMap<object, { workspaceId: string | undefined; requestId: string | undefined }>();

  /** Notes the workspace and request id of an answer (called for every answer). */
  note(c: Context<AppEnv>): void {
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing) this.#answers.set(outgoing, { workspaceId: c.get('auth')?.workspaceId, requestId: c.get('requestId') });
  }

  /** Logs every request `server` answers to `write`. */
  attach(server: ServerType, write: (line: string) => void): void {
    // First in line, so the time includes everything the app does.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const started = performance.now();
      res.once('close', () => {
        const url = req.url ?? '/';
        const query = url.indexOf('?');
        const path = query === -1 ? url : url.slice(0, query);
        const ms = (performance.now() - started).toFixed(1);
        const answer = this.#answers.get(res);
        write(`${req.method} ${path} ${res.statusCode} ${ms}ms ${answer?.workspaceId ?? '-'} ${answer?.requestId ?? '-'}`);
      });
    });
  }
}
