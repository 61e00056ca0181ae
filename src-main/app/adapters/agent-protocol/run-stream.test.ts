import { describe, expect, it } from 'vitest';
import { KeptPartsBudget, RunStream } from './run-stream';

async function collect(stream: RunStream, lastEventId?: string): Promise<Array<{ id?: string; event: string; json?: string }>> {
  const seen = [];
  for await (const part of stream.follow(lastEventId)) seen.push({ id: part.id, event: part.event, json: part.json });
  return seen;
}

const ids = async (stream: RunStream, lastEventId?: string) => (await collect(stream, lastEventId)).map((p) => p.id);

describe('RunStream', () => {
  it('keeps every part with ids in order, for a join and a rejoin after Last-Event-ID', async () => {
    const stream = new RunStream(new KeptPartsBudget(1_000_000));
    stream.push('metadata', { run_id: 'r' });
    stream.push('values', { messages: [] });
    stream.push('updates', { model_request: {} });
    stream.end();
    expect((await collect(stream)).map((p) => `${p.id} ${p.event}`)).toEqual(['0 metadata', '1 values', '2 updates']);
    expect(await ids(stream, '1')).toEqual(['2']);
    expect(await ids(stream, '7')).toEqual([]);
  });

  it('holds no more than its byte budget: the oldest parts go, ids go on, a rejoin from before them starts at the oldest kept', async () => {
    const budget = new KeptPartsBudget(1_000);
    const stream = new RunStream(budget);
    const big = { messages: ['x'.repeat(300)] };
    for (let i = 0; i < 10; i++) stream.push('values', big);
    stream.end();
    const kept = await collect(stream);
    expect(kept.map((p) => p.id)).toEqual(['7', '8', '9']);
    expect(budget.bytes).toBeLessThanOrEqual(1_000);
    expect(await ids(stream, '2')).toEqual(['7', '8', '9']);
    expect(await ids(stream, '8')).toEqual(['9']);
    expect(JSON.parse(kept[0]!.json!)).toEqual(big);
  });

  it('counts bytes as sent (UTF-8), not UTF-16 units', () => {
    const budget = new KeptPartsBudget(10_000);
    const stream = new RunStream(budget);
    stream.push('values', 'é'.repeat(1_000));
    expect(budget.bytes).toBe(Buffer.byteLength(JSON.stringify('é'.repeat(1_000))));
  });

  it('one budget across runs: the oldest ended runs lose their parts first, a going run keeps its newest', async () => {
    const budget = new KeptPartsBudget(2_000);
    const part = 'x'.repeat(400);
    const [first, second, going] = [new RunStream(budget), new RunStream(budget), new RunStream(budget)];
    first.push('values', part);
    first.push('values', part);
    second.push('values', part);
    second.push('values', part);
    second.end();
    first.end(); // ended after `second`: its parts are kept longer
    going.push('values', part);
    expect(budget.bytes).toBeLessThanOrEqual(2_000);
    expect(await ids(second)).toEqual(['1']);
    expect(await ids(first)).toEqual(['0', '1']);
    for (let i = 0; i < 6; i++) going.push('values', part);
    expect(budget.bytes).toBeLessThanOrEqual(2_000);
    expect(await ids(second)).toEqual([]);
    expect(await ids(first)).toEqual([]);
    going.end();
    expect((await ids(going)).length).toBe(4);
    going.dispose();
    expect(budget.bytes).toBe(0);
  });

  it('serves a bounded number of followers at once; one that ends frees its place', async () => {
    const stream = new RunStream(new KeptPartsBudget(1_000_000), 2);
    const a = stream.follow(undefined)[Symbol.asyncIterator]();
    stream.follow(undefined);
    expect(() => stream.follow(undefined)).toThrow(/2 stream followers/);
    await a.return!();
    expect(() => stream.follow(undefined)).not.toThrow();
  });

  it('builds the last state only when it is read', () => {
    const stream = new RunStream(new KeptPartsBudget(1_000));
    let built = 0;
    stream.lastFrom(() => ({ n: ++built }));
    stream.lastFrom(() => ({ n: ++built }));
    expect(built).toBe(0);
    expect(stream.last).toEqual({ n: 1 });
    expect(stream.last).toEqual({ n: 1 });
  });

  it('a follower waits for parts pushed later and ends with the run', async () => {
    const stream = new RunStream(new KeptPartsBudget(1_000_000));
    const following = collect(stream);
    stream.push('metadata', { run_id: 'r' });
    stream.push('values', {});
    stream.end();
    expect((await following).map((p) => p.event)).toEqual(['metadata', 'values']);
  });
});
