/**
 * `work`, or a rejection with `signal.reason` as soon as `signal` aborts, whichever comes
 * first: code of someone else's (a plugged chat model) that ignores its signal does not
 * hold up its caller, nor a `close()` waiting for that caller. What the abandoned work
 * later resolves or rejects with is dropped.
 */
export function untilAborted<T>(work: T | PromiseLike<T>, signal: AbortSignal): Promise<T> {
  const promise = Promise.resolve(work);
  const drop = () => void promise.catch(() => {});
  if (signal.aborted) {
    drop();
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      drop();
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

/**
 * The items of `source` until `signal` aborts; then it ends at once, also while the
 * source has not answered a `next()` (that answer is dropped), and the source is asked
 * to return without being waited for.
 */
export async function* abortable<T>(source: Iterable<T> | AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T, void, undefined> {
  const iterator: Iterator<T> | AsyncIterator<T> = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  try {
    while (!signal.aborted) {
      let next: IteratorResult<T>;
      try {
        next = await untilAborted(iterator.next(), signal);
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => {});
  }
}
