import { describe, expect, it } from 'vitest';
import { listenUrl } from './listen-url.ts';

describe('listenUrl', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:8080'],
    ['::1', 'http://[::1]:8080'],
    ['sandbox.internal', 'http://sandbox.internal:8080'],
    ['0.0.0.0', 'http://localhost:8080'],
    ['::', 'http://localhost:8080'],
  ])('names %s as %s', (host, url) => {
    expect(listenUrl(host, 8080)).toBe(url);
  });
});
