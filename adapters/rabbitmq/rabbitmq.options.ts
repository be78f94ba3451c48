import Ajv from 'ajv';
import type { ChannelModel } from 'amqplib';

import type { Clock } from '../../core/ports/clock';
import { DomainError } from '../../core/shared/errors';

export interface RabbitMqOptions {
  /** amqp:// or amqps:// URL, e.g. amqp://guest:guest@127.0.0.1:5672 */
  url: string;
  /** Namespace of every queue and exchange this platform declares: `<prefix>.<queue>`, `<prefix>.events`. */
  prefix: string;
}

export const rabbitmqOptionsSchema = {
  $id: 'rabbitmq-options',
  type: 'object',
  additionalProperties: false,
  required: ['url', 'prefix'],
  properties: {
    url: { type: 'string', pattern: '^amqps?://', minLength: 8, description: 'amqp:// or amqps:// broker URL' },
    prefix: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9_:-]*(\\.[A-Za-z0-9_:-]+)*$',
      maxLength: 100,
      description: 'Namespace of queue and exchange names',
    },
  },
} as const;

export interface RabbitMqLogger {
  info?(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

/** Injected collaborators; everything is optional. */
export interface RabbitMqDeps {
  /** Opens a connection (defaults to amqplib's `connect`). Tests pass their own to observe or break the transport. */
  connect?: (url: string) => Promise<ChannelModel>;
  logger?: RabbitMqLogger;
  /** Job ids when `jobId` is not given; defaults to `crypto.randomUUID`. */
  newId?: () => string;
  /** `emittedAt` of published events; defaults to the system clock. */
  clock?: Clock;
}

let compiled: ReturnType<Ajv['compile']> | undefined;

/** Throws one VALIDATION error listing every problem (url, prefix). */
export function validateRabbitMqOptions(options: unknown): RabbitMqOptions {
  compiled ??= new Ajv({ allErrors: true }).compile(rabbitmqOptionsSchema);
  if (!compiled(options)) {
    const problems = (compiled.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
    throw new DomainError('VALIDATION', `Invalid RabbitMQ options: ${problems.join('; ')}`, problems);
  }
  return options as RabbitMqOptions;
}

export const consoleLogger: RabbitMqLogger = {
  info: (message, details) => console.info(message, details ?? ''),
  warn: (message, details) => console.warn(message, details ?? ''),
  error: (message, details) => console.error(message, details ?? ''),
};

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Hides the password of a broker URL for logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
}
