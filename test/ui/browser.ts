/**
 * Debian's chromium driven by playwright-core (Playwright's own browser downloads are not
 * reachable here), headless, with a fresh profile per launch and nothing that phones home.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT } from '../../tools/src/collector/build';

export const CHROMIUM = process.env.DD_BRIDGE_CHROMIUM ?? '/usr/bin/chromium';
/** Under .cache/ (git-ignored). */
export const SCREENSHOTS = join(REPO_ROOT, '.cache', 'ui-screenshots');

const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  context: BrowserContext;
  page: Page;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'dd-otlp-bridge-chromium-'));
  // headless: true makes playwright pass --headless itself
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1600, height: 1000 } });
  const page = context.pages()[0] ?? (await context.newPage());
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    page,
    async screenshot(name) {
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path });
      return path;
    },
    close: () => context.close(),
  };
}
