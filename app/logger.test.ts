import { runWithRequestContext } from '../adapters/observability/request-context';
import { DomainError } from '../core/shared/errors';
import { createLogger } from './logger';

function capture(level: Parameters<typeof createLogger>[0]) {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }) };
}

describe('createLogger', () => {
  it('writes one JSON line per event with the level name, the time, the message and the fields of an object', () => {
    const { lines, log } = capture('info');
    log('info', 'request', { method: 'GET', status: 200 });
    log('debug', 'not written at info');
    expect(lines).toEqual([
      { level: 'info', t: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), message: 'request', method: 'GET', status: 200 },
    ]);
  });

  it('names the request (and job) of the work a line belongs to', () => {
    const { lines, log } = capture('info');
    runWithRequestContext({ requestId: 'req-1', jobId: 'job-1', queue: 'knowledge.ingest' }, () => log('warn', 'inside'));
    log('info', 'outside');
    expect(lines[0]).toMatchObject({ message: 'inside', requestId: 'req-1', jobId: 'job-1', queue: 'knowledge.ingest' });
    expect(lines[1]).not.toHaveProperty('requestId');
  });

  it('gives an error its message and code, and the stack only on warn and error lines', () => {
    const { lines, log } = capture('debug');
    const error = new DomainError('VALIDATION', 'The file is not a PDF');
    log('info', 'ingest failed', error);
    log('error', 'unexpected', new Error('boom'));
    log('info', 'a list', [1, 2]);
    expect(lines[0]).toEqual(expect.objectContaining({ error: 'The file is not a PDF', code: 'VALIDATION' }));
    expect(lines[0]).not.toHaveProperty('stack');
    expect(lines[1]).toEqual(expect.objectContaining({ level: 'error', error: 'boom', stack: expect.stringContaining('Error: boom') }));
    expect(lines[2]).toMatchObject({ extra: [1, 2] });
  });
});
