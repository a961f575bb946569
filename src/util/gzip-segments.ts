import { promisify } from 'node:util';
import { constants, crc32, deflateRaw } from 'node:zlib';

const deflateRawAsync = promisify(deflateRaw);

/** A gzip member's header (RFC 1952): deflate, no name, no time, unknown system. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** An empty final deflate block (fixed Huffman, end of block only), after a flush left the stream byte-aligned. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** What a file written in segments carries from one segment to the next: the CRC-32 and length so far. */
export interface GzipProgress {
  crc: number;
  bytes: number;
}

export const GZIP_START: GzipProgress = { crc: 0, bytes: 0 };

/**
 * One segment of a gzip file written a part at a time, each part compressed on its own and stored apart: the first
 * carries the header, the last the final block and the trailer, so the segments in order are ONE gzip member. Each
 * part is its own deflate stream flushed to a byte boundary without ending it (Z_SYNC_FLUSH), which a decoder reads
 * as blocks of one stream. One member rather than one member per part, because some decoders (browsers among them)
 * stop after the first member of a file.
 *
 * The progress after the part (its CRC-32 and length) is known at once and the compressed bytes come later, off the
 * event loop's thread: a writer can start the next part's compression while this one is still being stored.
 */
export function gzipSegment(
  text: string | Buffer,
  progress: GzipProgress,
  place: { first: boolean; last: boolean },
): { data: Promise<Buffer>; progress: GzipProgress } {
  const raw = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const next = { crc: crc32(raw, progress.crc) >>> 0, bytes: progress.bytes + raw.length };
  // The fastest level: an export's CSV compresses to about a quarter either way (level 6 gains ~5 % of the size for
  // twice the CPU), and the time goes to the export (docs/api.md#export-jobs). One output buffer as large as the
  // input: with zlib's default 16 KiB output chunks, each chunk is a round trip between its thread and the event loop.
  const body = deflateRawAsync(raw, {
    finishFlush: constants.Z_SYNC_FLUSH,
    level: constants.Z_BEST_SPEED,
    chunkSize: Math.max(constants.Z_DEFAULT_CHUNK, raw.length + 64),
  });
  const data = body.then((deflated) => {
    const parts = [...(place.first ? [GZIP_HEADER] : []), deflated];
    if (place.last) {
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(next.crc, 0);
      trailer.writeUInt32LE(next.bytes % 2 ** 32, 4);
      parts.push(FINAL_BLOCK, trailer);
    }
    return Buffer.concat(parts);
  });
  return { data, progress: next };
}
