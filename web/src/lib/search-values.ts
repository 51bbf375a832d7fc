/**
 * A number from an address's search value. The router parses `?start=12` as JSON, so a
 * value may be a number, text, or anything JSON holds (an object, an array): only numbers
 * and numeric text count; anything else is NaN, never a conversion that could throw
 * (`Number({ toString: 0 })` does).
 */
export function searchNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return Number.NaN;
}
