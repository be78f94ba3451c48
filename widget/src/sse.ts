/**
 * Reads `data: <json>` frames from a fetch body as they arrive. EventSource cannot POST, and the chat answer is
 * a POST, so the stream is parsed here; comments (`: ping`) and other fields are ignored.
 */
export async function readSse(res: Response, onFrame: (data: unknown) => void): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value, { stream: !done });
    let end: number;
    while ((end = frameEnd(buffer)) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^(\r?\n){2}/, '');
      const data = frame
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) onFrame(JSON.parse(data));
    }
    if (done) return;
  }
}

function frameEnd(buffer: string): number {
  const lf = buffer.indexOf('\n\n');
  const crlf = buffer.indexOf('\r\n\r\n');
  if (lf < 0) return crlf;
  return crlf < 0 ? lf : Math.min(lf, crlf);
}
