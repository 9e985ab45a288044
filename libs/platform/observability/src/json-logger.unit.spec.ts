import { describe, expect, it, jest } from '@jest/globals';
import { logFormatFrom, startupLoggingFrom, TenetLogger } from './json-logger.js';

function capture(write: () => void): string[] {
  const lines: string[] = [];
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
  try {
    write();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return lines;
}

describe('TenetLogger', () => {
  it('writes one JSON object per line with level, context and service, secrets redacted', () => {
    const logger = new TenetLogger('guideline-matcher', 'json');
    const [line, errorLine] = capture(() => {
      logger.log('provider answered for key sk-abcdefgh12345678', 'LlmProvider');
      logger.error('request failed: Bearer abcdefgh12345678', 'stack with OPENAI_API_KEY=s3cr3t', 'LlmProvider');
    });
    const entry = JSON.parse(line!) as Record<string, unknown>;
    expect(entry).toMatchObject({
      level: 'log',
      context: 'LlmProvider',
      service: 'guideline-matcher',
      message: 'provider answered for key sk-[REDACTED]',
    });
    expect(errorLine).not.toContain('abcdefgh12345678');
    expect(errorLine).not.toContain('s3cr3t');
    expect(JSON.parse(errorLine!)).toMatchObject({ level: 'error', message: 'request failed: Bearer [REDACTED]' });
  });

  it('redacts in text mode too', () => {
    const lines = capture(() => new TenetLogger('tenet', 'text').warn({ apiKey: 'sk-abcdefgh12345678', model: 'gpt-4o-mini' }, 'Config'));
    expect(lines.join('')).toContain('[REDACTED]');
    expect(lines.join('')).not.toContain('sk-abcdefgh12345678');
  });
});

describe('TenetLogger start-up summary', () => {
  const startUp = (logger: TenetLogger): void => {
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('HostModule dependencies initialized', 'InstanceLoader');
    logger.log('AgentsController {/agents}:', 'RoutesResolver');
    logger.log('Mapped {/agents, GET} route', 'RouterExplorer');
    logger.log('Mapped {/agents, POST} route', 'RouterExplorer');
    logger.log('Nest application successfully started', 'NestApplication');
  };

  it("sums Nest's module and route lines up in one line, printed before the next other line", () => {
    const lines = capture(() => startUp(new TenetLogger('tenet', 'json')));
    expect(lines.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual([
      '2 modules initialised, 2 routes in 1 controllers mapped (TENET_LOG_STARTUP=verbose lists them)',
      'Nest application successfully started',
    ]);
  });

  it('prints every line with TENET_LOG_STARTUP=verbose, and refuses other values', () => {
    expect(capture(() => startUp(TenetLogger.fromEnv('tenet', { TENET_LOG_FORMAT: 'json', TENET_LOG_STARTUP: 'verbose' })))).toHaveLength(
      6,
    );
    expect(startupLoggingFrom({})).toBe('summary');
    expect(() => startupLoggingFrom({ TENET_LOG_STARTUP: 'loud' })).toThrow(
      'TENET_LOG_STARTUP must be "summary" or "verbose" (got "loud")',
    );
  });
});

describe('logFormatFrom', () => {
  it('defaults to JSON in production and text elsewhere, and refuses other values', () => {
    expect(logFormatFrom({ NODE_ENV: 'production' })).toBe('json');
    expect(logFormatFrom({})).toBe('text');
    expect(logFormatFrom({ TENET_LOG_FORMAT: 'json' })).toBe('json');
    expect(() => logFormatFrom({ TENET_LOG_FORMAT: 'yaml' })).toThrow('TENET_LOG_FORMAT must be "json" or "text" (got "yaml")');
  });
});
