import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Store } from '../ports/store';
import type { PasswordHasher } from './password-hasher';
import type { PasswordPolicy } from './password-policy';
import type { SignInLimits } from './sign-in-limits';
import type { TokenSigner } from './token-claims';

/** The plan a new organization starts on (the organizations area's PlanLimits; identity only hands it over). */
export interface DefaultPlan {
  seats: number;
  agents: number;
  knowledgeBases: number;
}

export interface IdentitySettings {
  initialCreditsUsd: number;
  plan: DefaultPlan;
  superadminEmails: readonly string[];
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
}

export interface IdentityDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  tokens: TokenSigner;
  passwords: PasswordHasher;
  settings: IdentitySettings;
  /** Brute-force and sign-up limits (absent: none, e.g. in unit tests). */
  signInLimits?: SignInLimits;
  /** Length and common-password rules for new passwords (absent: 8 characters minimum). */
  passwordPolicy?: PasswordPolicy;
}

export const ACCESS_TOKEN_SECONDS = 24 * 3600;
export const REFRESH_TOKEN_SECONDS = 7 * 24 * 3600;
