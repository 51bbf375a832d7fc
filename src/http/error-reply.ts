/**
 * Every error answer is JSON: `{status, code, message}`, plus `parameter` and
 * `allowed` when a request parameter was wrong. Clients treat a non-JSON answer as
 * "offline", so this covers validation, unknown routes, bad URLs and crashes alike.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  MembershipError,
  NotFoundError,
  UnavailableError,
  truncate,
} from '../common/errors.js';
import { redactUrl } from '../common/url-redaction.js';
import { withCorsHeaders } from './cors.js';

export const ErrorSchema = Type.Object(
  {
    status: Type.Integer({ description: 'HTTP status' }),
    code: Type.String({ description: 'short machine-readable code, such as invalid_parameter or not_found' }),
    message: Type.String({ description: 'what went wrong and what to change' }),
    parameter: Type.Optional(Type.String({ description: 'the request parameter at fault' })),
    allowed: Type.Optional(Type.Array(Type.String(), { description: 'values the parameter accepts' })),
  },
  { title: 'Error' },
);
export type ErrorBody = Static<typeof ErrorSchema>;

/**
 * The answers of a write the data directory could not take (see storageFailure): 507
 * when its disk is full, 503 when it cannot be written at all; declared on every route
 * that writes, so the OpenAPI document names them.
 */
export const StorageErrors = {
  503: {
    ...ErrorSchema,
    description: 'the data directory could not be written (storage_error): check the disk and its permissions',
  },
  507: { ...ErrorSchema, description: 'the disk holding the data directory is full (disk_full): free some space' },
};

/** Every error answer, with the CORS headers so a browser client can read it wherever it came from. */
export function sendError(reply: FastifyReply, body: ErrorBody): FastifyReply {
  return withCorsHeaders(reply).code(body.status).type('application/json; charset=utf-8').send(body);
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: { allowedValues?: unknown[]; missingProperty?: string; additionalProperty?: string; tag?: string };
  parentSchema?: {
    enum?: unknown[];
    description?: string;
    oneOf?: { properties?: Record<string, { const?: unknown }> }[];
  };
}

const PARTS: Record<string, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  body: 'body field',
  headers: 'header',
};

/** A 400 that names the parameter and, where the schema lists them, the values it accepts. */
export function validationErrorBody(errors: readonly AjvError[], context: string | undefined): ErrorBody {
  const first = errors[0];
  const path = first?.instancePath.replace(/^\//, '').replaceAll('/', '.') ?? '';
  const extra = first?.params.additionalProperty;
  const tag = first?.keyword === 'discriminator' ? first.params.tag : undefined;
  const parameter =
    first?.params.missingProperty ??
    (extra !== undefined ? [path, extra].filter(Boolean).join('.') : undefined) ??
    tag ??
    path;
  // A tagged union (rule types): the values its tag may take.
  const tagValues = tag
    ? first?.parentSchema?.oneOf?.map((branch) => branch.properties?.[tag]?.const).filter((v) => v !== undefined)
    : undefined;
  const allowed = (first?.params.allowedValues ?? first?.parentSchema?.enum ?? tagValues)?.map(String);
  const part = PARTS[context ?? ''] ?? 'parameter';
  const subject = parameter === '' ? `The ${context ?? 'request'}` : `The ${part} '${parameter}'`;
  // A pattern says nothing to a person; the schema's description says what is expected.
  const described = first?.keyword === 'pattern' ? first.parentSchema?.description : undefined;
  const message = allowed
    ? `${subject} must be one of: ${allowed.join(', ')}.`
    : extra !== undefined
      ? `${subject} is not accepted here: remove it (check its spelling).`
      : described
        ? `${subject} must be ${described}.`
        : `${subject} is invalid: it ${first?.message ?? 'does not match the schema'}.`;
  return {
    status: 400,
    code: 'invalid_parameter',
    message,
    ...(parameter === '' ? {} : { parameter }),
    ...(allowed ? { allowed } : {}),
  };
}

/** Codes of a disk with no room: SQLite's, and the system's for a file write (no space, over quota). */
const DISK_FULL = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/**
 * The answer when the database or a file could not be written for want of room, or the
 * data directory cannot be written at all: 507 or 503 saying what to do, never a 500.
 * Reads go on meanwhile (SQLite reads need no room), and writes work again once there is.
 */
export function storageFailure(error: { code?: string | undefined }, method = 'POST'): ErrorBody | undefined {
  const code = error.code ?? '';
  // A read (an HLS playlist whose segments cannot be written, say) saved nothing: it is said so.
  const what =
    method === 'GET' || method === 'HEAD' ? 'this request could not be answered' : 'this change was not saved';
  if (DISK_FULL.has(code)) {
    return {
      status: 507,
      code: 'disk_full',
      message: `The disk holding Antenna's data directory is full, so ${what}. Free some space on it: everything works again as soon as there is room.`,
    };
  }
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY') || code === 'EROFS') {
    return {
      status: 503,
      code: 'storage_error',
      message: `Antenna's data directory could not be read or written, so ${what}. Check the disk and its permissions (the server log names the error), then try again.`,
    };
  }
  return undefined;
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.validation) {
      return sendError(reply, validationErrorBody(error.validation as unknown as AjvError[], error.validationContext));
    }
    if (error instanceof NotFoundError) {
      return sendError(reply, { status: 404, code: 'not_found', message: error.message });
    }
    if (error instanceof BadRequestError) {
      return sendError(reply, {
        status: 400,
        code: 'invalid_parameter',
        parameter: error.parameter,
        message: error.message,
      });
    }
    if (error instanceof MembershipError) {
      return sendError(reply, { status: 400, code: 'invalid_member', message: error.message });
    }
    if (error instanceof ForbiddenError) {
      return sendError(reply, { status: 403, code: error.code, message: error.message });
    }
    if (error instanceof ConflictError) {
      return sendError(reply, { status: 409, code: error.code, message: error.message });
    }
    if (error instanceof UnavailableError) {
      return sendError(reply, { status: error.status, code: error.code, message: error.message });
    }
    const storage = storageFailure(error, request.method);
    if (storage) {
      request.log.warn(
        { reqId: request.id, method: request.method, url: redactUrl(request.url), code: error.code },
        storage.message,
      );
      return sendError(reply, storage);
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      // A client may send its token in the query (?token=...): the log gets the URL without it.
      request.log.error(
        { err: error, reqId: request.id, method: request.method, url: redactUrl(request.url) },
        'request failed',
      );
      return sendError(reply, {
        status,
        code: 'internal_error',
        message: 'The server failed to answer; the server log says why.',
      });
    }
    // Fastify's own 4xx (malformed JSON, body too large, unsupported media type, ...).
    return sendError(reply, { status, code: (error.code ?? 'bad_request').toLowerCase(), message: error.message });
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, {
      status: 404,
      code: 'not_found',
      message: `Nothing at ${request.method} ${truncate(request.url.split('?')[0] ?? '', 120)}; the API is described at /api/docs.`,
    }),
  );
}

/**
 * Fastify's errors raised before routing: a URL that is not valid percent-encoding,
 * or a path segment longer than any id. Neither can name anything that exists.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendError(reply, { status: 404, code: 'not_found', message: 'Nothing at this URL: no resource has such an id.' });
    return;
  }
  sendError(reply, { status: 400, code: 'bad_request', message: truncate(error.message, 200) });
}
