import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../platform/context.js';
import { problemBody } from '../platform/problem.js';
import { ServiceError } from '../platform/service-error.js';
import type { StreamedTurn } from './chat.service.js';

/**
 * Streams an opened turn as server-sent events: `start`, one `token` per token, then
 * `done` with the chat answer, or `error` with a problem document. A client that
 * disconnects stops the work and what it was sent stays unrecorded; a failure after
 * the start undoes the turn.
 */
export function streamTurn(c: Context<AppEnv>, turn: StreamedTurn, log: (message: string, error?: unknown) => void): Response {
  return streamSSE(c, async (stream) => {
    const controller = new AbortController();
    stream.onAbort(() => controller.abort());
    const send = (event: string, data: unknown) => stream.writeSSE({ event, data: JSON.stringify(data) });
    try {
      await send('start', { conversationId: turn.conversationId });
      for await (const text of turn.tokens(controller.signal)) {
        if (stream.aborted) break;
        await send('token', { text });
      }
      if (stream.aborted || controller.signal.aborted) return;
      await send('done', await turn.finish());
    } catch (error) {
      if (!(error instanceof ServiceError)) log(`chat stream failed (${c.get('requestId')})`, error);
      // A stream's failure never reaches `onError`: its cause is logged here, as there.
      else if (error.cause !== undefined) log(`${error.code} in a chat stream (${c.get('requestId')})`, error.cause);
      await turn.fail().catch((e: unknown) => log('could not undo a failed chat turn', e));
      if (stream.aborted) return;
      await send('error', problemBody(c, error instanceof ServiceError ? error : new ServiceError('svc.internal.error')));
    }
  });
}
