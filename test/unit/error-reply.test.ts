import { describe, expect, it } from 'vitest';
import { storageFailure, validationErrorBody } from '../../src/http/error-reply.js';

describe('validationErrorBody', () => {
  it('names the parameter and the allowed values of an enum', () => {
    const body = validationErrorBody(
      [{ keyword: 'enum', instancePath: '/order', params: { allowedValues: ['asc', 'desc'] } }],
      'querystring',
    );
    expect(body).toEqual({
      status: 400,
      code: 'invalid_parameter',
      message: "The query parameter 'order' must be one of: asc, desc.",
      parameter: 'order',
      allowed: ['asc', 'desc'],
    });
  });

  it('finds the allowed values in the schema when the error is about the type (a repeated parameter)', () => {
    const body = validationErrorBody(
      [
        {
          keyword: 'type',
          instancePath: '/watched',
          message: 'must be string',
          params: {},
          parentSchema: { enum: ['true', 'false'] },
        },
      ],
      'querystring',
    );
    expect(body.parameter).toBe('watched');
    expect(body.allowed).toEqual(['true', 'false']);
  });

  it('explains other failures with the validator’s words', () => {
    const body = validationErrorBody(
      [{ keyword: 'maxLength', instancePath: '/name', message: 'must NOT have more than 5 characters', params: {} }],
      'body',
    );
    expect(body.message).toBe("The body field 'name' is invalid: it must NOT have more than 5 characters.");
    expect(body.allowed).toBeUndefined();
  });
});

describe('storage failures', () => {
  it('answers a full disk with a 507 and a read-only or failing disk with a 503, each saying what to do', () => {
    for (const code of ['SQLITE_FULL', 'ENOSPC', 'EDQUOT'])
      expect(storageFailure({ code })).toMatchObject({
        status: 507,
        code: 'disk_full',
        message: expect.stringMatching(/Free some space/),
      });
    for (const code of ['SQLITE_IOERR_WRITE', 'SQLITE_IOERR', 'SQLITE_READONLY_DBMOVED', 'EROFS'])
      expect(storageFailure({ code })).toMatchObject({ status: 503, code: 'storage_error' });
    for (const code of [undefined, 'SQLITE_CONSTRAINT', 'ENOENT', 'FST_ERR_CTP_INVALID_MEDIA_TYPE'])
      expect(storageFailure({ code })).toBeUndefined();
    // A read saved nothing, and is not told that a change was lost.
    expect(storageFailure({ code: 'ENOSPC' }, 'PUT')?.message).toMatch(/this change was not saved/);
    expect(storageFailure({ code: 'ENOSPC' }, 'GET')?.message).toMatch(/this request could not be answered/);
  });
});
