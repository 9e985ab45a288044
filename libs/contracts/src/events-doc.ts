import type { IntegrationEventContract } from './envelope.js';
import { allContracts, allV2Contracts } from './registry.js';
import { SUBJECT_ROOT, TENET_STREAM } from './subjects.js';
import { SUBJECT_ROOT_V2, TENET_STREAM_V2 } from './workspaces/workspace-events.v2.js';

/**
 * Renders docs/events.md from the contract registry, so the published documentation is the code.
 * A unit test fails when the committed file differs from this output (`npm run events:docs` rewrites it).
 */
/** One standalone JSON Schema file per event, for consumers that do not use TypeScript. */
export function renderSchemaFiles(): Record<string, string> {
  const files = (contracts: readonly IntegrationEventContract[], major: number): [string, string][] =>
    contracts.map((c) => [
      `${c.type}.v${major}.schema.json`,
      `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: `https://tenet.dev/schemas/${c.type}.v${major}.json`, title: c.type, description: c.description, ...c.schema }, null, 2)}\n`,
    ]);
  return Object.fromEntries([...files(allContracts, 1), ...files(allV2Contracts, 2)]);
}

export function renderEventsDoc(): string {
  const lines: string[] = [
    '# Tenet integration events',
    '',
    '<!-- Generated from libs/contracts by `npm run events:docs`. Do not edit by hand. -->',
    '',
    "These are Tenet's published, versioned integration events: the surface to build on. They are JSON",
    'messages on NATS JetStream, published in two majors at once (see *Versions* below):',
    '',
    `- **v2** (current): \`${SUBJECT_ROOT_V2}.<workspace>.<context>.<aggregate id>.<event name>\` in the stream`,
    `  \`${TENET_STREAM_V2}\` (\`${SUBJECT_ROOT_V2}.>\`). The workspace is a subject token, so a workspace's NATS user can be`,
    '  allowed `tenet.v2.<workspace>.>` and nothing else (docs/nats-workspaces.md); the envelope adds `workspace_id`.',
    `- **v1** (deprecated): \`${SUBJECT_ROOT}.<context>.<aggregate id>.<event name>\` in the stream \`${TENET_STREAM}\``,
    `  (\`${SUBJECT_ROOT}.>\`), every workspace's events on the same subjects: for the operator's own services only.`,
    '',
    '## Versions',
    '',
    '- The major version is part of the subject and of the envelope (`version`). A breaking change — a field removed',
    '  or retyped, a subject token added or moved — is a new major on new subjects that old consumers never see;',
    '  additive changes (a new optional field, a new event) keep the major.',
    '- A superseded major is published **beside** its successor from the same event-log relay, event for event',
    '  with the same `id` (each major has its own stream, so each deduplicates on it), for a deprecation window of at',
    '  least two minor releases after the successor ships; its removal is announced in the changelog first. v1 is',
    '  deprecated since v2 (workspace subjects, ADR 0018).',
    '- v2 = v1 + workspace: `tenet.v1.session.s_1.message_created` of workspace `acme` is also published as',
    '  `tenet.v2.acme.session.s_1.message_created`, with `version: 2` and `workspace_id: "acme"`; `data` is identical.',
    '  Resources created before workspaces existed (or in the open embedded mode) are in the workspace `default`.',
    '- With `TENET_NAMESPACE` set (ADR 0014) every subject is prefixed with `<ns>.` and the streams are',
    '  `TENET_V1_<ns>` / `TENET_V2_<ns>`.',
    '',
    '## Common rules',
    '',
    '- **Subjects**: subscribe with wildcards, e.g. `tenet.v2.acme.session.*.message_created` or `tenet.v2.acme.>`.',
    '- **Envelope**: every event carries `id` (the event-log id, also the JetStream `Nats-Msg-Id`, so a',
    "  republished event is dropped by the server's duplicate window), `type`, `version`, `stream` and `offset`",
    '  (its place in the append-only event log), `position` (global order) and `occurred_at`.',
    '- **Delivery** is at least once: the event log is the outbox, and its relay republishes until JetStream',
    '  acknowledges. Consumers should be idempotent on `id` (or on `stream` + `offset`).',
    '- **Publisher**: the event-log relay (`EventLogRelay` in libs/platform/event-store) publishes each event',
    '  appended to a session or usage stream, through `toIntegrationEvent` in libs/contracts, once as v1 and once as',
    "  v2 under the workspace that owns the event's session, agent or customer (`workspaceAnchorOf`).",
    '',
    '| Subject (v2) | Type | Meaning |',
    '| --- | --- | --- |',
    ...allV2Contracts.map((c) => `| \`${c.subjectPattern}\` | \`${c.type}\` v2 | ${c.description} |`),
    '',
    'Each event below is documented in its v1 shape; its v2 shape is the same envelope with `version: 2` and',
    '`workspace_id` added (schema files `<type>.v2.schema.json`), on the v2 subject of the table above.',
    '',
  ];
  for (const contract of allContracts) {
    lines.push(
      `## ${contract.type}`,
      '',
      contract.description,
      '',
      `- Subject: \`${contract.subjectPattern}\` (v1, deprecated); \`${contract.subjectPattern.replace(`${SUBJECT_ROOT}.`, `${SUBJECT_ROOT_V2}.{workspace_id}.`)}\` (v2)`,
      '- Versions: 1, 2',
      `- Schema files: [v1](../libs/contracts/schemas/${contract.type}.v1.schema.json), [v2](../libs/contracts/schemas/${contract.type}.v2.schema.json)`,
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
