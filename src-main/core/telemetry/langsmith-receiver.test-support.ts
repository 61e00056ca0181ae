// A LangSmith ingest endpoint on 127.0.0.1 for tests: answers the client's `/info` question
// and decodes what it posts to `/runs/multipart` (gzip or plain) and `/runs/batch`.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

type Json = Record<string, unknown>;

export interface WireRun {
  id: string;
  name?: string;
  run_type?: string;
  parent_run_id?: string;
  trace_id?: string;
  dotted_order?: string;
  session_name?: string;
  start_time?: string;
  end_time?: string;
  inputs?: Json;
  outputs?: Json;
  error?: string;
  extra?: { metadata?: Json };
}

export interface LangSmithReceiver {
  url: string;
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }>;
  /** Every run as posted, with its patch applied. */
  runs(): WireRun[];
  close(): Promise<void>;
}

/** A LangSmith ingest endpoint: answers /info, takes /runs/multipart and /runs/batch. */
export async function startLangSmithReceiver(options: { gzip: boolean }): Promise<LangSmithReceiver> {
  const posts = new Map<string, Json>();
  const patches = new Map<string, Json>();
  const requests: LangSmithReceiver['requests'] = [];
  const merge = (into: Map<string, Json>, id: string, value: Json): void => {
    into.set(id, { ...into.get(id), ...value });
  };
  const take = async (path: string, headers: http.IncomingHttpHeaders, raw: Buffer): Promise<void> => {
    let body = raw;
    if (headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
    else if (headers['content-encoding'] === 'zstd') {
      const z = zlib as unknown as { zstdDecompressSync?: (b: Buffer) => Buffer };
      if (!z.zstdDecompressSync) throw new Error('zstd body without zstd support');
      body = z.zstdDecompressSync(body);
    } else if (headers['content-encoding']) throw new Error(`unexpected encoding ${headers['content-encoding']}`);
    if (path === '/runs/batch') {
      const batch = JSON.parse(body.toString('utf8')) as { post?: Json[]; patch?: Json[] };
      for (const run of batch.post ?? []) merge(posts, String(run.id), run);
      for (const run of batch.patch ?? []) merge(patches, String(run.id), run);
      return;
    }
    const form = await new Request('http://receiver/runs/multipart', {
      method: 'POST',
      headers: { 'content-type': String(headers['content-type']) },
      body: new Uint8Array(body),
    }).formData();
    for (const [name, value] of form.entries()) {
      const text = typeof value === 'string' ? value : await value.text();
      const [action, id, field] = name.split('.');
      if ((action !== 'post' && action !== 'patch') || id === undefined) continue;
      const into = action === 'post' ? posts : patches;
      merge(into, id, field === undefined ? (JSON.parse(text) as Json) : { [field]: JSON.parse(text) });
    }
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      requests.push({ method: req.method ?? '', path, headers: req.headers });
      res.setHeader('content-type', 'application/json');
      if (path === '/info') {
        res.end(
          JSON.stringify({
            version: '0.12.0',
            batch_ingest_config: { use_multipart_endpoint: true, size_limit: 100, size_limit_bytes: 20 * 1024 * 1024 },
            instance_flags: { gzip_body_enabled: options.gzip },
          }),
        );
        return;
      }
      take(path, req.headers, Buffer.concat(chunks)).then(
        () => {
          res.statusCode = 202;
          res.end('{}');
        },
        (err: unknown) => {
          res.statusCode = 500;
          res.end(JSON.stringify({ error: String(err) }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    runs: () =>
      [...posts.entries()].map(([id, post]) => {
        const patch = patches.get(id) ?? {};
        const run = { ...post, ...patch } as unknown as WireRun;
        // A patch sends the run's whole `extra` again (metadata set at its end included).
        return { ...run, id };
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
