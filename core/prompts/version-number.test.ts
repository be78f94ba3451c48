import { formatVersion, nextVersionNumber } from './version-number';

describe('config version numbering', () => {
  it('starts at v1.0 whatever the bump', () => {
    expect(nextVersionNumber(null, 'minor')).toEqual({ major: 1, minor: 0 });
    expect(nextVersionNumber(null, 'major')).toEqual({ major: 1, minor: 0 });
  });

  it('bumps minor and major from the newest version', () => {
    expect(nextVersionNumber({ major: 1, minor: 0 }, 'minor')).toEqual({ major: 1, minor: 1 });
    expect(nextVersionNumber({ major: 1, minor: 9 }, 'minor')).toEqual({ major: 1, minor: 10 });
    expect(nextVersionNumber({ major: 1, minor: 9 }, 'major')).toEqual({ major: 2, minor: 0 });
    expect(nextVersionNumber({ major: 2, minor: 0 }, 'minor')).toEqual({ major: 2, minor: 1 });
  });

  it('formats as vX.Y', () => {
    expect(formatVersion({ major: 3, minor: 12 })).toBe('v3.12');
  });
});
