import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../platform/context.js';
import type { InFlight } from '../platform/in-flight.js';
import { problemBody } from '../platform/problem.js';
import { ServiceError } from '../platform/service-error.js';
import type { StreamedTurn } from './chat.service.js';

const STOPPED = {
  en: 'The service stopped before the reply ended; the turn was cancelled and its credit given back.',
  es: 'El servicio se detuvo antes de terminar la respuesta; el turno se canceló y su crédito se devolvió.',
};

/**
 * Streams an opened turn as server-sent events: `start`, one `token` per token, then
 * `done` with the chat answer, or `error` with a problem document. A client that
 * disconnects stops the work and what it was sent stays unrecorded; a failure after
 * the start undoes the turn. So does the service stopping (`503`, D-1163): the stop
 * waits for the turn to be undone, not for the client to read what is left.
 */
export function streamTurn(c: Context<AppEnv>, turn: StreamedTurn, log: (message: string, error?: unknown) => void, requests: InFlight): Response {
  return streamSSE(c, (stream) => {
    const client = new AbortController();
    stream.onAbort(() => client.abort());
    return requests.track(requests.untilStopped(client.signal, (signal) => run(stream, signal)));
  });

  async function run(stream: Parameters<Parameters<typeof streamSSE>[1]>[0], signal: AbortSignal): Promise<void> {
    // Once stopped, a write no longer waits for the client to read it: it stays queued for them.
    const ended = new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    const send = (event: string, data: unknown) => Promise.race([stream.writeSSE({ event, data: JSON.stringify(data) }), ended]);
    const stopped = () => !stream.aborted && signal.aborted;
    try {
      await send('start', { conversationId: turn.conversationId });
      for await (const text of turn.tokens(signal)) {
        if (signal.aborted) break;
        await send('token', { text });
      }
      if (stream.aborted) return;
      if (signal.aborted) throw new ServiceError('svc.service.unavailable', { detail: STOPPED });
      await send('done', await turn.finish());
    } catch (thrown) {
      // A model that honours the signal may throw its own abort error when stopped.
      const error = stopped() && !(thrown instanceof ServiceError) ? new ServiceError('svc.service.unavailable', { detail: STOPPED }) : thrown;
      if (!(error instanceof ServiceError)) log(`chat stream failed (${c.get('requestId')})`, error);
      // A stream's failure never reaches `onError`: its cause is logged here, as there.
      else if (error.cause !== undefined) log(`${error.code} in a chat stream (${c.get('requestId')})`, error.cause);
      await turn.fail().catch((e: unknown) => log('could not undo a failed chat turn', e));
      if (stream.aborted) return;
      await send('error', problemBody(c, error instanceof ServiceError ? error : new ServiceError('svc.internal.error')));
    }
  }
}
