// Slash commands in the message box (SPEC §11): a list as you type `/`, completing a command,
// a built-in carried out with a note, and an unknown command told in one line, never sent.
import { describe, expect, it } from 'vitest';
import { conversation, openApp, useE2ESession } from './harness';

const e2e = useE2ESession();

describe('slash commands in the window', () => {
  it('typing / lists the commands; Tab completes; /mode plan switches the mode; an unknown one is refused', { timeout: 60_000 }, async () => {
    const serve = await e2e.serve();
    const page = await openApp(e2e.browser, serve.url);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.click();
    await box.pressSequentially('/');
    const list = page.getByRole('listbox', { name: 'Commands' });
    await list.waitFor();
    await expect.poll(() => list.getByRole('option').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('/compact'), expect.stringContaining('/clear')]));

    await box.pressSequentially('mod');
    await expect.poll(() => list.getByRole('option').count()).toBe(2);
    await box.press('ArrowDown');
    await box.press('Tab');
    await expect.poll(() => box.inputValue()).toBe('/mode ');
    await box.pressSequentially('plan');
    await box.press('Enter');
    await expect.poll(() => page.getByRole('combobox', { name: 'Mode' }).inputValue()).toBe('plan');
    await page.getByText('Mode: plan').waitFor();

    await box.fill('/frobnicate');
    await box.press('Enter');
    await conversation(page).getByText('unknown command /frobnicate: type / to see the commands', { exact: false }).waitFor();
    expect(serve.model.requests).toHaveLength(0);
  });
});
