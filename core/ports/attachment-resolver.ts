/** What chat reads of an uploaded attachment: its extracted text. */
export interface ResolvedAttachment {
  id: string;
  filename: string;
  mimeType: string;
  /** Extracted text (empty when the file has none, e.g. an image without a describer). */
  text: string;
}

/**
 * Looks up an attachment uploaded through the public attachment endpoint (spec 4.5) by id and its per-upload
 * access token, within the agent it was uploaded to. Returns null when the id is unknown, belongs to another
 * agent, or the token does not match (callers answer 400). Implemented in the core by
 * core/attachments/attachment-resolver.ts over the store, so it has no DI token.
 */
export interface AttachmentResolver {
  resolve(ref: { organizationId: string; agentId: string; id: string; accessToken: string }): Promise<ResolvedAttachment | null>;
}
