/**
 * The Express floor: the plainest Express 5 app serving each benchmarked path with its bytes from
 * memory, as Express is usually written: default settings, one route per path, `res.send(bytes)`
 * (which is where Express sets the length, its weak ETag and answers `If-None-Match` by itself).
 */
import express from 'express';
import { onStopSignal } from '../../command-line/signals.ts';
import { floorArgs, JSON_CONTENT_TYPE, type ServedBody } from './served-bytes.ts';

const { port, routes } = floorArgs(process.argv.slice(2));
const app = express();
const byPath = new Map<string, Map<string, ServedBody>>();
for (const [url, body] of routes) {
  const [path = url, query = ''] = url.split('?');
  const variants = byPath.get(path) ?? new Map<string, ServedBody>();
  variants.set(query, body);
  byPath.set(path, variants);
}
for (const [path, variants] of byPath) {
  app.get(path, (req, res) => {
    const queryAt = req.originalUrl.indexOf('?');
    const body = variants.get(queryAt === -1 ? '' : req.originalUrl.slice(queryAt + 1));
    if (!body) {
      res.sendStatus(404);
      return;
    }
    res.set('Content-Type', JSON_CONTENT_TYPE);
    if (body.contentEncoding) res.set('Content-Encoding', body.contentEncoding);
    res.send(body.bytes);
  });
}
const server = app.listen(port, '127.0.0.1');
onStopSignal(() => {
  server.close();
  process.exit(0);
});
