/**
 * The system's Chromium, driven by puppeteer-core, for the tests that open ttg's pages (the live
 * dashboard, the HTML report) and for scripts/screenshots.mjs. No browser is ever downloaded: when
 * none is found, launching fails and says how to install one.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const INSTALL = 'run scripts/install-system-packages.sh (Debian\'s chromium) or set TTG_CHROMIUM to a Chromium or Chrome';

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The browser to run: `TTG_CHROMIUM`, else /usr/bin/chromium, else `chromium` on PATH. */
export function findChromium(): string {
  const given = process.env['TTG_CHROMIUM'];
  if (given !== undefined && given !== '') {
    if (!executable(given)) throw new Error(`TTG_CHROMIUM=${given} is not an executable: ${INSTALL}`);
    return given;
  }
  const candidates = ['/usr/bin/chromium', ...(process.env['PATH'] ?? '').split(delimiter).filter((d) => d !== '').map((d) => join(d, 'chromium'))];
  const found = candidates.find(executable);
  if (found === undefined) throw new Error(`no Chromium found (TTG_CHROMIUM, /usr/bin/chromium, chromium on PATH): ${INSTALL}`);
  return found;
}

/**
 * Launches Chromium headless. Without its sandbox: the tests run as root (where Chromium refuses
 * the sandbox) and in containers without the namespaces it needs; it only opens our own pages.
 */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox'] });
}

/** The few members of a canvas that {@link streamInk} uses (the project compiles without the DOM library). */
interface Canvas {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}

/**
 * What tasks drew on a canvas: its colored pixels, and the share of its columns holding one. Run
 * in the page (puppeteer sends its source, so it uses nothing from outside itself). Colored, not
 * merely not blank, because the page draws its lanes and labels in grays and its tasks in colors.
 */
export function streamInk(c: Canvas): { pixels: number; columns: number } {
  const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
  const inked = new Set<number>();
  let pixels = 0;
  for (let i = 0; i < d.length; i += 4) {
    const [r, g, b, a] = [d[i]!, d[i + 1]!, d[i + 2]!, d[i + 3]!];
    if (a > 128 && Math.max(r, g, b) - Math.min(r, g, b) > 40) {
      pixels++;
      inked.add((i / 4) % c.width);
    }
  }
  return { pixels, columns: inked.size / c.width };
}

/** A page expression: {@link streamInk} of the dashboard's `canvas#stream`. */
export const STREAM_INK = `(${streamInk.toString()})(document.querySelector('canvas#stream'))`;

/**
 * Waits until the page expression `expr` is truthy; on timeout fails with `what` and the text the
 * page shows then (a bare puppeteer timeout says neither).
 */
export async function until(page: Page, expr: string, what: string, timeout = 20_000): Promise<void> {
  try {
    await page.waitForFunction(expr, { polling: 100, timeout });
  } catch (e) {
    const shown = await page.evaluate('document.body ? document.body.innerText : ""').catch(() => '(page gone)');
    throw new Error(`${what}: not within ${timeout} ms (${(e as Error).message}); the page shows:\n${String(shown)}`);
  }
}

/** The cells' texts of the rows matching `selector` (e.g. `#tts tbody tr`). */
export function rowTexts(page: Page, selector: string): Promise<string[][]> {
  return page.$$eval(selector, (rows) => rows.map((r) => [...(r as unknown as { cells: Iterable<{ textContent: string | null }> }).cells].map((c) => (c.textContent ?? '').trim())));
}
