import { whatsappChannel } from '../_shared/whatsapp';

/** The spec's `whatsapp` channel type: the same plugin under its alias (identity and platform whatsapp_business). */
export default whatsappChannel('whatsapp');
