import { jest } from '@jest/globals';
import { reportOncePer } from './repeat-limited.js';

describe('reportOncePer', () => {
  it('passes the same message of the same context on once per period, and different ones at once', () => {
    const seen: string[] = [];
    let now = 1_000_000;
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const report = reportOncePer(30_000, (error, context) => void seen.push(`${context}: ${error.message}`));
      report(new Error('connect ECONNREFUSED'), 'worker');
      report(new Error('connect ECONNREFUSED'), 'worker');
      report(new Error('connect ECONNREFUSED'), 'queue');
      report(new Error('Connection is closed.'), 'worker');
      now += 29_999;
      report(new Error('connect ECONNREFUSED'), 'worker');
      now += 1;
      report(new Error('connect ECONNREFUSED'), 'worker');
      expect(seen).toEqual([
        'worker: connect ECONNREFUSED',
        'queue: connect ECONNREFUSED',
        'worker: Connection is closed.',
        'worker: connect ECONNREFUSED',
      ]);
    } finally {
      spy.mockRestore();
    }
  });
});
