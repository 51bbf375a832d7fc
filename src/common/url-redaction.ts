/**
 * URLs as a log line may show them: credentials replaced by `[Redacted]`. IPTV
 * playlists, tuners and guides put account names, passwords and tokens in a URL's
 * userinfo and query (`http://user:pass@host/`, `?token=...`), and a client may send
 * its token in a request's query; a log is read by more people, and kept longer, than
 * those should be. Pure: no I/O.
 */

export const REDACTED = '[Redacted]';

/**
 * Query and fragment keys whose value is a credential. Keys are compared lower-cased,
 * percent-decoded, with `-` read as `_` (so `API-Key` is `api_key`).
 */
export const SECRET_QUERY_KEYS: ReadonlySet<string> = new Set([
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'auth',
  'auth_token',
  'authorization',
  'jwt',
  'api_key',
  'apikey',
  'key',
  'password',
  'passwd',
  'pass',
  'pwd',
  'secret',
  'client_secret',
  'sig',
  'signature',
  'session',
  'sessionid',
  'session_id',
  // Xtream Codes playlists (get.php?username=...&password=...): the account name goes with the password.
  'username',
]);

/** Besides those, any key ending so: x-plex-token, stream_password, app_secret, x_api_key. */
const SECRET_KEY_ENDINGS = ['token', 'password', 'passwd', 'secret', 'apikey', 'api_key'];

export function isSecretKey(key: string): boolean {
  const name = decodeComponent(key).trim().toLowerCase().replaceAll('-', '_');
  return SECRET_QUERY_KEYS.has(name) || SECRET_KEY_ENDINGS.some((ending) => name.endsWith(ending));
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    // Malformed percent-encoding: judged as written.
    return text;
  }
}

/**
 * `url` (absolute, or a request's path and query) with its userinfo and the values of
 * secret query and fragment keys replaced by `[Redacted]`; the rest as written, so the
 * line still says where it went. Never throws: a log line must not fail.
 */
export function redactUrl(url: string): string {
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt < 0 ? url : url.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const head = withoutUserinfo(queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt));
  const query = queryAt < 0 ? '' : `?${redactParameters(beforeHash.slice(queryAt + 1))}`;
  // OAuth puts tokens in the fragment (#access_token=...), written like a query.
  const fragment = hashAt < 0 ? '' : `#${redactParameters(url.slice(hashAt + 1))}`;
  return head + query + fragment;
}

/**
 * The userinfo is what comes before the last `@` of the authority (`//` to the first
 * `/`), as URL parsers read it: a password may hold an `@` of its own. (`\\` counts as
 * `/` at the start, as browsers read `http:\\`, not at the end: redacting too much beats too little.)
 */
function withoutUserinfo(head: string): string {
  const start = /^\s*(?:[a-z][a-z0-9+.-]*:)?[/\\]{2}/i.exec(head)?.[0].length;
  if (start === undefined) return head;
  const slash = head.indexOf('/', start);
  const authority = slash < 0 ? head.slice(start) : head.slice(start, slash);
  const at = authority.lastIndexOf('@');
  return at < 0 ? head : `${head.slice(0, start)}${REDACTED}${head.slice(start + at)}`;
}

/** `a=1&token=x` -> `a=1&token=[Redacted]`: pairs split at `&`, as URLSearchParams does. */
function redactParameters(parameters: string): string {
  return parameters
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq >= 0 && isSecretKey(pair.slice(0, eq)) ? `${pair.slice(0, eq + 1)}${REDACTED}` : pair;
    })
    .join('&');
}

/** Absolute URLs in free text (an error message that names one): up to a space, quote or angle bracket. */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*/gi;

/** `text` with each absolute URL in it redacted (redactUrl). */
export function redactUrlsInText(text: string): string {
  // Most log text names no URL: no copy then.
  return text.includes('://') ? text.replace(URL_IN_TEXT, redactUrl) : text;
}
