import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM } from './global-setup.ts';

/** Debian's Chromium, started the way this machine allows (no background networking, no sandbox as root). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const haveChromium = existsSync(CHROMIUM);

/** Says out loud when a browser test file is skipped (never in CI, where global setup fails first). */
export function noteSkippedBrowserTests(file: string): void {
  if (!haveChromium && process.env.CI !== 'true') console.warn(`\n[lyceum tests] ${CHROMIUM} not found: ${file} is SKIPPED.\n`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
