import { allContracts } from './registry.js';
import { SUBJECT_ROOT, TENET_STREAM } from './subjects.js';

/**
 * Renders docs/events.md from the contract registry, so the published documentation is the code.
 * A unit test fails when the committed file differs from this output (`npm run events:docs` rewrites it).
 */
/** One standalone JSON Schema file per event, for consumers that do not use TypeScript. */
export function renderSchemaFiles(): Record<string, string> {
  return Object.fromEntries(
    allContracts.map((c) => [
      `${c.type}.v1.schema.json`,
      `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: `https://tenet.dev/schemas/${c.type}.v1.json`, title: c.type, description: c.description, ...c.schema }, null, 2)}\n`,
    ]),
  );
}

export function renderEventsDoc(): string {
  const lines: string[] = [
    '# Tenet integration events',
    '',
    '<!-- Generated from libs/contracts by `npm run events:docs`. Do not edit by hand. -->',
    '',
    "These are Tenet's published, versioned integration events: the surface to build on. They are JSON",
    `messages on NATS JetStream, in the stream \`${TENET_STREAM}\` which captures \`${SUBJECT_ROOT}.>\`.`,
    '',
    '- **Subjects** follow `tenet.v<major>.<context>.<aggregate id>.<event name>`. A breaking change gets a new',
    '  major version and so a new subject; additive changes keep it. Subscribe with wildcards, e.g.',
    '  `tenet.v1.session.*.message_created` or `tenet.v1.>`.',
    '- **Envelope**: every event carries `id` (the event-log id, also the JetStream `Nats-Msg-Id`, so a',
    '  republished event is dropped by the server\'s duplicate window), `type`, `version`, `stream` and `offset`',
    '  (its place in the append-only event log), `position` (global order) and `occurred_at`.',
    '- **Delivery** is at least once: the event log is the outbox, and its relay republishes until JetStream',
    '  acknowledges. Consumers should be idempotent on `id` (or on `stream` + `offset`).',
    '- **Publisher**: the event-log relay (`EventLogRelay` in libs/platform/event-store) publishes each event',
    '  appended to a session or usage stream, through `toIntegrationEvent` in libs/contracts.',
    '',
    '| Subject | Type | Meaning |',
    '| --- | --- | --- |',
    ...allContracts.map((c) => `| \`${c.subjectPattern}\` | \`${c.type}\` v1 | ${c.description} |`),
    '',
  ];
  for (const contract of allContracts) {
    lines.push(
      `## ${contract.type}`,
      '',
      contract.description,
      '',
      `- Subject: \`${contract.subjectPattern}\``,
      '- Version: 1',
      `- Schema file: [libs/contracts/schemas/${contract.type}.v1.schema.json](../libs/contracts/schemas/${contract.type}.v1.schema.json)`,
      '',
      'Example:',
      '',
      '```json',
      JSON.stringify(contract.example, null, 2),
      '```',
      '',
      '<details><summary>JSON Schema</summary>',
      '',
      '```json',
      JSON.stringify(contract.schema, null, 2),
      '```',
      '',
      '</details>',
      '',
    );
  }
  return lines.join('\n');
}
