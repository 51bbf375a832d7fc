/**
 * Every call the app makes to the server: JSON in and out, the token (when the server
 * has one) from this browser's storage, and every error turned into an ApiError whose
 * message a person can read (the server's own message when it sent one).
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The request parameter or body field at fault, when the server named one (a form marks that field). */
    readonly parameter?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const TOKEN_KEY = 'antenna.token';

export const tokenStore = {
  get(): string | null {
    try {
      return localStorage.getItem(TOKEN_KEY);
    } catch {
      return null;
    }
  },
  set(token: string | null): void {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  },
};

/** Asked when a write is refused for want of a token: resolves with one to try, or null (the user gave up). */
type TokenAsker = (reason: string) => Promise<string | null>;
let tokenAsker: TokenAsker = () => Promise.resolve(null);
/** The question on screen now: changes refused meanwhile wait for the same answer, not a second prompt. */
let pendingAsk: Promise<string | null> | undefined;

export function setTokenAsker(asker: TokenAsker): void {
  tokenAsker = asker;
}

function askForToken(reason: string): Promise<string | null> {
  pendingAsk ??= tokenAsker(reason).finally(() => (pendingAsk = undefined));
  return pendingAsk;
}

/** The error a failed answer stands for: the server's {status, code, message} when it sent one. */
export async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; parameter?: unknown };
    if (typeof body.message === 'string') {
      return new ApiError(
        response.status,
        typeof body.code === 'string' ? body.code : 'error',
        body.message,
        typeof body.parameter === 'string' ? body.parameter : undefined,
      );
    }
  } catch {
    // Not JSON: a proxy's page, say. Described below.
  }
  return new ApiError(
    response.status,
    'http_error',
    `The server answered ${response.status} ${response.statusText || ''}`.trim() + '.',
  );
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** False for writes nobody asked for by hand (the player's progress reports): a 401 fails them without prompting. */
  interactive?: boolean;
}

/** Sends a request; a 401 (a write, or a read of webhooks) asks the user for the token once and tries again. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = tokenStore.get();
    // Sent on reads too: those that show what only writers may see (webhooks) need it.
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: options.body === undefined ? null : JSON.stringify(options.body),
        signal: options.signal ?? null,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiError(
        0,
        'offline',
        'The Antenna server cannot be reached. Check that it is running and that this device is on its network.',
      );
    }
    if (response.status === 401 && attempt === 0 && options.interactive !== false) {
      const refused = await errorOf(response);
      const given = await askForToken(refused.message);
      if (given === null) throw refused;
      tokenStore.set(given);
      continue;
    }
    if (!response.ok) throw await errorOf(response);
    if (response.status === 204) return undefined as T;
    const type = response.headers.get('content-type') ?? '';
    return (type.includes('json') ? await response.json() : await response.text()) as T;
  }
}

/** A query string from the values that are set, in a stable order. */
export function queryString(values: Record<string, string | number | boolean | undefined | null>): string {
  const pairs = Object.entries(values).filter(
    (entry): entry is [string, string | number | boolean] =>
      entry[1] !== undefined && entry[1] !== null && entry[1] !== '',
  );
  if (pairs.length === 0) return '';
  return '?' + new URLSearchParams(pairs.map(([key, value]) => [key, String(value)])).toString();
}

/** A path segment from an id: ids are opaque strings and may hold any character. */
export const seg = (value: string | number): string => encodeURIComponent(String(value));
