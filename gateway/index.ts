export { createGateway, type Gateway } from './create-gateway';
export { gatewayOptionsSchema, type GatewayOptions, type GatewayLimits, type RateLimitRule } from './gateway-options';
export type { Upstream } from './upstream-forwarder';
export { IDENTITY_HEADERS } from '../adapters/http/identity-signature';
