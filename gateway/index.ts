export { createGateway, type Gateway } from './create-gateway';
export { type GatewayLimits, type GatewayOptions, gatewayOptionsSchema, type RateLimitRule } from './gateway-options';
export { drainable, type ServerDrain } from './server-drain';
export type { Upstream } from './upstream-forwarder';
