import { createRequire } from 'node:module';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { CompiledQuery } from 'kysely';

/** pg's own conversion of a parameter to the text it binds (exported by pg/lib, outside its typed surface). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(value: unknown): unknown;
};

/**
 * A compiled query with its parameters written in as literals, because COPY takes no bind parameters. Each value is
 * converted to text exactly as pg binds it (dates, arrays, JSON) and quoted as a string literal: a quoted literal
 * has no type of its own until its context gives it one, as a bind parameter has none, so the statement means the
 * same. The query text is Patron's own (everything a caller sent is a parameter) and holds no `$n` inside literals.
 */
export function withLiteralParameters(query: CompiledQuery): string {
  const { sql, parameters } = query;
  return sql.replace(/\$(\d+)/g, (_match, digits: string) => {
    const index = Number(digits) - 1;
    if (index < 0 || index >= parameters.length) throw new Error(`Parameter $${digits} has no value`);
    const text = prepareValue(parameters[index]);
    if (text === null || text === undefined) return 'null';
    if (typeof text !== 'string') throw new Error(`Parameter $${digits} is not text once prepared`);
    return pg.escapeLiteral(text);
  });
}

/** The signature, flags and header extension length that open a binary COPY (PostgreSQL's COPY, "Binary Format"). */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER_BYTES = SIGNATURE.length + 8;

/** The lines of one piece of a COPY stream (see LineCopyReader). */
interface CopiedLines {
  /** Each complete tuple's line followed by a newline, in order. */
  bytes: Buffer;
  count: number;
  /** The last tuple's second and third fields as text (an export's sort value and id). */
  lastSort: string | null;
  lastId: string | null;
}

/**
 * Reads `COPY (select line, sort, id …) TO STDOUT (FORMAT binary)` (text fields are their UTF-8 bytes) as its chunks
 * arrive, whatever their boundaries: every complete tuple's line is copied out with a newline, and only the last
 * tuple's sort and id become strings, so a million lines make no object per line.
 */
class LineCopyReader {
  private pending: Buffer = Buffer.alloc(0);
  private headerRead = false;
  ended = false;

  /** True when the last push stopped at its limit with more of the stream in hand. */
  more = false;

  /** Reads the complete tuples of what came so far and `chunk` (none: only what is in hand), at most `limit`. */
  push(chunk: Buffer | null, limit: number): CopiedLines {
    const data = !chunk ? this.pending : this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.more = false;
    // A line and its newline never take more room than its tuple did (2 bytes of count, 4 of length per field).
    const out = Buffer.allocUnsafe(data.length);
    let written = 0;
    let count = 0;
    let at = 0;
    let last: [number, number, number, number] | null = null;
    if (!this.headerRead) {
      if (data.length < HEADER_BYTES || data.length < HEADER_BYTES + data.readUInt32BE(SIGNATURE.length + 4)) {
        this.pending = Buffer.from(data);
        return { bytes: out.subarray(0, 0), count: 0, lastSort: null, lastId: null };
      }
      if (!data.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('Not a binary COPY stream');
      at = HEADER_BYTES + data.readUInt32BE(SIGNATURE.length + 4);
      this.headerRead = true;
    }
    while (data.length - at >= 2) {
      if (count === limit) {
        this.more = true;
        break;
      }
      const fields = data.readInt16BE(at);
      if (fields === -1) {
        this.ended = true;
        at += 2;
        break;
      }
      if (fields !== 3) throw new Error(`A COPY of lines has 3 fields per tuple, not ${fields}`);
      // The three fields' [start, end) offsets, or -1 for a NULL; a tuple not all here yet waits for the next chunk.
      const bounds: number[] = [];
      let cursor = at + 2;
      for (let field = 0; field < 3 && cursor !== -1; field++) {
        if (data.length - cursor < 4) cursor = -1;
        else {
          const length = data.readInt32BE(cursor);
          cursor += 4;
          if (length === -1) bounds.push(-1, -1);
          else if (data.length - cursor < length) cursor = -1;
          else {
            bounds.push(cursor, cursor + length);
            cursor += length;
          }
        }
      }
      if (cursor === -1) break;
      if (bounds[0]! >= 0) written += data.copy(out, written, bounds[0]!, bounds[1]!);
      out[written++] = 0x0a;
      count += 1;
      last = [bounds[2]!, bounds[3]!, bounds[4]!, bounds[5]!];
      at = cursor;
    }
    const text = (start: number, end: number) => (start < 0 ? null : data.toString('utf8', start, end));
    const result = {
      bytes: out.subarray(0, written),
      count,
      lastSort: last ? text(last[0], last[1]) : null,
      lastId: last ? text(last[2], last[3]) : null,
    };
    // What is left is the start of a tuple still on its way; it is copied, so the chunk it came in can be freed.
    this.pending = at === data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(at));
    return result;
  }
}

/** A page of a COPY of lines: `count` lines as pieces of bytes, the last line's sort value and id as text. */
export interface CopiedPage {
  pieces: Buffer[];
  count: number;
  lastSort: string | null;
  lastId: string | null;
  /** The stream's end: no line follows this page. */
  last: boolean;
}

/**
 * Runs each statement (selecting a line, a sort value and an id, all text) in turn as one `COPY (…) TO STDOUT
 * (FORMAT binary)` on a connection of its own (each COPY reads one snapshot), and yields its lines in pages of
 * exactly `pageRows` lines, the last page the rest (perhaps none). A full page is handed on once a line follows it,
 * so the last page is known to be the last. Leaving the loop early (a cancelled or taken-over export) closes the
 * connection, which stops the COPY on the server.
 */
export async function* copyOutPages(
  databaseUrl: string,
  statements: readonly string[],
  pageRows: number,
): AsyncGenerator<CopiedPage> {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c jit=off' });
  client.on('error', () => {}); // a lost connection fails the COPY in flight, which reports it
  await client.connect();
  let finished = false;
  let page: CopiedPage = { pieces: [], count: 0, lastSort: null, lastId: null, last: false };
  try {
    for (const statement of statements) {
      const reader = new LineCopyReader();
      const stream = client.query(copyTo(`COPY (${statement}) TO STDOUT (FORMAT binary)`));
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        let input: Buffer | null = chunk;
        do {
          if (page.count === pageRows && (input === null || input.length > 0)) {
            // More of the stream is here: the full page is not the last.
            const lines = reader.push(input, pageRows);
            input = null;
            if (lines.count === 0) continue;
            yield page;
            page = {
              pieces: [lines.bytes],
              count: lines.count,
              lastSort: lines.lastSort,
              lastId: lines.lastId,
              last: false,
            };
          } else {
            const lines = reader.push(input, pageRows - page.count);
            input = null;
            if (lines.count > 0) {
              page.pieces.push(lines.bytes);
              page.count += lines.count;
              page.lastSort = lines.lastSort;
              page.lastId = lines.lastId;
            }
          }
        } while (reader.more);
      }
      if (!reader.ended) throw new Error('The COPY stream ended before its trailer');
    }
    finished = true;
  } finally {
    if (finished) await client.end();
    else {
      // The COPY may still be sending: drop the connection rather than read the rest.
      (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      await client.end().catch(() => {});
    }
  }
  yield { ...page, last: true };
}
