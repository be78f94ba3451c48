/**
 * Spec 8 limits of one chat message, declared once: the chat pipeline checks them (every entry point,
 * channels included) and the contract schemas of the chat endpoints are built from them.
 */
export const CHAT_LIMITS = {
  messageChars: 10_000,
  systemPromptChars: 10_000,
  attachments: 5,
  variables: 100,
  variableChars: 10_000,
} as const;
