/**
 * The keys a log must never hold, the forms a key could take on its way into a line, and the
 * requests that carry a key in every place a client might put one.
 */
import { randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import { demoCredentials } from '../../fixtures/index.ts';
import { KEY_PREFIX } from '../../spec/facts.ts';

const demoKeys = Object.values(demoCredentials());
/** Well-formed keys nobody issued, and one far too long: bad keys must not be logged either. */
const badKeys = [
  `${KEY_PREFIX}${randomBytes(20).toString('hex')}`,
  `${KEY_PREFIX}${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x')}`,
  `${KEY_PREFIX}${'Q'.repeat(6_000)}`,
];
export const secrets = [...demoKeys, ...badKeys];

/** Every form a key could take on its way into a log line. */
function secretForms(key: string): string[] {
  const body = key.slice(KEY_PREFIX.length);
  return [key, body.slice(0, 24), encodeURIComponent(key), Buffer.from(`${key}:`).toString('base64')];
}

export function expectNoSecret(text: string): void {
  for (const key of secrets) {
    for (const form of secretForms(key)) expect(text.includes(form)).toBe(false);
  }
}

/** Requests carrying `key` in every place a client might put one. */
export function requestsWith(
  key: string,
  walkId: string,
): { method: string; path: string; headers: OutgoingHttpHeaders; body?: string }[] {
  const body = key.slice(KEY_PREFIX.length);
  return [
    { method: 'GET', path: '/api/v1/walks?limit=2', headers: { authorization: `Bearer ${key}` } },
    { method: 'GET', path: `/api/v1/walks/${walkId}`, headers: { 'x-api-key': key } },
    { method: 'GET', path: '/api/v1/walks', headers: { authorization: `bearer  ${key}`, 'x-api-key': key } },
    {
      method: 'GET',
      path: '/api/v1/walks',
      headers: { authorization: `Bearer ${key}`, 'x-api-key': demoKeys[2] },
    },
    {
      method: 'GET',
      path: '/api/v1/walks',
      headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
    },
    { method: 'GET', path: `/api/v1/walks?api_key=${key}&limit=${key}`, headers: {} },
    { method: 'GET', path: `/api/v1/walks/${key}`, headers: { authorization: `Bearer ${key}` } },
    { method: 'GET', path: `/api/v1/walks/${body}`, headers: { 'x-api-key': key } },
    { method: 'GET', path: `/api/v1/walks/svc%5Fsk%5Flive%5F${body}`, headers: { 'x-api-key': key } },
    { method: 'GET', path: `/${key}/${body}`, headers: {} },
    { method: 'HEAD', path: '/api/v1/walks', headers: { 'x-api-key': key } },
    { method: 'POST', path: '/api/v1/walks', headers: { 'x-api-key': key }, body: JSON.stringify({ key }) },
    {
      method: 'OPTIONS',
      path: '/api/v1/walks',
      headers: { authorization: `Bearer ${key}`, origin: 'https://evil.example' },
    },
  ];
}
