import { describe, expect, it } from 'vitest';
import { budgetFromText, emptyPriceRow, pricesToRows, rowsToPrices, runsFromText, sameRows, telemetryFromDraft, type PriceRow } from './usage-settings';

const row = (fields: Partial<PriceRow>): PriceRow => ({ ...emptyPriceRow(), ...fields });

describe('Add price', () => {
  it('starts with the model in use, unless it has a row already or is not named as provider:model', () => {
    expect(emptyPriceRow('openai-compatible:local ')).toMatchObject({ model: 'openai-compatible:local', input: '', output: '' });
    expect(emptyPriceRow('openai-compatible:local', [row({ model: 'openai-compatible:local' })]).model).toBe('');
    expect(emptyPriceRow('', []).model).toBe('');
    expect(emptyPriceRow('gpt-4o').model).toBe('');
    expect(emptyPriceRow('a:b').key).not.toBe(emptyPriceRow('a:b').key);
  });
});

describe('Settings › Prices', () => {
  it('shows the saved prices as rows, by model', () => {
    const rows = pricesToRows({ 'openai:b': { input: 1, output: 2 }, 'anthropic:a': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } });
    expect(rows.map(({ key: _key, ...r }) => r)).toEqual([
      { model: 'anthropic:a', input: '3', output: '15', cacheRead: '0.3', cacheWrite: '3.75' },
      { model: 'openai:b', input: '1', output: '2', cacheRead: '', cacheWrite: '' },
    ]);
    expect(pricesToRows(undefined)).toEqual([]);
  });

  it('saves the rows as prices, dropping empty ones and the cache prices left empty', () => {
    const rows = [row({ model: ' openai-compatible:scripted-model ', input: '1000', output: '$2,5' }), row({}), row({ model: 'anthropic:x', input: '3', output: '15', cacheRead: '.3' })];
    expect(rowsToPrices(rows)).toEqual({
      prices: { 'openai-compatible:scripted-model': { input: 1000, output: 2.5 }, 'anthropic:x': { input: 3, output: 15, cacheRead: 0.3 } },
    });
    expect(rowsToPrices([])).toEqual({ prices: {} });
  });

  it('says what is wrong: a model not named provider:model, two prices for one, a missing or wrong amount', () => {
    expect(rowsToPrices([row({ model: 'gpt-4o', input: '1', output: '2' })])).toEqual({ error: 'A price is for a model named as provider:model (e.g. openai:gpt-4o), not “gpt-4o”.' });
    expect(rowsToPrices([row({ input: '1' })])).toEqual({ error: 'A price is for a model named as provider:model (e.g. openai:gpt-4o), not “nothing”.' });
    expect(rowsToPrices([row({ model: 'a:b', input: '1', output: '2' }), row({ model: 'a:b', input: '1', output: '2' })])).toEqual({ error: 'a:b has two prices: keep one.' });
    expect(rowsToPrices([row({ model: 'a:b', input: '1' })])).toEqual({ error: 'The price of a:b needs its input and output prices, in US dollars per million tokens.' });
    expect(rowsToPrices([row({ model: 'a:b', input: '-1', output: '2' })])).toHaveProperty('error');
    expect(rowsToPrices([row({ model: 'a:b', input: '1', output: '2', cacheWrite: 'lots' })])).toEqual({ error: 'The cache write price of a:b is not an amount in US dollars.' });
  });

  it('compares rows by what they say, not by their keys', () => {
    expect(sameRows([row({ model: 'a:b' })], [row({ model: 'a:b' })])).toBe(true);
    expect(sameRows([row({ model: 'a:b' })], [row({ model: 'a:c' })])).toBe(false);
    expect(sameRows([], [row({})])).toBe(false);
  });
});

describe('Settings › Prices: budget per thread', () => {
  it('empty clears it; an amount above 0 sets it; anything else is refused', () => {
    expect(budgetFromText('  ')).toEqual({ budget: null });
    expect(budgetFromText('0.5')).toEqual({ budget: 0.5 });
    expect(budgetFromText('$2')).toEqual({ budget: 2 });
    expect(budgetFromText('0')).toHaveProperty('error');
    expect(budgetFromText('ten')).toHaveProperty('error');
  });
});

describe('Settings › Telemetry', () => {
  it('takes an http(s) endpoint or none, with the content switch', () => {
    expect(telemetryFromDraft(' http://localhost:4318 ', true)).toEqual({ telemetry: { otlpEndpoint: 'http://localhost:4318', captureContent: true } });
    expect(telemetryFromDraft('', false)).toEqual({ telemetry: { captureContent: false } });
    expect(telemetryFromDraft('localhost:4318', false)).toHaveProperty('error');
    expect(telemetryFromDraft('ftp://collector', false)).toHaveProperty('error');
  });
});

describe('runsFromText', () => {
  it('takes a whole number from 1 to 64, and empty for the default', () => {
    expect(runsFromText('')).toEqual({ runs: null });
    expect(runsFromText(' 4 ')).toEqual({ runs: 4 });
    expect(runsFromText('1')).toEqual({ runs: 1 });
    expect(runsFromText('64')).toEqual({ runs: 64 });
    for (const wrong of ['0', '65', '2.5', '-1', 'four', '1e2']) expect(runsFromText(wrong), wrong).toHaveProperty('error');
  });
});
