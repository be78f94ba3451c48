export { IDENTITY_HEADERS } from '../core/identity/gateway-signature';
export { createGateway, type Gateway } from './create-gateway';
export { type GatewayLimits, type GatewayOptions, gatewayOptionsSchema, type RateLimitRule } from './gateway-options';
export type { Upstream } from './upstream-forwarder';
