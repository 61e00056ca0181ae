// A real OTLP/HTTP trace receiver for tests: a node:http server on 127.0.0.1 that takes what
// an exporter POSTs to /v1/traces (protobuf, gzip or not), decodes the ExportTraceServiceRequest
// with a small protobuf wire-format reader (the fields below, from opentelemetry-proto's
// trace/v1/trace.proto and common/v1/common.proto), and answers 200 with an empty
// ExportTraceServiceResponse. Nothing of the SDK decodes here: what the tests see is what went
// over the wire.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type AttributeValue = string | number | boolean | bigint | Uint8Array | AttributeValue[] | { [key: string]: AttributeValue } | null;

export interface DecodedSpan {
  /** Hex, as the W3C traceparent has them. */
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, AttributeValue>;
  /** code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, AttributeValue>;
  scope: { name: string; version?: string };
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  spanCount: number;
}

export interface OtlpReceiver {
  /** The base URL (`http://127.0.0.1:PORT`), as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans(): DecodedSpan[];
  requests(): ReceivedRequest[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: DecodedSpan[] = [];
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method !== 'POST' || path !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      try {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const decoded = decodeExportTraceServiceRequest(body);
        spans.push(...decoded);
        requests.push({ path, headers: req.headers, spanCount: decoded.length });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(Buffer.alloc(0));
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    requests: () => [...requests],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The exporter keeps its connection alive; close() would wait for it.
        server.closeAllConnections();
      }),
  };
}

// ------------------------------------------------------------------ protobuf wire format

interface Field {
  number: number;
  wireType: number;
  /** varint (as bigint), fixed64/fixed32 (their raw bytes) or length-delimited bytes. */
  varint?: bigint;
  bytes?: Uint8Array;
}

function* fields(buf: Uint8Array): Generator<Field> {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      const byte = buf[pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new Error('varint too long');
    }
  };
  const take = (n: number): Uint8Array => {
    if (pos + n > buf.length) throw new Error('truncated field');
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wireType = key & 7;
    switch (wireType) {
      case 0:
        yield { number, wireType, varint: varint() };
        break;
      case 1:
        yield { number, wireType, bytes: take(8) };
        break;
      case 2:
        yield { number, wireType, bytes: take(Number(varint())) };
        break;
      case 5:
        yield { number, wireType, bytes: take(4) };
        break;
      default:
        throw new Error(`unsupported wire type ${wireType}`);
    }
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const text = (bytes: Uint8Array | undefined): string => utf8.decode(bytes ?? new Uint8Array());
const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('hex');
const fixed64 = (bytes: Uint8Array | undefined): bigint => (bytes ? Buffer.from(bytes).readBigUInt64LE(0) : 0n);
const double = (bytes: Uint8Array | undefined): number => (bytes ? Buffer.from(bytes).readDoubleLE(0) : 0);
/** int64 as a number when it is safe, else as a bigint. */
const int64 = (value: bigint | undefined): number | bigint => {
  const signed = BigInt.asIntN(64, value ?? 0n);
  return signed >= BigInt(Number.MIN_SAFE_INTEGER) && signed <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(signed) : signed;
};

/** ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; } */
export function decodeExportTraceServiceRequest(buf: Uint8Array): DecodedSpan[] {
  const out: DecodedSpan[] = [];
  for (const f of fields(buf)) if (f.number === 1) out.push(...decodeResourceSpans(f.bytes!));
  return out;
}

/** ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; } */
function decodeResourceSpans(buf: Uint8Array): DecodedSpan[] {
  let resource: Record<string, AttributeValue> = {};
  const scopeSpans: Uint8Array[] = [];
  for (const f of fields(buf)) {
    // Resource { repeated KeyValue attributes = 1; }
    if (f.number === 1) resource = keyValues(f.bytes!, 1);
    else if (f.number === 2) scopeSpans.push(f.bytes!);
  }
  return scopeSpans.flatMap((bytes) => decodeScopeSpans(bytes, resource));
}

/** ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; } */
function decodeScopeSpans(buf: Uint8Array, resource: Record<string, AttributeValue>): DecodedSpan[] {
  const scope: DecodedSpan['scope'] = { name: '' };
  const spans: Uint8Array[] = [];
  for (const f of fields(buf)) {
    if (f.number === 1) {
      // InstrumentationScope { string name = 1; string version = 2; }
      for (const s of fields(f.bytes!)) {
        if (s.number === 1) scope.name = text(s.bytes);
        else if (s.number === 2) scope.version = text(s.bytes);
      }
    } else if (f.number === 2) spans.push(f.bytes!);
  }
  return spans.map((bytes) => decodeSpan(bytes, resource, scope));
}

/**
 * Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
 * string name = 5; SpanKind kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
 * repeated KeyValue attributes = 9; … Status status = 15; }
 */
function decodeSpan(buf: Uint8Array, resource: Record<string, AttributeValue>, scope: DecodedSpan['scope']): DecodedSpan {
  const span: DecodedSpan = { traceId: '', spanId: '', name: '', kind: 0, startTimeUnixNano: 0n, endTimeUnixNano: 0n, attributes: {}, status: { code: 0 }, resource, scope };
  for (const f of fields(buf)) {
    switch (f.number) {
      case 1:
        span.traceId = hex(f.bytes);
        break;
      case 2:
        span.spanId = hex(f.bytes);
        break;
      case 4:
        if (f.bytes && f.bytes.length > 0) span.parentSpanId = hex(f.bytes);
        break;
      case 5:
        span.name = text(f.bytes);
        break;
      case 6:
        span.kind = Number(f.varint ?? 0n);
        break;
      case 7:
        span.startTimeUnixNano = fixed64(f.bytes);
        break;
      case 8:
        span.endTimeUnixNano = fixed64(f.bytes);
        break;
      case 9:
        Object.assign(span.attributes, keyValue(f.bytes!));
        break;
      case 15:
        // Status { string message = 2; StatusCode code = 3; }
        for (const s of fields(f.bytes!)) {
          if (s.number === 2) span.status.message = text(s.bytes);
          else if (s.number === 3) span.status.code = Number(s.varint ?? 0n);
        }
        break;
    }
  }
  return span;
}

/** The KeyValues of a message whose field `number` is `repeated KeyValue`. */
function keyValues(buf: Uint8Array, number: number): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const f of fields(buf)) if (f.number === number) Object.assign(out, keyValue(f.bytes!));
  return out;
}

/** KeyValue { string key = 1; AnyValue value = 2; } */
function keyValue(buf: Uint8Array): Record<string, AttributeValue> {
  let key = '';
  let value: AttributeValue = null;
  for (const f of fields(buf)) {
    if (f.number === 1) key = text(f.bytes);
    else if (f.number === 2) value = anyValue(f.bytes!);
  }
  return { [key]: value };
}

/**
 * AnyValue { oneof { string string_value = 1; bool bool_value = 2; int64 int_value = 3;
 * double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
 */
function anyValue(buf: Uint8Array): AttributeValue {
  let value: AttributeValue = null;
  for (const f of fields(buf)) {
    switch (f.number) {
      case 1:
        value = text(f.bytes);
        break;
      case 2:
        value = (f.varint ?? 0n) !== 0n;
        break;
      case 3:
        value = int64(f.varint);
        break;
      case 4:
        value = double(f.bytes);
        break;
      case 5: {
        // ArrayValue { repeated AnyValue values = 1; }
        const items: AttributeValue[] = [];
        for (const item of fields(f.bytes!)) if (item.number === 1) items.push(anyValue(item.bytes!));
        value = items;
        break;
      }
      case 6:
        // KeyValueList { repeated KeyValue values = 1; }
        value = keyValues(f.bytes!, 1);
        break;
      case 7:
        value = new Uint8Array(f.bytes!);
        break;
    }
  }
  return value;
}
