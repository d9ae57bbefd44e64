import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import type { AppEnv } from './context.js';

/** Where the service's own pages are in process (`emulator.fetch()` resolves a path against it). */
export const IN_PROCESS_BASE = 'http://localhost';

interface LocalEnd {
  localAddress?: string | undefined;
  localPort?: number | undefined;
}

/**
 * The base URL the service's own routes are served under for this request, never read
 * from the request's `Host` header (anyone may write it; D-870): the `publicUrl` an
 * interceptor gave (MSW), else the address and port the connection reached on the
 * listening socket (`--host`:`--port`; with a wildcard host, the interface the client
 * reached), else `http://localhost` in process, where `emulator.fetch()` resolves it.
 */
export function ownBaseUrl(c: Context<AppEnv>): string {
  const publicUrl = c.env?.publicUrl;
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const socket = (c.env as { incoming?: { socket?: LocalEnd } } | undefined)?.incoming?.socket;
  if (socket?.localPort && socket.localAddress && ipaddr.isValid(socket.localAddress)) {
    const address = ipaddr.process(socket.localAddress);
    const host = address.kind() === 'ipv6' ? `[${address.toString()}]` : address.toString();
    return `http://${host}:${socket.localPort}`;
  }
  return IN_PROCESS_BASE;
}
