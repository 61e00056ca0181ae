import { describe, expect, it } from 'vitest';
import { RunStream } from './run-stream';

async function collect(stream: RunStream, lastEventId?: string): Promise<Array<{ id?: string; event: string; json?: string }>> {
  const seen = [];
  for await (const part of stream.follow(lastEventId)) seen.push({ id: part.id, event: part.event, json: part.json });
  return seen;
}

describe('RunStream', () => {
  it('keeps every part with ids in order, for a join and a rejoin after Last-Event-ID', async () => {
    const stream = new RunStream();
    stream.push('metadata', { run_id: 'r' });
    stream.push('values', { messages: [] });
    stream.push('updates', { model_request: {} });
    stream.end();
    expect((await collect(stream)).map((p) => `${p.id} ${p.event}`)).toEqual(['0 metadata', '1 values', '2 updates']);
    expect((await collect(stream, '1')).map((p) => p.id)).toEqual(['2']);
    expect((await collect(stream, '7')).map((p) => p.id)).toEqual([]);
  });

  it('holds no more than its byte budget: the oldest parts go, ids go on, a rejoin from before them starts at the oldest kept', async () => {
    const stream = new RunStream(1_000);
    const big = { messages: ['x'.repeat(300)] };
    for (let i = 0; i < 10; i++) stream.push('values', big);
    stream.end();
    const kept = await collect(stream);
    expect(kept.map((p) => p.id)).toEqual(['7', '8', '9']);
    expect(kept.reduce((sum, p) => sum + p.json!.length, 0)).toBeLessThanOrEqual(1_000);
    expect((await collect(stream, '2')).map((p) => p.id)).toEqual(['7', '8', '9']);
    expect((await collect(stream, '8')).map((p) => p.id)).toEqual(['9']);
    expect(JSON.parse(kept[0]!.json!)).toEqual(big);
  });

  it('a follower waits for parts pushed later and ends with the run', async () => {
    const stream = new RunStream();
    const following = collect(stream);
    stream.push('metadata', { run_id: 'r' });
    stream.push('values', {});
    stream.end();
    expect((await following).map((p) => p.event)).toEqual(['metadata', 'values']);
  });
});
