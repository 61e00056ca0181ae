// The host's outcome from the reviewer's answer (SPEC §23) and what is redacted from its input.
import { describe, expect, it } from 'vitest';
import { withholdFromCommands } from '../../process/app-secrets';
import { scrubSecrets as redact } from '../../process/scrub-secrets';
import { reviewOutcome } from './review-outcome';

const answer = (decision: string, risk: string, authorization: string) => ({ decision, risk, authorization, category: 'other', rationale: ' why ' });

describe('the outcome the host derives', () => {
  it('critical is denied; high only with medium or high authorization; otherwise the decision stands; the stricter wins', () => {
    const cases: Array<[string, string, string, string]> = [
      ['allow', 'critical', 'high', 'deny'],
      ['allow', 'high', 'low', 'deny'],
      ['allow', 'high', 'none', 'deny'],
      ['allow', 'high', 'medium', 'allow'],
      ['allow', 'medium', 'none', 'allow'],
      ['deny', 'low', 'high', 'deny'],
    ];
    for (const [decision, risk, authorization, outcome] of cases) expect(reviewOutcome(answer(decision, risk, authorization))?.decision, `${decision} ${risk} ${authorization}`).toBe(outcome);
    expect(reviewOutcome(answer('allow', 'low', 'high'))?.rationale).toBe('why');
  });

  it('an answer outside the schema is none at all', () => {
    expect(reviewOutcome(undefined)).toBeNull();
    expect(reviewOutcome({ ...answer('allow', 'low', 'high'), category: 'fine' })).toBeNull();
    expect(reviewOutcome({ decision: 'allow' })).toBeNull();
  });
});

describe('redaction', () => {
  it('takes out the keys Deepdesk holds, KEY=value assignments and credentials in URLs', () => {
    withholdFromCommands('held-key-value-123456');
    const text = redact('use held-key-value-123456; export GITHUB_TOKEN=ghp_abc and DB_PASSWORD="p w"; curl https://user:pass@example.com/x');
    expect(text).not.toMatch(/held-key-value|ghp_abc|p w|user:pass/);
    expect(text).toContain('GITHUB_TOKEN=[redacted]');
    expect(text).toContain('https://[redacted]@example.com/x');
  });
});
