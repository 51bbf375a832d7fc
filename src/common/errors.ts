/** Errors that services raise and the HTTP layer turns into JSON answers. */

/** The named resource does not exist: HTTP 404. */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
  constructor(
    readonly resource: string,
    readonly id: string,
  ) {
    super(`No ${resource} with id '${truncate(id, 80)}'.`);
  }
}

export function truncate(value: string, length: number): string {
  return value.length <= length ? value : `${value.slice(0, length)}…`;
}

/** The request is valid but conflicts with the resource's state (deleting a user's file): HTTP 409. */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A request that names something it cannot use (a movie for a shows collection, an unknown item): HTTP 400. */
export class BadRequestError extends Error {
  override readonly name = 'BadRequestError';
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Something this request depends on cannot serve it now: another process (the
 * Antenna server, the media player) is unreachable or restarting (502, 503) or did not
 * answer in time (504), or the set-up lacks the feature (501). The message names what and what to do.
 */
export class UnavailableError extends Error {
  override readonly name = 'UnavailableError';
  constructor(
    readonly status: 501 | 502 | 503 | 504,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The request may not have this, whoever asks (a file outside the library, a page of another site): HTTP 403. */
export class ForbiddenError extends Error {
  override readonly name = 'ForbiddenError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A write that names a member a collection cannot hold (a movie for a shows collection): HTTP 400 invalid_member. */
export class MembershipError extends Error {
  override readonly name = 'MembershipError';
}
