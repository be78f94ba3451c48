import type { MigrationSet } from '../migrator';
import { identityMigration } from './0001_identity';
import { agentsMigration } from './0002_agents';
import { knowledgeMigration } from './0003_knowledge';
import { agentLifecycleMigration } from './0004_agent_lifecycle';
import { modelsMigration } from './0005_models';
import { chatMigration } from './0006_chat';
import { publicChatMigration } from './0007_public_chat';
import { tokenVersionMigration } from './0012_token_version';
import { signedVariablesMigration } from './0013_signed_variables';
import { userGroupsMigration } from './0015_user_groups';
import { jobsMigration } from './0016_jobs';
import { graphMigration } from './0030_graph';
import { channelsContactsMigration } from './0035_channels_contacts';
import { analyticsMigration } from './0040_analytics';
import { provisioningBuildsMigration } from './0045_provisioning_builds';
import { ssoProvidersMigration } from './0050_sso_providers';
import { contactSearchTrigramsMigration } from './0060_contact_search_trigrams';
import { conversationTakeoverMigration } from './0066_conversation_takeover';
import { analyticsRollupBucketsMigration } from './0068_analytics_rollup_buckets';
import { contactSearchTableMigration } from './0069_contact_search_table';
import { channelAddressIndexMigration } from './0070_channel_address_index';
import { jobLeasesMigration } from './0074_job_leases';
import { channelDeliveriesMigration } from './0075_channel_deliveries';
import { idempotencyKeysMigration } from './0076_idempotency_keys';
import { emailAddressUniqueMigration } from './0077_email_address_unique';
import { ssoLinkStatesMigration } from './0078_sso_link_states';

/** Relational schema: runs on PGlite and on any Postgres. Append new migrations; never edit applied ones. */
export const relationalMigrations: MigrationSet = {
  table: 'knex_migrations',
  migrations: [
    identityMigration,
    agentsMigration,
    knowledgeMigration,
    agentLifecycleMigration,
    modelsMigration,
    chatMigration,
    publicChatMigration,
    userGroupsMigration,
    jobsMigration,
    tokenVersionMigration,
    signedVariablesMigration,
    graphMigration,
    provisioningBuildsMigration,
    channelsContactsMigration,
    ssoProvidersMigration,
    analyticsMigration,
    contactSearchTrigramsMigration,
    conversationTakeoverMigration,
    analyticsRollupBucketsMigration,
    contactSearchTableMigration,
    channelAddressIndexMigration,
    jobLeasesMigration,
    channelDeliveriesMigration,
    idempotencyKeysMigration,
    emailAddressUniqueMigration,
    ssoLinkStatesMigration,
  ].sort((a, b) => a.name.localeCompare(b.name)),
};
