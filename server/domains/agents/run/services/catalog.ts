import { brokenLinks } from './broken-links.js';
import { accessibilityChecker, screenshot } from './browser-services.js';
import { crawler } from './crawler.js';
import { ogImageChecker } from './og-image-checker.js';
import type { BuiltinService } from './service.js';

/** The built-in services by `serviceId` (the built-in agents' IDs, server/domains/agents/builtins.ts). */
export const BUILTIN_SERVICES: Readonly<Record<string, BuiltinService>> = {
  'broken-links': brokenLinks,
  crawler,
  screenshot,
  'accessibility-checker': accessibilityChecker,
  'og-image-checker': ogImageChecker,
};
