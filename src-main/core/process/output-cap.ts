// Caps command output at a byte budget, keeping its head and its tail with a marker line
// between them. Text is written incrementally; memory stays bounded however much arrives:
// the head is kept until full, then only a rolling tail.

export const DEFAULT_MAX_OUTPUT_BYTES = 100_000;

/** Room kept for the marker line (and a status note) so a capped result stays within the budget. */
const MARKER_RESERVE = 256;

export interface CappedText {
  text: string;
  truncated: boolean;
  /** Bytes cut from the middle (0 when not truncated). */
  omittedBytes: number;
}

export function truncationMarker(omittedBytes: number): string {
  return `[... ${omittedBytes} bytes of output truncated; redirect the output to a file and read it in parts to see it all ...]`;
}

export class OutputCap {
  private readonly maxBytes: number;
  private readonly headCap: number;
  /** Tail bytes shown when the output is cut (the marker needs room too). */
  private readonly tailShown: number;
  /** Tail bytes held: enough to give the whole output back when it fits in maxBytes. */
  private readonly tailHeld: number;
  private head: Buffer[] = [];
  private headLen = 0;
  private tail: Buffer[] = [];
  private tailLen = 0;
  private total = 0;

  /** headRatio: the share of the budget kept from the start (the rest comes from the end). */
  constructor(maxBytes: number = DEFAULT_MAX_OUTPUT_BYTES, headRatio = 0.4) {
    this.maxBytes = Math.max(64, maxBytes);
    const budget = this.maxBytes > 4 * MARKER_RESERVE ? this.maxBytes - MARKER_RESERVE : this.maxBytes;
    this.headCap = Math.floor(budget * headRatio);
    this.tailShown = budget - this.headCap;
    this.tailHeld = this.maxBytes - this.headCap;
  }

  get totalBytes(): number {
    return this.total;
  }

  write(text: string): void {
    if (text.length === 0) return;
    let buf = Buffer.from(text, 'utf8');
    this.total += buf.length;
    if (this.headLen < this.headCap) {
      const take = Math.min(buf.length, this.headCap - this.headLen);
      this.head.push(buf.subarray(0, take));
      this.headLen += take;
      buf = buf.subarray(take);
    }
    if (buf.length === 0) return;
    this.tail.push(buf);
    this.tailLen += buf.length;
    if (this.tailLen > 2 * this.tailHeld || this.tail.length > 4096) this.compactTail();
  }

  finish(): CappedText {
    const head = Buffer.concat(this.head);
    this.compactTail();
    const held = this.tail[0] ?? Buffer.alloc(0);
    if (this.total <= this.maxBytes) {
      return { text: Buffer.concat([head, held]).toString('utf8'), truncated: false, omittedBytes: 0 };
    }
    const tail = held.subarray(Math.max(0, held.length - this.tailShown));
    const headEnd = cutHead(head);
    const tailStart = cutTail(tail);
    const headText = head.subarray(0, headEnd).toString('utf8');
    const tailText = tail.subarray(tailStart).toString('utf8');
    const omittedBytes = this.total - headEnd - (tail.length - tailStart);
    const sep = headText.length === 0 || headText.endsWith('\n') ? '' : '\n';
    return { text: `${headText}${sep}${truncationMarker(omittedBytes)}\n${tailText}`, truncated: true, omittedBytes };
  }

  private compactTail(): void {
    if (this.tail.length === 0) return;
    const all = this.tail.length === 1 ? (this.tail[0] as Buffer) : Buffer.concat(this.tail);
    // Copy, so the big buffers the tail was sliced from can be collected.
    const kept = all.length > this.tailHeld ? Buffer.from(all.subarray(all.length - this.tailHeld)) : all;
    this.tail = [kept];
    this.tailLen = kept.length;
  }
}

/** Caps a whole text at once. */
export function capText(text: string, maxBytes: number = DEFAULT_MAX_OUTPUT_BYTES, headRatio = 0.4): CappedText {
  const cap = new OutputCap(maxBytes, headRatio);
  cap.write(text);
  return cap.finish();
}

/** Where to end the head: after its last newline when that is near the end, else on a character boundary. */
function cutHead(head: Buffer): number {
  const nl = head.lastIndexOf(0x0a);
  if (nl !== -1 && nl + 1 >= head.length * 0.75) return nl + 1;
  let end = head.length;
  // Back off from a cut inside a multi-byte character.
  let back = 0;
  while (back < 4 && end - back - 1 >= 0 && ((head[end - back - 1] as number) & 0xc0) === 0x80) back++;
  const lead = head[end - back - 1];
  if (lead !== undefined && lead >= 0xc0 && utf8Length(lead) > back + 1) end = end - back - 1;
  return end;
}

/** Where to start the tail: after its first newline when that is near the start, else on a character boundary. */
function cutTail(tail: Buffer): number {
  const nl = tail.indexOf(0x0a);
  if (nl !== -1 && nl + 1 <= tail.length * 0.25) return nl + 1;
  let start = 0;
  while (start < tail.length && start < 4 && ((tail[start] as number) & 0xc0) === 0x80) start++;
  return start;
}

function utf8Length(lead: number): number {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  return 2;
}
