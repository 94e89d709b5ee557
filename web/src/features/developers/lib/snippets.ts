/** The quickstart snippets of the 'Sviluppatori' page, with the seller's own base URL and key. */

export type SnippetLanguage = 'curl' | 'python' | 'javascript';

export const SNIPPET_LABELS: Record<SnippetLanguage, string> = { curl: 'curl', python: 'Python', javascript: 'JavaScript' };

/**
 * The quickstart in `language`: start a job from a file with an Idempotency-Key, read its status and
 * download the result. `baseUrl` is the site's origin (no trailing slash), `key` the secret (just
 * created) or a placeholder naming the key's prefix.
 */
export function quickstart(language: SnippetLanguage, baseUrl: string, key: string): string {
  const api = `${baseUrl}/v1`;
  switch (language) {
    case 'curl':
      return [
        `export FOTOPRONTA_KEY="${key}"`,
        `# avvia un lavoro (la stessa Idempotency-Key su un nuovo invio non crea un secondo lavoro)`,
        `curl -s ${api}/jobs \\`,
        `  -H "Authorization: Bearer $FOTOPRONTA_KEY" \\`,
        `  -H "Idempotency-Key: sku-1234-v1" \\`,
        `  -F image_file=@scarpa.jpg -F external_id=SKU-1234`,
        `# stato del lavoro e risultato`,
        `curl -s ${api}/jobs/ID_DEL_LAVORO -H "Authorization: Bearer $FOTOPRONTA_KEY"`,
        `curl -s -o risultato.png "${api}/jobs/ID_DEL_LAVORO/result?format=png" \\`,
        `  -H "Authorization: Bearer $FOTOPRONTA_KEY"`,
      ].join('\n');
    case 'python':
      return [
        'import time, uuid, httpx',
        '',
        `api = httpx.Client(base_url="${api}", headers={"Authorization": "Bearer ${key}"})`,
        'with open("scarpa.jpg", "rb") as f:',
        '    job = api.post("/jobs", files={"image_file": f}, data={"external_id": "SKU-1234"},',
        '                   headers={"Idempotency-Key": str(uuid.uuid4())}).raise_for_status().json()',
        'while job["status"] not in ("succeeded", "failed", "rejected", "cancelled"):',
        '    time.sleep(2)',
        '    job = api.get(f"/jobs/{job[\'id\']}").json()',
        'if job["status"] == "succeeded":',
        '    risultato = api.get(f"/jobs/{job[\'id\']}/result", params={"format": "png"})',
        '    open("scarpa-pronta.png", "wb").write(risultato.content)',
      ].join('\n');
    case 'javascript':
      return [
        `const headers = { Authorization: "Bearer ${key}", "Idempotency-Key": crypto.randomUUID() };`,
        'const form = new FormData();',
        'form.append("image_file", fileInput.files[0]);',
        `let job = await (await fetch("${api}/jobs", { method: "POST", headers, body: form })).json();`,
        'while (!["succeeded", "failed", "rejected", "cancelled"].includes(job.status)) {',
        '  await new Promise((r) => setTimeout(r, 2000));',
        `  job = await (await fetch(\`${api}/jobs/\${job.id}\`, { headers })).json();`,
        '}',
      ].join('\n');
  }
}

/** The placeholder shown in the snippets when the secret is not at hand: the key's prefix and dots. */
export const keyPlaceholder = (prefix: string | undefined) => (prefix ? `${prefix}…` : 'fp_live_…');
