import { describe, expect, it } from 'vitest';
import { median } from '../statistics.ts';

describe('median', () => {
  it('takes the median of an odd and of an even number of values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });

  it('leaves the values it is given in their order', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});
