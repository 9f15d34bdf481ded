import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './001-initial.ts';
import * as signingKeys from './002-signing-keys.ts';
import * as platform from './003-platform.ts';
import * as revokedTokens from './004-revoked-tokens.ts';
import * as publicListingIndexes from './005-public-listing-indexes.ts';
import * as passwordFailures from './006-password-failures.ts';
import * as clientLastUsed from './007-client-last-used.ts';
import * as clientRegistration from './008-client-registration.ts';
import * as lessonProgress from './010-lesson-progress.ts';
import * as webhooks from './011-webhooks.ts';
import * as idempotencyKeys from './012-idempotency-keys.ts';
import * as deviceAuthorizations from './013-device-authorizations.ts';
import * as consentEnd from './014-consent-end.ts';
import * as activity from './015-activity.ts';
import * as analyticsCounters from './016-analytics-counters.ts';
import * as passwordChecksInFlight from './017-password-checks-in-flight.ts';
import * as openClientCount from './018-open-client-count.ts';

/** Migrations in order. Add new ones at the end; never edit a landed one. */
const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-signing-keys': signingKeys,
  '003-platform': platform,
  '004-revoked-tokens': revokedTokens,
  '005-public-listing-indexes': publicListingIndexes,
  '006-password-failures': passwordFailures,
  '007-client-last-used': clientLastUsed,
  '008-client-registration': clientRegistration,
  '010-lesson-progress': lessonProgress,
  '011-webhooks': webhooks,
  '012-idempotency-keys': idempotencyKeys,
  '013-device-authorizations': deviceAuthorizations,
  '014-consent-end': consentEnd,
  '015-activity': activity,
  '016-analytics-counters': analyticsCounters,
  '017-password-checks-in-flight': passwordChecksInFlight,
  '018-open-client-count': openClientCount,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
