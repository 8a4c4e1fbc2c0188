/**
 * Playwright's HAR archive (`recordHar: { path: 'x.zip' }`): a zip holding `har.har` and the bodies
 * its entries attach by name. Read with yauzl, which reads the central directory and streams each
 * member on demand, so neither the HAR nor its bodies are ever held whole.
 */
import yauzl, { type Entry, type ZipFile } from 'yauzl';

export interface ZipBodies {
  /** The name of the HAR member: `har.har`, or else the only `.har` member. */
  harName(): string | undefined;
  stream(name: string): Promise<AsyncIterable<Buffer>>;
  /** A member's bytes, or why it cannot be read. */
  read(name: string): Promise<Buffer | { missing: string }>;
  close(): Promise<void>;
}

/** An attached body larger than this is not read (a bomb in an archive is still a bomb). */
const MAX_MEMBER_BYTES = 64 * 1024 * 1024;

export async function openZip(path: string): Promise<ZipBodies> {
  const zip = await new Promise<ZipFile>((done, fail) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, file) =>
      error || !file ? fail(error ?? new Error('no zip')) : done(file),
    ),
  );
  const members = await membersOf(zip);
  const open = (entry: Entry) =>
    new Promise<NodeJS.ReadableStream>((done, fail) =>
      zip.openReadStream(entry, (error, stream) => (error || !stream ? fail(error) : done(stream))),
    );
  return {
    harName() {
      if (members.has('har.har')) return 'har.har';
      const hars = [...members.keys()].filter((name) => name.endsWith('.har'));
      return hars.length === 1 ? hars[0] : undefined;
    },
    async stream(name) {
      const entry = members.get(name);
      if (!entry) throw new Error(`no ${name} in the archive`);
      return (await open(entry)) as AsyncIterable<Buffer>;
    },
    async read(name) {
      const entry = members.get(name);
      if (!entry) return { missing: `its attached body ${JSON.stringify(name)} is not in the archive` };
      if (entry.uncompressedSize > MAX_MEMBER_BYTES)
        return { missing: `its attached body is larger than ${MAX_MEMBER_BYTES} bytes` };
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of (await open(entry)) as AsyncIterable<Buffer>) chunks.push(chunk);
        return Buffer.concat(chunks);
      } catch (error) {
        return {
          missing: `its attached body ${JSON.stringify(name)} cannot be read: ${(error as Error).message}`,
        };
      }
    },
    close: async () => zip.close(),
  };
}

/** Every member by name (directories apart). */
function membersOf(zip: ZipFile): Promise<Map<string, Entry>> {
  return new Promise((done, fail) => {
    const members = new Map<string, Entry>();
    zip.on('entry', (entry: Entry) => {
      if (!entry.fileName.endsWith('/')) members.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => done(members));
    zip.on('error', fail);
    zip.readEntry();
  });
}
