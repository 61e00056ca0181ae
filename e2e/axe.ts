// The accessibility audit of the end-to-end tests: axe-core run inside the page, with the
// WCAG 2.0–2.2 A/AA rules, reporting the serious and critical violations.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// Evaluated as source rather than added as a <script>: the window's CSP (script-src 'self')
// rightly refuses an inline script, and the audit must not weaken it.
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] as const;

/** One failing rule, with the elements it failed on (selector and axe's summary). */
export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: string; summary: string }>;
}

/** The serious and critical violations of the WCAG A/AA rules in the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async (tags) => {
    interface AxeResult {
      violations: Array<{ id: string; impact?: string | null; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string; any: Array<{ relatedNodes?: Array<{ target: unknown[] }> }> }> }>;
    }
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<AxeResult> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? '',
        help: v.help,
        nodes: v.nodes.map((n) => {
          const related = n.any.flatMap((check) => check.relatedNodes ?? []).map((r) => r.target.map(String).join(' '));
          const summary = (n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300);
          return { target: n.target.map(String).join(' '), summary: related.length > 0 ? `${summary} (near ${related.slice(0, 3).join(', ')})` : summary };
        }),
      }));
  }, [...WCAG_TAGS]);
}

/** The violations as lines a failing test prints (rule, impact, then each element). */
export function describeViolations(violations: readonly AxeViolation[]): string {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `  ${n.target} — ${n.summary}`).join('\n')}`).join('\n');
}

export const THEMES = ['light', 'dark'] as const;
export const AUDIT_SIZES = [
  [1400, 900],
  [1024, 700],
] as const;

/**
 * Runs the audit in both themes (the window follows the system's, `theme: 'system'`) and at
 * both sizes, without reloading, and returns the findings of each by `<theme> <w>×<h>`.
 */
export async function auditEveryWay(page: Page, settle: () => Promise<void> = async () => {}): Promise<Record<string, AxeViolation[]>> {
  const found: Record<string, AxeViolation[]> = {};
  for (const [width, height] of AUDIT_SIZES) {
    await page.setViewportSize({ width, height });
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      await settle();
      const violations = await seriousViolations(page);
      if (violations.length > 0) found[`${theme} ${width}×${height}`] = violations;
    }
  }
  return found;
}
