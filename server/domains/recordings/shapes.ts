import type { TRecording } from '../../../contract/recordings/schemas.js';
import type { RecordingRecord } from './repo.js';

/** `HH:MM:SS` of a duration in milliseconds (whole seconds, rounded down). */
export function durationDisplay(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}

/** A stored recording in the contract's shape; `apiKey` comes from the reader, never from storage ('' in event payloads). */
export function toRecording(row: RecordingRecord, apiKey: string): TRecording {
  return {
    type: 'recorder',
    annotationId: row.id,
    recordingType: row.recordingType,
    mode: row.mode,
    metadata: { apiKey, documentId: row.documentId, organizationId: row.organizationId },
    recordedTime: { duration: row.durationMs, display: row.durationDisplay },
    displayName: row.displayName,
    from: row.fromUser,
    attachments: row.attachments,
    latestVersion: row.latestVersion,
    createdAt: Number(row.createdAt),
  };
}
