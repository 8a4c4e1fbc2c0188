/**
 * Large recordings for `npm run conformance:traffic-bench`, made of real reference-server answers
 * and written as a stream (never whole in memory), one HAR entry per line inside `log.entries`:
 * - `mixed`: what a day at a gateway looks like, a list page now and then and walk details
 *   between, keys in both headers, the same walks asked again and again;
 * - `distinct`: every exchange a walk no other exchange names (a real walk under a fresh id, in
 *   its path and its body, and a list page of those walks every 100 exchanges): what grows the
 *   cross-exchange rules' state the most.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import { startReferenceServer } from '../../reference-server/start.ts';

export type Scenario = 'mixed' | 'distinct';

interface Answer {
  path: string;
  status: number;
  headers: { name: string; value: string }[];
  body: string;
}

interface Sample {
  base: string;
  key: string;
  /** A list page of 20 walks, and the details of the walks it lists. */
  list: Answer;
  details: Answer[];
}

/** Keys as the recording carries them: the demo primary key, sent in either header. */
const KEY_HEADERS = (key: string) => [
  [{ name: 'Authorization', value: `Bearer ${key}` }],
  [{ name: 'x-api-key', value: key }],
];

/** Real answers of the reference server: a list page of 20 walks and their details. */
export async function sampleAnswers(): Promise<Sample> {
  const server = await startReferenceServer({ log: false });
  try {
    const key = server.credentials.CONFORMANCE_API_KEY;
    const ask = async (path: string): Promise<Answer> => {
      const answer = await fetch(`${server.baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
      return {
        path,
        status: answer.status,
        headers: [...answer.headers]
          .filter(([name]) => name !== 'content-encoding' && name !== 'content-length')
          .map(([name, value]) => ({ name, value })),
        body: await answer.text(),
      };
    };
    // The 20 walks with the fewest stops: a gateway's day holds many small answers, and a file of
    // 400,000 distinct walks must fit a temporary directory.
    const full = await ask('/api/v1/walks?limit=200');
    const walks = (JSON.parse(full.body) as { data: { id: string; count: number }[] }).data
      .filter((w) => w.count > 0)
      .sort((a, b) => a.count - b.count)
      .slice(0, 20);
    const list = {
      ...full,
      path: '/api/v1/walks?limit=20',
      body: JSON.stringify({
        ok: true,
        data: walks.map((w) =>
          (JSON.parse(full.body) as { data: { id: string }[] }).data.find((x) => x.id === w.id),
        ),
        meta: { count: walks.length },
      }),
    };
    const details = await Promise.all(walks.map((w) => ask(`/api/v1/walks/${w.id}`)));
    return { base: server.baseUrl, key, list, details };
  } finally {
    await server.close();
  }
}

function entryText(
  sample: Sample,
  answer: Answer,
  index: number,
  path = answer.path,
  body = answer.body,
): string {
  const headers = KEY_HEADERS(sample.key)[index % 2] ?? [];
  return JSON.stringify({
    startedDateTime: new Date(1_760_000_000_000 + index * 20).toISOString(),
    time: 5,
    request: {
      method: 'GET',
      url: `${sample.base}${path}`,
      httpVersion: 'HTTP/1.1',
      headers,
      cookies: [],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: answer.status,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      headers: answer.headers,
      cookies: [],
      content: { size: body.length, mimeType: 'application/json', text: body },
      redirectURL: '',
      headersSize: -1,
      bodySize: body.length,
    },
    cache: {},
    timings: { send: 0, wait: 5, receive: 0 },
  });
}

/** The `i`-th exchange of the mixed day: a list page every 10th, else the detail of one of its walks. */
function mixedEntry(sample: Sample, i: number): string {
  if (i % 10 === 0) return entryText(sample, sample.list, i);
  return entryText(sample, sample.details[i % sample.details.length] as Answer, i);
}

/**
 * The `i`-th exchange over distinct walks: a real walk's detail under a fresh id; every 100th a
 * list page holding the walks of the 20 exchanges before it, under their ids.
 */
function distinctEntries(sample: Sample): (i: number) => string {
  const recent: string[] = [];
  const originals = (JSON.parse(sample.list.body) as { data: { id: string }[] }).data.map((w) => w.id);
  return (i) => {
    if (i % 100 === 99 && recent.length >= originals.length) {
      const page = originals.reduce((text, id, k) => text.replaceAll(id, recent[k] ?? id), sample.list.body);
      return entryText(sample, sample.list, i, sample.list.path, page);
    }
    const k = i % sample.details.length;
    const detail = sample.details[k] as Answer;
    const id = randomUUID();
    recent[k] = id;
    return entryText(
      sample,
      detail,
      i,
      `/api/v1/walks/${id}`,
      detail.body.replaceAll(originals[k] ?? '', id),
    );
  };
}

/** Writes `exchanges` entries of a scenario to `file` as HAR; returns its size in bytes. */
export async function writeRecording(
  file: string,
  scenario: Scenario,
  exchanges: number,
  sample: Sample,
): Promise<number> {
  const entry = scenario === 'mixed' ? (i: number) => mixedEntry(sample, i) : distinctEntries(sample);
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('{"log":{"version":"1.2","creator":{"name":"traffic-bench","version":"1"},"entries":[');
  for (let i = 0; i < exchanges; i++) await write(`${i === 0 ? '' : ','}\n${entry(i)}`);
  await write('\n]}}\n');
  out.end();
  await once(out, 'close');
  return statSync(file).size;
}
