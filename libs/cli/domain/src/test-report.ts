import type { ExpectationResult } from './scenarios.js';

/** One run of one scenario: per turn, the customer's message and its expectations' results (or the run's error). */
export interface ScenarioRun {
  turns: { customer: string; results: ExpectationResult[] }[];
  /** The run could not be carried out (server error, timeout): every repeat counts it as a failure. */
  error?: string;
  durationMs: number;
}

export interface ScenarioOutcome {
  file: string;
  name: string;
  runs: ScenarioRun[];
}

/** One expectation across the repeats of its scenario. */
export interface ExpectationTally {
  turn: number;
  customer: string;
  label: string;
  passed: number;
  runs: number;
  /** The first failure's explanation. */
  detail?: string;
}

export function tally(outcome: ScenarioOutcome): ExpectationTally[] {
  const byKey = new Map<string, ExpectationTally>();
  for (const run of outcome.runs) {
    run.turns.forEach((turn, index) => {
      for (const result of turn.results) {
        const key = `${index}\u0000${result.label}`;
        const entry = byKey.get(key) ?? { turn: index + 1, customer: turn.customer, label: result.label, passed: 0, runs: 0 };
        entry.runs += 1;
        if (result.passed) entry.passed += 1;
        else entry.detail ??= result.detail;
        byKey.set(key, entry);
      }
    });
  }
  return [...byKey.values()];
}

export const scenarioPassed = (outcome: ScenarioOutcome): boolean =>
  outcome.runs.every((r) => r.error === undefined) && tally(outcome).every((t) => t.passed === t.runs && t.runs === outcome.runs.length);

/** The report a person reads: each scenario PASS/FAIL, failed and flaky expectations with what happened instead. */
export function renderReport(outcomes: readonly ScenarioOutcome[]): string {
  const lines: string[] = [];
  for (const outcome of outcomes) {
    const passed = scenarioPassed(outcome);
    const repeats = outcome.runs.length;
    lines.push(`${passed ? 'PASS' : 'FAIL'} ${outcome.name} (${outcome.file})${repeats > 1 ? ` ×${repeats}` : ''}`);
    for (const [index, run] of outcome.runs.entries()) if (run.error) lines.push(`  run ${index + 1}: ${run.error}`);
    for (const t of tally(outcome)) {
      if (t.passed === t.runs && t.runs === repeats) continue;
      const rate = repeats > 1 ? ` — passed ${t.passed}/${repeats}${t.passed > 0 ? ' (flaky)' : ''}` : '';
      lines.push(`  turn ${t.turn} "${t.customer}": ${t.label}${rate}${t.detail ? `\n      ${t.detail}` : ''}`);
    }
  }
  const failed = outcomes.filter((o) => !scenarioPassed(o)).length;
  lines.push(`${outcomes.length - failed} passed, ${failed} failed, ${outcomes.length} scenarios`);
  return lines.join('\n');
}

const xml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML (one testsuite per scenario file, one testcase per scenario) for CI test reports. */
export function renderJunit(outcomes: readonly ScenarioOutcome[]): string {
  const files = [...new Set(outcomes.map((o) => o.file))];
  const suites = files.map((file) => {
    const cases = outcomes.filter((o) => o.file === file);
    const failures = cases.filter((o) => !scenarioPassed(o)).length;
    const seconds = (ms: number): string => (ms / 1000).toFixed(3);
    const body = cases.map((o) => {
      const time = seconds(o.runs.reduce((sum, r) => sum + r.durationMs, 0));
      if (scenarioPassed(o)) return `    <testcase classname="${xml(file)}" name="${xml(o.name)}" time="${time}"/>`;
      const failed = tally(o).filter((t) => t.passed < o.runs.length);
      const message = [
        ...o.runs.flatMap((r) => (r.error ? [r.error] : [])),
        ...failed.map((t) => `turn ${t.turn}: ${t.label} (passed ${t.passed}/${o.runs.length})`),
      ].join('; ');
      const text = failed.map((t) => `turn ${t.turn} "${t.customer}": ${t.label}${t.detail ? ` — ${t.detail}` : ''}`).join('\n');
      return `    <testcase classname="${xml(file)}" name="${xml(o.name)}" time="${time}">\n      <failure message="${xml(message)}">${xml(text)}</failure>\n    </testcase>`;
    });
    return `  <testsuite name="${xml(file)}" tests="${cases.length}" failures="${failures}" errors="0">\n${body.join('\n')}\n  </testsuite>`;
  });
  const total = outcomes.length;
  const failures = outcomes.filter((o) => !scenarioPassed(o)).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="tenet test" tests="${total}" failures="${failures}">\n${suites.join('\n')}\n</testsuites>\n`;
}
