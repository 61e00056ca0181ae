// What a media block costs in tokens, by the provider's published rules:
// - Anthropic images: scaled to fit 1568 px on the long edge (and ~1,600 tokens), then w·h/750.
// - OpenAI images (detail high): fit 2048², short side down to 768, then 85 + 170 per 512-px tile.
// - Gemini images: 258 when both sides ≤ 384, else 258 per 768-px tile.
// - PDF pages: Anthropic and OpenAI send each page as its text and an image (≈2,000 tokens a
//   page, their docs' middle figure); Gemini bills 258 a page.
// - Audio: Gemini 32 tokens a second; OpenAI about 10 (one per 100 ms).
// - Video: Gemini 263 tokens a second (frames at 1 fps plus the sound).
// OpenAI-compatible servers and Ollama are costed like OpenAI (most serve CLIP-style tiles).

import type { ProviderName } from '../models/types';
import type { MediaMeasure } from './measure';

const ANTHROPIC_LONG_EDGE = 1568;
const ANTHROPIC_MAX_IMAGE_TOKENS = 1_600;
const PAGE_TOKENS_TEXT_AND_IMAGE = 2_000;
const GEMINI_TILE_TOKENS = 258;
const GEMINI_AUDIO_PER_SECOND = 32;
const GEMINI_VIDEO_PER_SECOND = 263;
const OPENAI_AUDIO_PER_SECOND = 10;

export function mediaTokens(measure: MediaMeasure, provider: ProviderName): number {
  const google = provider === 'google';
  switch (measure.kind) {
    case 'image':
      if (provider === 'anthropic') return anthropicImageTokens(measure.width, measure.height);
      return google ? geminiImageTokens(measure.width, measure.height) : openAiImageTokens(measure.width, measure.height);
    case 'document':
      return measure.pages * (google ? GEMINI_TILE_TOKENS : PAGE_TOKENS_TEXT_AND_IMAGE);
    case 'audio':
      return Math.ceil(measure.seconds * (google ? GEMINI_AUDIO_PER_SECOND : OPENAI_AUDIO_PER_SECOND));
    case 'video':
      // Only Gemini takes video; a model set to take it in Settings is assumed to bill alike.
      return Math.ceil(measure.seconds * GEMINI_VIDEO_PER_SECOND);
  }
}

export function anthropicImageTokens(width: number, height: number): number {
  const scale = Math.min(1, ANTHROPIC_LONG_EDGE / Math.max(width, height));
  return Math.min(ANTHROPIC_MAX_IMAGE_TOKENS, Math.ceil((width * scale * (height * scale)) / 750));
}

export function openAiImageTokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shortSide = Math.min(1, 768 / Math.min(w, h));
  w *= shortSide;
  h *= shortSide;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

export function geminiImageTokens(width: number, height: number): number {
  if (width <= 384 && height <= 384) return GEMINI_TILE_TOKENS;
  return GEMINI_TILE_TOKENS * Math.ceil(width / 768) * Math.ceil(height / 768);
}
