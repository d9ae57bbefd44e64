import type { ErrorCode } from './error-codes.js';
import type { Scope } from './scopes.js';
import type { Detail } from './service-error.js';

/** Who is calling: set by the API-key middleware on every authenticated `/v1` request. */
export interface AuthContext {
  keyId: string;
  keyPrefix: string;
  workspaceId: string;
  scopes: ReadonlySet<Scope>;
}

/** Hono environment shared by every route of the service and the emulator. */
export interface AppEnv {
  Bindings: {
    /**
     * Where the caller reached the service when that is not the request's own URL (an
     * interceptor such as MSW): `https://api.example.com/prefix`. URLs the service hands
     * out (signed file URLs) point under it.
     */
    publicUrl?: string;
    /**
     * Set by the server, never by a client: why it could not read the request as a URL
     * (a malformed `Host`, a backslash in the path). The answer is `400
     * svc.request.invalid` before any route runs (D-1117).
     */
    unreadable?: { detail?: Detail };
  };
  Variables: {
    requestId: string;
    /** Headers every answer to this request carries (request id, rate limit). */
    responseHeaders: Record<string, string>;
    docsUrl: string | undefined;
    /** Console routes send problem bodies as `application/json`. */
    plainJsonErrors: boolean;
    auth: AuthContext;
    /** The problem this request was answered with, as `problemResponse` built it: what the journal records (D-1218). */
    problem: { code: ErrorCode; status: number };
  };
}
