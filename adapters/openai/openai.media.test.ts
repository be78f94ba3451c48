import OpenAI from 'openai';

import { FakeOpenAi, openAiErrorBody } from '../../test/fakes/fake-openai';
import { OpenAiImageDescriber, openAiImageDescriberOptionsSchema, parseDescription } from './openai.image-describer';
import { OpenAiSpeechSynthesizer, openAiSpeechSynthesizerOptionsSchema } from './openai.speech-synthesizer';
import { OpenAiTranscriber, openAiTranscriberOptionsSchema } from './openai.transcriber';

describe('OpenAI media adapters against a fake OpenAI API', () => {
  const fake = new FakeOpenAi();
  beforeAll(() => fake.start());
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());
  const client = () => new OpenAI({ apiKey: 'sk-test', baseURL: fake.baseURL, maxRetries: 0 });

  describe('OpenAiTranscriber', () => {
    it('uploads the audio as multipart with whisper-1 and verbose_json, and returns text and duration', async () => {
      const transcriber = new OpenAiTranscriber({ apiKey: 'sk-test', client: client(), language: 'en' });
      expect(transcriber.model).toBe('openai/whisper-1');
      const result = await transcriber.transcribe(Buffer.from('RIFF....WAVEfmt '), { mimeType: 'audio/wav', filename: 'call.wav' });
      expect(result).toEqual({ text: 'Hello from the recording.', durationSeconds: 3.5 });
      const request = fake.last();
      expect(request.path).toBe('/v1/audio/transcriptions');
      expect(String(request.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
      const body = request.body.toString('latin1');
      expect(body).toContain('filename="call.wav"');
      expect(body).toContain('Content-Type: audio/wav');
      expect(body).toContain('RIFF....WAVEfmt ');
      expect(body).toMatch(/name="model"\r\n\r\nwhisper-1\r\n/);
      expect(body).toMatch(/name="response_format"\r\n\r\nverbose_json\r\n/);
      expect(body).toMatch(/name="language"\r\n\r\nen\r\n/);
    });

    it('asks gpt-4o transcribe models for plain json', async () => {
      fake.replyOnce({ json: { text: 'Short.' } });
      const transcriber = new OpenAiTranscriber({ apiKey: 'sk-test', client: client(), model: 'gpt-4o-mini-transcribe' });
      expect(await transcriber.transcribe(Buffer.from('x'), { mimeType: 'audio/mpeg', filename: 'a.mp3' })).toEqual({ text: 'Short.' });
      expect(fake.last().body.toString('latin1')).toMatch(/name="response_format"\r\n\r\njson\r\n/);
    });

    it('maps provider errors', async () => {
      fake.replyOnce({ status: 429, json: openAiErrorBody('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota') });
      const transcriber = new OpenAiTranscriber({ apiKey: 'sk-test', client: client() });
      await expect(transcriber.transcribe(Buffer.from('x'), { mimeType: 'audio/wav', filename: 'a.wav' })).rejects.toMatchObject({
        code: 'PROVIDER_LIMIT_REACHED',
      });
    });
  });

  describe('OpenAiImageDescriber', () => {
    it('sends the image as a data URL to a vision chat and reads caption and visible text', async () => {
      fake.reply = '```json\n{"caption": "A receipt on a table.", "text": "TOTAL 12.50\\nThank you"}\n```';
      const describer = new OpenAiImageDescriber({ apiKey: 'sk-test', client: client() });
      expect(describer.model).toBe('openai/gpt-4o-mini');
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
      expect(await describer.describe(png, { mimeType: 'image/png' })).toEqual({
        caption: 'A receipt on a table.',
        text: 'TOTAL 12.50\nThank you',
      });
      const body = fake.last().json;
      expect(body.model).toBe('gpt-4o-mini');
      expect(body.max_completion_tokens).toBe(1000);
      expect(body.messages[1].content[1]).toEqual({
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${png.toString('base64')}` },
      });
    });

    it('keeps a reply that is not JSON as the caption', () => {
      expect(parseDescription('A cat sleeping on a sofa.')).toEqual({ caption: 'A cat sleeping on a sofa.', text: '' });
      expect(parseDescription('{not json}')).toEqual({ caption: '{not json}', text: '' });
    });

    it('maps provider errors', async () => {
      fake.replyOnce({ status: 503, json: openAiErrorBody('overloaded', 'server_error') });
      await expect(
        new OpenAiImageDescriber({ apiKey: 'k', client: client() }).describe(Buffer.from('x'), { mimeType: 'image/png' }),
      ).rejects.toMatchObject({
        code: 'UPSTREAM_FAILED',
      });
    });
  });

  describe('OpenAiSpeechSynthesizer', () => {
    it('posts the text and voice and returns the audio bytes with their mime type', async () => {
      const synthesizer = new OpenAiSpeechSynthesizer({ apiKey: 'sk-test', client: client() });
      expect(synthesizer.model).toBe('openai/gpt-4o-mini-tts');
      const result = await synthesizer.synthesize('Hello there.', { voice: 'alloy', speed: 1.25 });
      expect(result.mimeType).toBe('audio/mpeg');
      expect(result.audio.toString('latin1')).toBe('ID3\u0004fake-mp3-bytes');
      expect(fake.last().path).toBe('/v1/audio/speech');
      expect(fake.last().json).toEqual({
        model: 'gpt-4o-mini-tts',
        voice: 'alloy',
        input: 'Hello there.',
        response_format: 'mp3',
        speed: 1.25,
      });
    });

    it('maps provider errors', async () => {
      fake.replyOnce({ status: 402, json: { error: { message: 'Insufficient balance', type: 'billing_error', code: null } } });
      await expect(
        new OpenAiSpeechSynthesizer({ apiKey: 'k', client: client() }).synthesize('x', { voice: 'alloy' }),
      ).rejects.toMatchObject({
        code: 'PROVIDER_LIMIT_REACHED',
      });
    });
  });

  it('export JSON schemas for their options', () => {
    for (const schema of [openAiTranscriberOptionsSchema, openAiImageDescriberOptionsSchema, openAiSpeechSynthesizerOptionsSchema]) {
      expect(schema).toMatchObject({ type: 'object', required: ['apiKey'], additionalProperties: false });
      expect(schema.properties.model).toBeDefined();
    }
  });
});
