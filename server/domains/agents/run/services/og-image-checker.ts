import type { TAgentFinding } from '../../../../../contract/agents/executions.js';
import type { PageContext } from '../context.js';
import { errorMessageOf, fetchWith, isSuccess } from '../fetch-page.js';
import type { DraftFinding, FetchOptions } from '../findings.js';
import { cssString, metaTagsOf, parseHtml, resolveHttpUrl } from '../read-html.js';
import { imageSize, type ImageSize } from './image-size.js';
import type { BuiltinService, ServiceResult } from './service.js';

/**
 * The og-image-checker service: the Open Graph and Twitter card tags social
 * networks read for a page's preview, and whether its og:image is an image
 * they can show. Sizes are the ones Facebook documents: at least 200×200,
 * 1200×630 for a large preview.
 */

export const CHECKED_TAGS = ['og:title', 'og:description', 'og:image', 'og:url', 'twitter:card'] as const;
// Without a title or an image a shared link shows no real preview; the others only make it poorer.
const MISSING_SEVERITY: Record<(typeof CHECKED_TAGS)[number], TAgentFinding['severity']> = {
  'og:title': 'medium',
  'og:image': 'medium',
  'og:description': 'low',
  'og:url': 'low',
  'twitter:card': 'low',
};
export const MIN_IMAGE = { width: 200, height: 200 };
export const RECOMMENDED_IMAGE = { width: 1200, height: 630 };
/** Enough for the header of any of the formats imageSize reads (a JPEG's EXIF can push its size far in). */
const IMAGE_HEADER_BYTES = 64 * 1024;

const SOURCE = 'service:og-image-checker';

export interface ImageCheck {
  url: string;
  status?: number;
  contentType?: string;
  size?: ImageSize;
  ok: boolean;
  error?: string;
}

function tagFinding(page: PageContext, fields: Pick<DraftFinding, 'title' | 'description' | 'severity' | 'suggestion' | 'htmlSelector'>): DraftFinding {
  return { ...fields, targetText: '', occurrence: 1, sourceUrl: page.url, isPageLevel: true, issueType: 'open-graph', confidence: 100, source: SOURCE };
}

export async function checkImage(url: string, options: FetchOptions): Promise<ImageCheck> {
  try {
    const answer = await fetchWith(url, options, { maxBytes: IMAGE_HEADER_BYTES, truncate: true });
    const check: ImageCheck = { url, status: answer.status, contentType: answer.contentType, ok: false };
    if (!isSuccess(answer.status)) return { ...check, error: `answers HTTP ${answer.status}` };
    if (!answer.contentType.startsWith('image/')) return { ...check, error: `is ${answer.contentType || 'of no content type'}, not an image` };
    const size = imageSize(answer.body);
    return { ...check, ...(size ? { size } : {}), ok: true };
  } catch (error) {
    return { url, ok: false, error: errorMessageOf(error) };
  }
}

export async function checkOgImage(page: PageContext, options: FetchOptions): Promise<ServiceResult> {
  const doc = parseHtml(page.html ?? '');
  const meta = metaTagsOf(doc);
  const tags = Object.fromEntries(CHECKED_TAGS.map((tag) => [tag, meta.get(tag) ?? null]));
  const findings: DraftFinding[] = [];
  for (const tag of CHECKED_TAGS) {
    if (meta.get(tag)) continue;
    findings.push(
      tagFinding(page, {
        title: `Missing ${tag}`,
        description: `The page has no ${tag} meta tag, which social networks read for a shared link's preview.`,
        severity: MISSING_SEVERITY[tag],
        suggestion: `Add <meta ${tag.startsWith('og:') ? 'property' : 'name'}="${tag}" content="…"> to the page's <head>.`,
        htmlSelector: 'head',
      }),
    );
  }

  let image: ImageCheck | undefined;
  const declared = meta.get('og:image');
  if (declared) {
    const selector = `meta[property=${cssString('og:image')}]`;
    const url = resolveHttpUrl(declared, page.finalUrl);
    image = url === undefined ? { url: declared, ok: false, error: 'is not an http or https URL' } : await checkImage(url, options);
    if (!image.ok) {
      const notAnImage = image.status !== undefined && isSuccess(image.status);
      findings.push(
        tagFinding(page, {
          title: notAnImage ? 'og:image is not an image' : 'og:image is unreachable',
          description: `The og:image ${image.url} ${image.error}.`,
          severity: notAnImage ? 'medium' : 'high',
          suggestion: 'Point og:image at a reachable PNG, JPEG, GIF or WebP image of at least 1200×630.',
          htmlSelector: selector,
        }),
      );
    } else if (image.size) {
      const { width, height } = image.size;
      if (width < MIN_IMAGE.width || height < MIN_IMAGE.height) {
        findings.push(
          tagFinding(page, {
            title: 'og:image is too small',
            description: `The og:image is ${width}×${height}; social networks need at least ${MIN_IMAGE.width}×${MIN_IMAGE.height} to show it.`,
            severity: 'medium',
            suggestion: `Use an image of ${RECOMMENDED_IMAGE.width}×${RECOMMENDED_IMAGE.height}.`,
            htmlSelector: selector,
          }),
        );
      } else if (width < RECOMMENDED_IMAGE.width || height < RECOMMENDED_IMAGE.height) {
        findings.push(
          tagFinding(page, {
            title: 'og:image is smaller than recommended',
            description: `The og:image is ${width}×${height}; ${RECOMMENDED_IMAGE.width}×${RECOMMENDED_IMAGE.height} gives a large preview.`,
            severity: 'low',
            suggestion: `Use an image of ${RECOMMENDED_IMAGE.width}×${RECOMMENDED_IMAGE.height}.`,
            htmlSelector: selector,
          }),
        );
      }
    }
  }
  return { findings, output: { tags, image: image ?? null } };
}

export const ogImageChecker: BuiltinService = { needs: ['web-page-html'], run: checkOgImage };
