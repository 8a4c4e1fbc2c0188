/**
 * The floor of `npm run conformance:traffic-bench`, in a process of its own: reads the recording
 * it is given the way `--traffic` reads it (the same source and scanner) and `JSON.parse`s each
 * entry and its body, judging nothing. Prints one JSON line of figures: what judging is compared with.
 */
import { openRecording } from '../../conformance/transport/recordings/source.ts';
import { figuresOf, startFigures } from './traffic-figures.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: traffic-floor.ts FILE');

const started = startFigures();
let entries = 0;
let bodies = 0;
const recording = await openRecording(file, process.stdin);
await recording.read((batch) => {
  for (const item of batch) {
    if (!('bytes' in item)) continue;
    entries++;
    const entry = JSON.parse(item.bytes.toString('utf8')) as { response?: { content?: { text?: unknown } } };
    const text = entry.response?.content?.text;
    if (typeof text === 'string') {
      JSON.parse(text);
      bodies++;
    }
  }
});
process.stdout.write(`${JSON.stringify({ ...figuresOf(started), exchanges: entries, bodies })}\n`);
