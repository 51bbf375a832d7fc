import { type SchemaOptions, Type } from '@sinclair/typebox';

/**
 * A string that must be one of `values`, as a plain JSON-schema `enum`. (TypeBox's
 * own union of literals becomes `anyOf`, whose validation errors cannot say which
 * values are allowed; an `enum` error lists them.)
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}
