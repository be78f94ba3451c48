/**
 * Handler types come from the contract schemas (contracts/schema-type.ts). The type assertions below are
 * checked by `npm run typecheck` (part of `npm test`); the runtime part checks that a value the type accepts
 * is one the schema accepts.
 */
import Ajv from 'ajv';

import type { SchemaType } from '../../contracts/schema-type';
import { grantBody } from '../../contracts/schemas/agents';
import { chatBody } from '../../contracts/schemas/chat';

type ChatBody = SchemaType<typeof chatBody>;
type GrantBody = SchemaType<typeof grantBody>;

const chat: ChatBody = {
  message: 'How long do refunds take?',
  stream: false,
  includeVoice: false,
  attachments: [{ id: 'a', accessToken: 't' }],
};
// @ts-expect-error message is required
const noMessage: ChatBody = { stream: false, includeVoice: false };
// @ts-expect-error attachments are {id, accessToken} objects
const badAttachment: ChatBody = { message: 'x', stream: false, includeVoice: false, attachments: ['a'] };
// @ts-expect-error a permission is one of the enum's values
const badGrant: GrantBody = { permissions: ['fly'] };
const grant: GrantBody = { permissions: ['read', 'edit'] };

describe('schema-derived handler types', () => {
  it('accept what the schemas accept, and the schemas refuse what the types refuse', () => {
    const ajv = new Ajv({ strict: false, useDefaults: true });
    expect(ajv.validate(chatBody, structuredClone(chat))).toBe(true);
    expect(ajv.validate(grantBody, grant)).toBe(true);
    for (const refused of [noMessage, badAttachment]) expect(ajv.validate(chatBody, structuredClone(refused))).toBe(false);
    expect(ajv.validate(grantBody, badGrant)).toBe(false);
  });
});
