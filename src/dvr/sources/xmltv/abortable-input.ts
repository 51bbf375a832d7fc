/** Reading an input that may stall, so that an abort is noticed at once. */
export function abortError(signal: AbortSignal): Error {
  const error = new Error('XMLTV parsing aborted', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

/** The input, but a pending read rejects as soon as the signal aborts (a stalled download must not hang us). */
export async function* abortable<T>(input: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  const iterator = input[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    closeQuietly(iterator);
  }
}

/** Releases a source without waiting: a stalled one may never settle its pending read. */
export function closeQuietly(iterator: AsyncIterator<unknown>): void {
  void Promise.resolve(iterator.return?.()).catch(() => {});
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
