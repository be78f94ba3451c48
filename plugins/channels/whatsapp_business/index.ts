import { whatsappChannel } from '../_shared/whatsapp';

export default whatsappChannel('whatsapp_business');
