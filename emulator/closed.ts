/**
 * Why a request to a closed emulator got no answer: what `emulator.fetch` rejects with
 * is a `TypeError` ("fetch failed", as global fetch's when no server listens), and this
 * is its `cause`, with the code a refused connection has (D-1077).
 */
export class EmulatorClosedError extends Error {
  readonly code = 'ECONNREFUSED';

  constructor() {
    super('svc-emulator: this emulator was closed (emulator.close()); it answers no more requests');
    this.name = 'EmulatorClosedError';
  }
}

/** The rejection of a request sent to a closed emulator (D-1077). */
export function closedFetchError(): TypeError {
  return new TypeError('fetch failed', { cause: new EmulatorClosedError() });
}

/**
 * Whether `error` is that rejection. By name and code, not `instanceof`: the package's
 * entry points are bundled apart, and each may hold its own copy of the class.
 */
export function isClosedFetchError(error: unknown): boolean {
  const cause = error instanceof TypeError ? (error.cause as { name?: unknown; code?: unknown } | undefined) : undefined;
  return cause?.name === 'EmulatorClosedError' && cause.code === 'ECONNREFUSED';
}
