/** Reads an SSE response until its first data frame and returns when it arrived (performance.now()). */
export async function firstFrame(res: Response): Promise<number> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error('stream ended before a frame');
    text += decoder.decode(value, { stream: true });
    if (text.includes('\ndata: ') || text.startsWith('data: ')) {
      const at = performance.now();
      await reader.cancel();
      return at;
    }
  }
}
