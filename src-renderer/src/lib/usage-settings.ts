// Settings › Prices and Settings › Telemetry as a draft (SPEC §17): the prices per
// `provider:model` as rows of text fields, the budget per thread and the OTLP endpoint as
// typed, and what Save sends for each (or why it cannot). Pure: unit-tested on its own.

import type { ModelPriceSetting, TelemetrySettings } from '../../../src-main/app/contract';

/** One price as typed: USD per million tokens, each a field of text. */
export interface PriceRow {
  /** A key for React only (never saved). */
  key: string;
  model: string;
  input: string;
  output: string;
  cacheRead: string;
  cacheWrite: string;
}

let counter = 0;

const PROVIDER_MODEL = /^[a-z][a-z0-9-]*:\S.*$/i;

/** A row for `Add price`: for `model` (the model in use, when it is named as provider:model and has no row yet), else empty. */
export function emptyPriceRow(model = '', rows: readonly PriceRow[] = []): PriceRow {
  counter += 1;
  const named = PROVIDER_MODEL.test(model.trim()) && !rows.some((r) => r.model.trim() === model.trim()) ? model.trim() : '';
  return { key: `price-${counter}`, model: named, input: '', output: '', cacheRead: '', cacheWrite: '' };
}

function amountText(value: number | undefined): string {
  return value === undefined ? '' : String(value);
}

/** The saved prices as rows, by model name. */
export function pricesToRows(prices: Readonly<Record<string, ModelPriceSetting>> | undefined): PriceRow[] {
  return Object.entries(prices ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([model, price]) => ({
      key: `saved-${model}`,
      model,
      input: amountText(price.input),
      output: amountText(price.output),
      cacheRead: amountText(price.cacheRead),
      cacheWrite: amountText(price.cacheWrite),
    }));
}

/** A price field: a number of dollars, 0 or more (`,` taken as the decimal point); null when it is not one. */
function amount(text: string): number | null {
  const t = text.trim().replace(/^\$/, '').replace(',', '.');
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** The rows as settings.update's `prices`, or what is wrong with them (rows left empty are dropped). */
export function rowsToPrices(rows: readonly PriceRow[]): { prices: Record<string, ModelPriceSetting> } | { error: string } {
  const prices: Record<string, ModelPriceSetting> = {};
  for (const row of rows) {
    const model = row.model.trim();
    if (model === '' && [row.input, row.output, row.cacheRead, row.cacheWrite].every((t) => t.trim() === '')) continue;
    if (!PROVIDER_MODEL.test(model)) return { error: `A price is for a model named as provider:model (e.g. openai:gpt-4o), not “${model || 'nothing'}”.` };
    if (prices[model] !== undefined) return { error: `${model} has two prices: keep one.` };
    const input = amount(row.input);
    const output = amount(row.output);
    if (input === null || output === null) return { error: `The price of ${model} needs its input and output prices, in US dollars per million tokens.` };
    const price: ModelPriceSetting = { input, output };
    for (const field of ['cacheRead', 'cacheWrite'] as const) {
      if (row[field].trim() === '') continue;
      const value = amount(row[field]);
      if (value === null) return { error: `The ${field === 'cacheRead' ? 'cache read' : 'cache write'} price of ${model} is not an amount in US dollars.` };
      price[field] = value;
    }
    prices[model] = price;
  }
  return { prices };
}

/** Whether two sets of rows say the same (their React keys aside). */
export function sameRows(a: readonly PriceRow[], b: readonly PriceRow[]): boolean {
  const text = (rows: readonly PriceRow[]): string => JSON.stringify(rows.map(({ key: _key, ...rest }) => rest));
  return text(a) === text(b);
}

/** The budget field: null clears the budget; a number above 0 sets it; else what is wrong. */
export function budgetFromText(text: string): { budget: number | null } | { error: string } {
  const t = text.trim().replace(/^\$/, '');
  if (t === '') return { budget: null };
  const n = amount(t);
  if (n === null || n <= 0) return { error: 'The budget per thread must be an amount in US dollars above 0 (or empty for none).' };
  return { budget: n };
}

/** Settings' telemetry from the endpoint typed and the checkbox, or what is wrong with the endpoint. */
export function telemetryFromDraft(endpoint: string, captureContent: boolean): { telemetry: TelemetrySettings } | { error: string } {
  const url = endpoint.trim();
  if (url !== '') {
    const protocol = URL.canParse(url) ? new URL(url).protocol : null;
    if (protocol !== 'http:' && protocol !== 'https:') {
      return { error: 'The OTLP endpoint must be an http:// or https:// address (e.g. http://localhost:4318), or empty.' };
    }
  }
  return { telemetry: { ...(url !== '' ? { otlpEndpoint: url } : {}), captureContent } };
}

/** The most runs at once Settings takes (the contract's bound). */
export const MAX_RUNS_AT_ONCE = 64;

/** `Runs at once`: null goes back to the default; a whole number from 1 to 64 sets it; else what is wrong. */
export function runsFromText(text: string): { runs: number | null } | { error: string } {
  const t = text.trim();
  if (t === '') return { runs: null };
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_RUNS_AT_ONCE) return { error: `Runs at once must be a whole number from 1 to ${MAX_RUNS_AT_ONCE} (or empty for the default).` };
  return { runs: n };
}
