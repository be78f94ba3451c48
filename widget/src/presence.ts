/** What the visitor sees for each operator-presence event (spec 6; names in core/public-chat/presence.ts). */
interface PresenceEvent {
  type: string;
  operator?: { displayName?: string };
  message?: string;
  messageId?: string;
  typing?: boolean;
}

export interface OperatorNotice {
  /** The status line's new text ('' clears it); undefined leaves it. */
  status?: string;
  message?: { id: string; from: string; text: string };
  takenOver?: boolean;
}

export function presenceNotice(event: PresenceEvent): OperatorNotice {
  const name = event.operator?.displayName || 'A team member';
  switch (event.type) {
    case 'operator.joined':
      return { status: `${name} from the team joined the conversation.` };
    case 'operator.left':
      return { status: `${name} left the conversation.` };
    case 'operator.typing':
      return { status: event.typing === false ? '' : `${name} is typing\u2026` };
    case 'operator.message':
      return event.message && event.messageId ? { status: '', message: { id: event.messageId, from: name, text: event.message } } : {};
    case 'conversation.takeover':
      return { status: `${name} (a person from the team) has taken over this conversation.`, takenOver: true };
    case 'conversation.released':
      return { status: 'The assistant is answering again.', takenOver: false };
    default:
      return {};
  }
}
