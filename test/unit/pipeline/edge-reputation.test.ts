/**
 * The edge's reputation counting: one tally per provider, sender and hour of the events the inbox
 * stored now; a duplicate counts nothing; a failed counter write is logged and counted, and the request
 * is still answered 200 (it is queued and stored, so a retry would count nothing either).
 */
import { describe, expect, it } from 'vitest';
import type { SenderTally } from '../../../lambdas/core/reputation/counts.js';
import { recordingLog } from '../support/log.js';
import { edgeWith, event, request } from './fakes.js';

const delivered = (id: string, sender = 'example.com') => event({ eventId: id, kind: 'delivered', sender });

describe('reputation counting at the edge', () => {
  it('counts the events stored now, once each, grouped per sender; a retry counts nothing', async () => {
    const added: SenderTally[][] = [];
    const { edge } = edgeWith({ reputation: { add: async (t) => void added.push([...t]) } });
    const body = request({
      events: [
        delivered('a'),
        delivered('b'),
        event({ eventId: 'c', kind: 'hard_bounce', sender: 'example.com' }),
        delivered('d', 'other.example'),
        // No sender: not an outcome its mapper counts.
        event({ eventId: 'e', kind: 'unsubscribe' }),
      ],
    });
    expect((await edge.receive('fake', body)).status).toBe(200);
    expect((await edge.receive('fake', body)).body).toMatchObject({ admitted: 0, duplicates: 5 });
    expect(added).toHaveLength(1);
    expect(added[0]!.map(({ sender, delivered: d, hardBounced }) => [sender, d, hardBounced])).toEqual([
      ['example.com', 2, 1],
      ['other.example', 1, 0],
    ]);
  });

  it('a failed counter write is an ERROR line and ReputationCountsLost, never a 5xx', async () => {
    const { log, lines } = recordingLog();
    const { edge, counters } = edgeWith({
      log,
      reputation: {
        add: async () => {
          throw new Error('DynamoDB unavailable');
        },
      },
    });
    const answer = await edge.receive('fake', request({ events: [delivered('a'), delivered('b')] }));
    expect(answer.status).toBe(200);
    expect([...counters.totals]).toContainEqual(['ReputationCountsLost{provider=fake}', 2]);
    expect(lines).toContainEqual([
      'error',
      'reputation counter write failed; these events are not counted',
      { provider: 'fake', lost: 2, error: 'Error: DynamoDB unavailable' },
    ]);
  });
});
