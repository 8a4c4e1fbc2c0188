/**
 * Guards for values read from JSON or YAML (a spec document, an API answer, a report): what the
 * parser gives is `unknown` until one of these says otherwise. One home, beneath every folder that
 * reads such values.
 */

/** A JSON object (a YAML mapping): not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
