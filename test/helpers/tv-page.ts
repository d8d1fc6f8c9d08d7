import type { Browser, Page } from 'playwright-core';
import { HOUSEHOLD_PASSWORD } from './household.ts';
import { PAGE_STEP_CEILING_MS } from './webchat-page.ts';

const step = { timeout: PAGE_STEP_CEILING_MS };

/** Until the TV page `tv` shows its sign-in code (`ABCD-EFGH`). */
export async function tvCodeShown(tv: Page): Promise<void> {
  await tv
    .locator('#tv-code')
    .filter({ hasText: /^[A-Z]{4}-[A-Z]{4}$/ })
    .waitFor(step);
}

/**
 * A phone (a context of `browser` at phone size) approving the code the TV page `tv` shows: it opens the TV's
 * verification link, signs in as `email` (HOUSEHOLD_PASSWORD), presses "Sign it in" and sees that the TV is
 * signed in; the phone's context is closed after, whatever happened.
 */
export async function approvedOnPhone(browser: Browser, tv: Page, email: string): Promise<void> {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const approval = await phone.newPage();
    await approval.goto((await tv.textContent('#tv-link')) ?? '');
    await approval.fill('#username', email);
    await approval.fill('#password', HOUSEHOLD_PASSWORD);
    await approval.click('button[type="submit"]');
    await approval.getByRole('button', { name: 'Sign it in' }).click(step);
    await approval.getByText('Your TV is signed in').waitFor(step);
  } finally {
    await phone.close();
  }
}
