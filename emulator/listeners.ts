import type { AddressInfo } from 'node:net';
import type { ServerType } from '@hono/node-server';
import type { Context } from 'hono';
import { createNodeServer } from './node-listener.js';
import { RequestLog } from './request-log.js';

export interface ListeningServer {
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
}

type Fetch = Parameters<typeof createNodeServer>[0];

/** The servers an emulator listens on, and the request log of those started with one. */
export class Listeners {
  readonly #servers = new Set<ServerType>();
  #requestLog: RequestLog | undefined;

  /** Notes an answer for the request log, when a server was started with `log`. */
  note(c: Context): void {
    this.#requestLog?.note(c);
  }

  /** A server for `fetch` on `port` (0 picks a free one) of `host`; `log` gets one line per request. */
  listen(fetch: Fetch, port: number, host: string, log: ((line: string) => void) | undefined): Promise<ListeningServer> {
    return new Promise((resolve, reject) => {
      const server = createNodeServer(fetch, host);
      server.listen(port, host, () => {
        const info = server.address() as AddressInfo;
        const shownHost = host.includes(':') ? `[${host}]` : host;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          port: info.port,
          host,
          close: () => this.#close(server),
        });
      });
      server.once('error', reject);
      if (log) {
        this.#requestLog ??= new RequestLog();
        this.#requestLog.attach(server, log);
      }
      this.#servers.add(server);
    });
  }

  /**
   * Every server stops taking connections; the promise settles once they have all closed,
   * which their open connections hold back until `cutConnections` (D-1163).
   */
  stopAccepting(): Promise<void> {
    return Promise.all([...this.#servers].map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(() => {});
  }

  /** Cuts every server's connections, the requests under way with them. */
  async cutConnections(): Promise<void> {
    await Promise.all([...this.#servers].map((s) => this.#close(s)));
  }

  #close(server: ServerType): Promise<void> {
    this.#servers.delete(server);
    return new Promise((resolve) => {
      server.close(() => resolve());
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  }
}
