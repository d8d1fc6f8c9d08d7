import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** How far the page is wider than its window, in CSS pixels (0: no horizontal scroll). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - width;
  });
}

/**
 * axe-core's serious and critical violations on the page as it is now, one line each (rule, impact and
 * the first offending elements). axe runs through the debugging protocol, so the page's CSP, which admits
 * no other script, does not stop it.
 */
export async function seriousAccessibilityProblems(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: object,
          ): Promise<{
            violations: Array<{ id: string; impact?: string; nodes: Array<{ target: unknown[] }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? '',
      targets: violation.nodes.slice(0, 3).map((node) => JSON.stringify(node.target)),
    }));
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.targets.join(' ')}`);
}
