/**
 * What a refresh tells (pure): a source that starts failing (its channels cannot be
 * recorded or watched until it answers again) and that is back, a guide refresh that
 * failed (the programmes of the last good one stay) or was applied.
 */
import type { NewEvent } from '../../model/events/event.schemas.js';

export const sourceFailing = (source: { id: string; name: string }, reason: string): NewEvent => ({
  kind: 'source.failing',
  severity: 'error',
  message: `The source ${source.name} could not be refreshed (its channels stay as they were): ${reason}`,
  data: { source_id: source.id, reason },
});

export const sourceBack = (source: { id: string; name: string }): NewEvent => ({
  kind: 'source.back',
  severity: 'info',
  message: `The source ${source.name} answers again.`,
  data: { source_id: source.id },
});

export const guideFailed = (id: string, reason: string): NewEvent => ({
  kind: 'guide.failed',
  severity: 'warning',
  message: `A guide refresh failed (the programmes of the last one stay): ${reason}`,
  data: { guide_id: id, reason },
});

export const guideApplied = (id: string, location: string, result: { programmes: number }): NewEvent => ({
  kind: 'guide.applied',
  severity: 'info',
  message: `The guide ${location} was refreshed: ${result.programmes} programmes.`,
  data: { guide_id: id },
});
