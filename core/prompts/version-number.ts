export interface VersionNumber {
  major: number;
  minor: number;
}

export type BumpType = 'major' | 'minor';

/**
 * Spec 4.3: minor gives vM.(m+1), major gives v(M+1).0, counted from the newest version; an agent's first
 * version is v1.0 whichever bump is asked for.
 */
export function nextVersionNumber(newest: VersionNumber | null, bump: BumpType): VersionNumber {
  if (!newest) return { major: 1, minor: 0 };
  return bump === 'major' ? { major: newest.major + 1, minor: 0 } : { major: newest.major, minor: newest.minor + 1 };
}

export const formatVersion = (v: VersionNumber) => `v${v.major}.${v.minor}`;
