/**
 * For the plain-node bench scripts that start a built process (module-trace.mjs, http-docs-dump.mjs): resolves once
 * `GET /healthz` on `port` answers 200; fails when the process exits first or after 120 s.
 */
export async function waitForHealthz(child, port, label, pollMs) {
  for (const started = Date.now(); ;) {
    if (child.exitCode !== null) throw new Error(`${label} exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() - started > 120_000) throw new Error(`${label} not healthy after 120 s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
