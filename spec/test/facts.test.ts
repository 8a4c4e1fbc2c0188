/**
 * Holds `spec/facts.ts` to a full parse of `spec/openapi.yaml`: the facts it reads from two YAML
 * blocks are the spec's, and the ones it names agree with what the spec shows of them.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSpec, type OpenApiDocument, operationsOf, resolveRef } from '../contract.ts';
import {
  ERROR_STATUSES,
  errorStatusesOf,
  KEY_PREFIX,
  LIMIT,
  LIVE_SCOPES,
  requiredScopesIn,
  statusOfError,
  WALKS_READ_SCOPE,
} from '../facts.ts';

const doc = loadSpec();

/** Every `error.code` of a documented response example, with the status it is documented under. */
function documentedErrorCodes(): [string, number][] {
  const found: [string, number][] = [];
  for (const op of operationsOf(doc)) {
    for (const [status, ref] of Object.entries(op.definition.responses ?? {})) {
      const response = resolveRef<OpenAPIV3_1.ResponseObject>(doc, ref);
      for (const media of Object.values(response.content ?? {})) {
        for (const example of Object.values(media.examples ?? {})) {
          const value = resolveRef<OpenAPIV3_1.ExampleObject>(doc, example).value as {
            error?: { code: string };
          };
          if (value.error) found.push([value.error.code, Number(status)]);
        }
      }
    }
  }
  return found;
}

describe('the facts read from spec/openapi.yaml', () => {
  it('LIVE_SCOPES are the x-required-scopes of every operation, each once', () => {
    const scopes = [...new Set(operationsOf(doc).flatMap((op) => op.requiredScopes))];
    expect(LIVE_SCOPES).toEqual(scopes);
    expect(LIVE_SCOPES).toContain(WALKS_READ_SCOPE);
  });

  it.each([
    ['a flow sequence', '[walks:read]'],
    ['a quoted flow sequence with a comment', '["walks:read", \'lists:read\'] # both'],
    ['a flow sequence over several lines', '[\n          walks:read,\n          lists:read\n        ]'],
    ['a block sequence', '\n        - walks:read\n        # the lists too\n\n        - "lists:read"'],
    ['a block sequence at the depth of its key', '\n      - walks:read\n      - sms:read # soon'],
    ['one scope alone', 'walks:read'],
    ['one quoted scope alone', "'walks:read' # the walks"],
  ])('x-required-scopes written as %s are read as a full parse reads them', (_form, scopes) => {
    const text = [
      'openapi: 3.1.0',
      'info: { title: t, version: "1" }',
      'paths:',
      '  /a:',
      '    get:',
      '      operationId: a',
      `      x-required-scopes: ${scopes}`,
      '      responses: {}',
      '  /b:',
      '    get:',
      '      operationId: b',
      '      "x-required-scopes": [outdoor:read]',
      '      responses: {}',
    ].join('\n');
    const parsed = operationsOf(parse(text) as OpenApiDocument).flatMap((op) => op.requiredScopes);
    expect(parsed.length).toBeGreaterThan(1);
    expect(requiredScopesIn(text.split('\n'))).toEqual(parsed);
  });

  it('LIMIT is the Limit parameter of a full parse', () => {
    const limit = resolveRef<OpenAPIV3_1.ParameterObject>(doc, { $ref: '#/components/parameters/Limit' });
    const schema = limit.schema as OpenAPIV3_1.SchemaObject;
    expect(LIMIT).toEqual({
      name: limit.name,
      minimum: schema.minimum,
      maximum: schema.maximum,
      default: schema.default,
    });
  });

  it('ERROR_STATUSES gives every code of a documented error example the status it is documented under', () => {
    const documented = documentedErrorCodes();
    expect(documented.length).toBeGreaterThan(5);
    for (const [code, status] of documented) expect([code, ERROR_STATUSES[code]]).toEqual([code, status]);
  });

  it('ERROR_STATUSES is what the Error.code description of a full parse states', () => {
    const schema = doc.components?.schemas?.Error as OpenAPIV3_1.SchemaObject;
    const description = (schema.properties?.code as OpenAPIV3_1.SchemaObject).description ?? '';
    expect(ERROR_STATUSES).toEqual(errorStatusesOf(description));
    expect(Object.keys(ERROR_STATUSES).length).toBeGreaterThanOrEqual(12);
  });

  it('ERROR_STATUSES names only codes the Error schema accepts, each with a 4xx or 5xx status', () => {
    const schema = doc.components?.schemas?.Error as OpenAPIV3_1.SchemaObject;
    const pattern = new RegExp((schema.properties?.code as OpenAPIV3_1.SchemaObject).pattern ?? '^$');
    for (const [code, status] of Object.entries(ERROR_STATUSES)) {
      expect(code).toMatch(pattern);
      expect(status >= 400 && status < 600, `${code} ${status}`).toBe(true);
    }
    expect(ERROR_STATUSES).toMatchObject({ method_not_allowed: 405, request_timeout: 408, bad_request: 400 });
  });

  it('statusOfError answers a named code and refuses a typo', () => {
    expect(statusOfError('not_found')).toBe(404);
    expect(() => statusOfError('not_fuond')).toThrow(/names no error code "not_fuond"/);
  });
});

describe('the facts named in spec/facts.ts agree with the spec', () => {
  it('KEY_PREFIX is the prefix of the bearer format the spec documents', () => {
    const bearer = doc.components?.securitySchemes?.bearerAuth as OpenAPIV3_1.HttpSecurityScheme;
    expect(bearer.bearerFormat).toBe(`${KEY_PREFIX}<KEY_BODY>`);
  });

  it('WALKS_READ_SCOPE is the one scope each walks operation requires; every live operation needs one live scope', () => {
    const walks = operationsOf(doc).filter((op) => /^\/api\/v\d+\/walks(\/|$)/.test(op.path));
    expect(walks.length).toBeGreaterThan(0);
    for (const op of walks) expect(op.requiredScopes).toEqual([WALKS_READ_SCOPE]);
    for (const op of operationsOf(doc)) {
      expect(op.requiredScopes).toHaveLength(1);
      expect(LIVE_SCOPES).toContain(op.requiredScopes[0]);
    }
  });
});
