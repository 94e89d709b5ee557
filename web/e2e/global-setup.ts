import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BASE_URL_ENV, CHROMIUM_PATH, REPO_ROOT, RESULTS_DIR, STACK_DB_ENV, STACK_ENV } from './paths';

const HEALTH_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 90_000;

/** The kernel's ephemeral port range (source ports of outgoing connections, `listen(0)` ports). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // not Linux: assume the usual range
  }
  return [32768, 60999];
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `n` distinct TCP ports free on 127.0.0.1, chosen below the ephemeral range (as `infra/ports.py`
 * does): a port from `listen(0)` can be taken, between our check and the server's bind, by the source
 * port of any outgoing connection or by the Temporal dev server's own random ports. That race once made
 * the Temporal Web UI fail to start in CI.
 */
async function freePorts(n: number): Promise<number[]> {
  const lowest = 15_000;
  const highest = Math.max(ephemeralRange()[0] - 1, lowest + 1_000);
  const ports: number[] = [];
  for (let attempt = 0; ports.length < n && attempt < 500; attempt++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (!ports.includes(port) && (await isFree(port))) ports.push(port);
  }
  if (ports.length < n) throw new Error(`nessuna porta libera tra ${lowest} e ${highest}`);
  return ports;
}

function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(nessun log)';
  }
}

/** Polls `url` until it answers 200; fails early when the stack process exits. */
async function waitHealthy(url: string, stack: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (stack.exitCode !== null || stack.signalCode !== null) {
      throw new Error(`infra.devstack è terminato (codice ${stack.exitCode ?? stack.signalCode}):\n${tail(log)}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} non ha risposto 200 entro ${HEALTH_TIMEOUT_MS / 1000} s:\n${tail(log)}`);
}

/** SIGINT (devstack's Ctrl-C: it stops every child it started), then wait for the exit. */
async function stopStack(stack: ChildProcess): Promise<void> {
  if (stack.exitCode !== null || stack.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => stack.once('exit', () => resolve()));
  stack.kill('SIGINT');
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS).unref());
  if ((await Promise.race([exited, timer])) === 'timeout') {
    console.error(`infra.devstack non si è fermato entro ${STOP_TIMEOUT_MS / 1000} s: SIGKILL`);
    stack.kill('SIGKILL');
    await exited;
  }
}

/**
 * Starts the real stack (`python -m infra.devstack` from the repository root) on free ports with a
 * fresh temporary data directory, waits for `GET /healthz` = 200 and returns the teardown, which stops
 * the stack, keeps its logs in `web/test-results/stack-logs/` and deletes the data directory.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const python = path.join(REPO_ROOT, '.venv', 'bin', 'python');
  for (const [file, hint] of [
    [python, 'make install'],
    [path.join(REPO_ROOT, 'web', 'dist', 'index.html'), 'make web'],
    [CHROMIUM_PATH, 'make browser'],
  ]) {
    if (!fs.existsSync(file)) throw new Error(`${file} non trovato: esegui prima \`${hint}\` (o \`make e2e\`).`);
  }

  const [apiPort, postgresPort, temporalPort, temporalUiPort] = await freePorts(4);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fotopronta-e2e-'));
  const baseURL = `http://127.0.0.1:${apiPort}`;
  // Only our FOTOPRONTA_* values: an engineer's shell settings must not point the tests at their stack.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOTOPRONTA_')));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    PYTHONUNBUFFERED: '1',
    FOTOPRONTA_ENVIRONMENT: 'development',
    FOTOPRONTA_DATA_DIR: dataDir,
    FOTOPRONTA_API_HOST: '127.0.0.1',
    FOTOPRONTA_API_PORT: String(apiPort),
    // No FOTOPRONTA_PUBLIC_URL: as in `make dev`, links follow the address the browser uses.
    FOTOPRONTA_POSTGRES_PORT: String(postgresPort),
    FOTOPRONTA_TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    FOTOPRONTA_TEMPORAL_UI_PORT: String(temporalUiPort),
    FOTOPRONTA_U2NET_HOME: path.join(REPO_ROOT, '.data', 'models'),
    FOTOPRONTA_MAIL_BACKEND: 'outbox',
    FOTOPRONTA_PAYMENT_PROVIDER: 'test',
  };
  const log = path.join(dataDir, 'devstack.log');
  const out = fs.openSync(log, 'a');
  const stack = spawn(python, ['-m', 'infra.devstack'], { cwd: REPO_ROOT, env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const started = Date.now();

  const teardown = async () => {
    await stopStack(stack);
    const keep = path.join(RESULTS_DIR, 'stack-logs');
    fs.mkdirSync(keep, { recursive: true });
    fs.cpSync(log, path.join(keep, 'devstack.log'));
    if (fs.existsSync(path.join(dataDir, 'logs'))) fs.cpSync(path.join(dataDir, 'logs'), keep, { recursive: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await waitHealthy(`${baseURL}/healthz`, stack, log);
  } catch (error) {
    await teardown();
    throw error;
  }
  console.log(`FotoPronta e2e: stack pronto su ${baseURL} in ${Math.round((Date.now() - started) / 1000)} s (dati in ${dataDir})`);
  process.env[BASE_URL_ENV] = baseURL;
  // for tests that write rows directly, as the stack tests do (e2e/stack-db.ts)
  process.env[STACK_DB_ENV] = JSON.stringify({ FOTOPRONTA_DATA_DIR: dataDir, FOTOPRONTA_POSTGRES_PORT: String(postgresPort) });
  // staff.spec.ts creates admins and designers in this stack's database (python -m …, see staff-helpers.ts)
  process.env[STACK_ENV] = JSON.stringify({
    FOTOPRONTA_ENVIRONMENT: 'development',
    FOTOPRONTA_DATA_DIR: dataDir,
    FOTOPRONTA_POSTGRES_PORT: String(postgresPort),
    FOTOPRONTA_TEMPORAL_ADDRESS: env.FOTOPRONTA_TEMPORAL_ADDRESS,
  });
  return teardown;
}
