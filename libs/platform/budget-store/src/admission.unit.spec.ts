import { admit } from './admission.js';

describe('admit', () => {
  it('admits while the estimate fits beside calls in flight, never a call larger than what is left, and nothing once spent', () => {
    expect(admit({ used: 0, reserved: 0 }, 100, 500)).toEqual({ decision: 'exhausted' });
    expect(admit({ used: 60, reserved: 0 }, 100, 41)).toEqual({ decision: 'exhausted' });
    expect(admit({ used: 60, reserved: 0 }, 100, 40)).toEqual({ decision: 'admit' });
    expect(admit({ used: 10, reserved: 40 }, 100, 50)).toEqual({ decision: 'admit' });
    expect(admit({ used: 10, reserved: 40 }, 100, 51)).toEqual({ decision: 'wait' });
    expect(admit({ used: 100, reserved: 0 }, 100, 1)).toEqual({ decision: 'exhausted' });
  });
});
