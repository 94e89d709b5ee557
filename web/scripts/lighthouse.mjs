#!/usr/bin/env node
/**
 * Lighthouse (mobile, the default form factor) against a running server; prints the four category
 * scores per run and their median.
 *
 *   npm run lighthouse -- [URL] [--runs N]        (default http://localhost:8000/, 1 run)
 *
 * Uses the `lighthouse` npm package's CLI with Debian's chromium (FOTOPRONTA_E2E_CHROMIUM or
 * /usr/bin/chromium) and the flags it needs on a closed network. Scores of performance are noisy on a
 * loaded machine: run it a few times. Not part of `make test`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const args = process.argv.slice(2);
let runs = 1;
let url = 'http://localhost:8000/';
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = Number(args[++i]);
  else url = args[i];
}
if (!Number.isInteger(runs) || runs < 1) {
  console.error('--runs vuole un intero ≥ 1');
  process.exit(2);
}

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(webDir, 'node_modules', 'lighthouse', 'cli', 'index.js');
const chromePath = process.env.FOTOPRONTA_E2E_CHROMIUM ?? '/usr/bin/chromium';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fotopronta-lighthouse-'));

const results = [];
for (let run = 1; run <= runs; run++) {
  const out = path.join(tmp, `report-${run}.json`);
  const r = spawnSync(
    process.execPath,
    [cli, url, '--quiet', '--output=json', `--output-path=${out}`, `--only-categories=${CATEGORIES.join(',')}`, `--chrome-flags=${CHROME_FLAGS.join(' ')}`],
    { env: { ...process.env, CHROME_PATH: chromePath }, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (r.status !== 0 || !fs.existsSync(out)) {
    console.error(`lighthouse non riuscito (codice ${r.status})`);
    process.exit(1);
  }
  const report = JSON.parse(fs.readFileSync(out, 'utf8'));
  const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((report.categories[c]?.score ?? 0) * 100)]));
  const lcp = report.audits['largest-contentful-paint']?.displayValue ?? '?';
  const failing = CATEGORIES.filter((c) => c !== 'performance').flatMap((c) =>
    report.categories[c].auditRefs.filter((a) => a.weight > 0 && report.audits[a.id].score !== null && report.audits[a.id].score < 1).map((a) => a.id),
  );
  results.push(scores);
  console.log(
    `run ${run}: performance ${scores.performance} · accessibility ${scores.accessibility} · best practices ${scores['best-practices']} · SEO ${scores.seo} (LCP ${lcp})` +
      (failing.length ? ` — da sistemare: ${failing.join(', ')}` : ''),
  );
}
if (runs > 1) {
  const median = (c) => {
    const v = results.map((r) => r[c]).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)];
  };
  console.log(`mediana: performance ${median('performance')} · accessibility ${median('accessibility')} · best practices ${median('best-practices')} · SEO ${median('seo')}`);
}
fs.rmSync(tmp, { recursive: true, force: true });
