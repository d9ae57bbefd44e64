import { clearTimeout, setTimeout } from 'node:timers';
import type { Context } from 'hono';
import * as v from 'valibot';
import type { StreamedTurn } from '../../src/chat/chat.service.js';
import { streamTurn } from '../../src/chat/chat-stream.js';
import type { AppEnv } from '../../src/platform/context.js';
import { readJson } from '../../src/platform/http-body.js';
import type { IdGenerator } from '../../src/platform/ids.js';
import { problemResponse } from '../../src/platform/problem.js';
import { ServiceError } from '../../src/platform/service-error.js';
import { windowDetail } from '../../src/platform/rate-limit.js';
import { clientText, parseOrThrow } from '../../src/platform/validation.js';
import { normalizePagePath, trimTrailingSlashes } from '../../src/pages/page-path.js';
import type { SiteLookup } from '../../src/projects/projects.service.js';
import type { Service } from '../../src/service.js';
import type { SiteChatLimits } from './site-chat-limits.js';
import { VisitorLimiter, visitorOf } from './visitors.js';
import type { WindowCounters } from '../../src/platform/counters.js';

const SiteChatBody = v.strictObject({
  path: clientText({ min: 1, max: 200 }),
  message: clientText({ trim: true, min: 1, max: 4000 }),
  conversationId: v.optional(v.string()),
});

/** How long an opened turn waits for its stream before it is undone (credit refunded). */
const PICKUP_MS = 30_000;

const RESERVED = {
  en: "Visitors have used the share of this workspace's message credits they may spend; the rest is kept for its owner.",
  es: 'Los visitantes agotaron la parte de los créditos de mensajes de este espacio que pueden gastar; el resto queda para su dueño.',
};

const TOO_MANY = {
  en: 'Too many questions from this visitor; retry after the window resets.',
  es: 'Demasiadas preguntas de este visitante; reintente cuando se reinicie la ventana.',
};

/**
 * The chat of hosted agent pages: the page's own origin, no API key (the public
 * address names who answers). `POST /_site/chat` opens the turn through the chat
 * service (same credits, conversations and refusals as `/v1`) and answers a one-time
 * stream URL; `GET` on it streams `start`, `token`..., `done` or `error`. Visitors are
 * anonymous: each may open `visitorTurns` per window on a workspace's sites, and their
 * turns never spend the owner's reserve of credits (`SiteChatLimits`).
 */
export class SiteChat {
  readonly #pending = new Map<string, { turn: StreamedTurn; timer: NodeJS.Timeout }>();
  readonly #visitors: VisitorLimiter;

  constructor(
    private readonly service: Service,
    private readonly tokens: IdGenerator,
    private readonly limits: SiteChatLimits,
    visitors: WindowCounters,
  ) {
    this.#visitors = new VisitorLimiter(visitors);
    // Turns no visitor picked up are undone while the store is still open (D-1163).
    service.requests.stopping.addEventListener('abort', () => {
      for (const [token, { turn, timer }] of this.#pending) {
        clearTimeout(timer);
        this.#pending.delete(token);
        void service.requests.track(turn.fail().catch((error: unknown) => service.settings.log('could not undo an abandoned site chat turn', error)));
      }
    });
  }

  async handle(c: Context<AppEnv>, site: SiteLookup, url: URL): Promise<Response> {
    if (url.pathname === '/_site/chat' && c.req.method === 'POST') return this.#open(c, site);
    const token = /^\/_site\/chat\/([0-9A-Za-z]+)$/.exec(url.pathname)?.[1];
    const pending = token && c.req.method === 'GET' ? this.#pending.get(token) : undefined;
    if (!token || !pending) return problemResponse(c, new ServiceError('svc.host.not_found'));
    this.#pending.delete(token);
    clearTimeout(pending.timer);
    return streamTurn(c, pending.turn, this.service.settings.log, this.service.requests);
  }

  /** Forgets every visitor's window (the emulator's reset). */
  async clear(): Promise<void> {
    await this.#visitors.clear();
  }

  /** Credits a workspace keeps for its owner: visitors' turns stop when only these are left. */
  #ownerReserve(credits: number): number {
    const { ownerReserveShare, ownerReserveMin } = this.limits;
    return Math.min(credits, Math.max(ownerReserveMin, Math.ceil(credits * ownerReserveShare)));
  }

  async #open(c: Context<AppEnv>, site: SiteLookup): Promise<Response> {
    try {
      const limits = this.limits;
      const visitor = `${site.workspaceId} ${visitorOf(c, limits.trustForwardedFor)}`;
      const wait = await this.#visitors.hit(visitor, limits.visitorTurns, limits.visitorWindowSeconds, this.service.clock.now());
      if (wait > 0)
        throw new ServiceError('svc.rate_limit.exceeded', {
          detail: windowDetail(this.service.clock.frozen, TOO_MANY),
          headers: { 'Retry-After': String(wait) },
        });
      const body = parseOrThrow(SiteChatBody, await readJson(c), 'svc.request.validation_failed');
      // Folded like a page path is (ASCII first): a look-alike letter names no page.
      const path = normalizePagePath(trimTrailingSlashes(body.path));
      const page = 'path' in path ? await this.service.pages.getPublishedByPath(site.project.id, path.path) : undefined;
      if (!page?.agentId) throw new ServiceError('svc.host.not_found');
      const credits = await this.service.workspaces.messages(site.workspaceId);
      const reserve = this.#ownerReserve(credits.limit);
      const turn = await this.service.chat
        .openStream(
          site.workspaceId,
          page.agentId,
          {
            message: body.message,
            ...(body.conversationId !== undefined && { conversationId: body.conversationId }),
          },
          { reserve },
        )
        .catch((error: unknown) => {
          // Refused with credits left: what is left is the owner's, and the answer says so.
          if (error instanceof ServiceError && error.code === 'svc.usage.quota_exhausted' && credits.remaining > 0) {
            throw new ServiceError(error.code, { detail: RESERVED });
          }
          throw error;
        });
      const token = this.tokens.secret(32);
      const timer = setTimeout(() => {
        this.#pending.delete(token);
        void turn.fail().catch((error: unknown) => this.service.settings.log('could not undo an abandoned site chat turn', error));
      }, PICKUP_MS).unref();
      this.#pending.set(token, { turn, timer });
      return new Response(JSON.stringify({ conversationId: turn.conversationId, streamUrl: `/_site/chat/${token}` }), {
        status: 201,
        headers: { 'content-type': 'application/json', 'x-request-id': c.get('requestId') },
      });
    } catch (error) {
      if (error instanceof ServiceError) return problemResponse(c, error);
      throw error;
    }
  }
}
