/**
 * The evaluator with fake ports: every sender judged and saved, the warn and breach gauges published on
 * every run, and a change announced (returned, logged, notified) only when the state moved AND this run's
 * conditional save changed it. Then describeChange, the notification an operator reads.
 */
import { describe, expect, it } from 'vitest';
import {
  crossedThreshold,
  DEFAULT_THRESHOLDS,
  describeChange,
  type EvaluatorDeps,
  evaluateReputation,
  type Rates,
  type ReputationState,
  rates,
  type SenderCounts,
  type StateChange,
} from '../../../lambdas/core/reputation/index.js';
import { recordingLog } from '../support/log.js';

const NOW = Date.UTC(2026, 4, 1, 12, 30);
const T = DEFAULT_THRESHOLDS;

const sender = (
  name: string,
  storedState: ReputationState | undefined,
  delivered: number,
  hardBounced = 0,
  complained = 0,
): SenderCounts => ({
  provider: 'ses',
  sender: name,
  ...(storedState === undefined ? {} : { storedState }),
  delivered,
  hardBounced,
  softBounced: 0,
  complained,
});

/** Fake ports recording every call; `lost` names the senders whose conditional save finds another state. */
function fakeDeps(senders: SenderCounts[], lost: string[] = [], withNotify = true) {
  const { log, lines } = recordingLog();
  const calls = {
    senders: [] as unknown[][],
    saves: [] as unknown[][],
    notified: [] as StateChange[],
    published: [] as unknown[],
    lines,
  };
  const deps: EvaluatorDeps = {
    senders: async (...args) => {
      calls.senders.push(args);
      return senders;
    },
    save: async (key, previous, next, r, nowMs) => {
      calls.saves.push([key, previous, next, r, nowMs]);
      return !lost.includes(key.sender);
    },
    publish: (gauges) => calls.published.push(gauges),
    thresholds: T,
    log,
    now: () => NOW,
  };
  if (withNotify)
    deps.notify = async (change) => {
      calls.notified.push(change);
    };
  return { deps, calls };
}

const change = (name: string, previous: ReputationState, state: ReputationState, r: Rates): StateChange => ({
  provider: 'ses',
  sender: name,
  previous,
  state,
  window: '24h',
  ...r,
  threshold: crossedThreshold(state, r, T),
  thresholds: T,
});

describe('evaluateReputation', () => {
  const senders = [
    sender('new-breach.example', undefined, 950, 50), // never judged, 5 %: ok → breach
    sender('still-warn.example', 'warn', 9700, 300), // 3 %: warn again, no change
    sender('lost-save.example', 'ok', 9800, 200), // 2 %: ok → warn, but the conditional save lost
    sender('quiet.example', undefined, 10), // never judged, under the volume: ok, the default, no change
    sender('recovered.example', 'breach', 9801, 199), // under warn: breach → ok
    sender('complaints.example', undefined, 9995, 0, 5), // 0.05 % complaints: ok → warn
    sender('steady.example', 'ok', 5000), // ok again, no change (3 warn among 7: not as many as the rest)
  ];

  it('counts warn and breach, saves every sender, and reports only the changes its own saves made', async () => {
    const { deps, calls } = fakeDeps(senders, ['lost-save.example']);
    const result = await evaluateReputation(deps);

    const expected = [
      change('new-breach.example', 'ok', 'breach', rates(senders[0]!)),
      change('recovered.example', 'breach', 'ok', rates(senders[4]!)),
      change('complaints.example', 'ok', 'warn', rates(senders[5]!)),
    ];
    expect(result).toEqual({ evaluated: 7, warn: 3, breach: 1, changes: expected });
    expect(expected.map((c) => c.threshold)).toEqual([
      'breach: hard bounces ≥ 4 %',
      'under warn (bounces 2 %, complaints 0.05 %)',
      'warn: complaints ≥ 0.05 %',
    ]);
    expect(calls.senders).toEqual([['24h', NOW]]);
    expect(calls.saves).toEqual(
      senders.map((s, i) => [
        { provider: 'ses', sender: s.sender },
        s.storedState,
        ['breach', 'warn', 'warn', 'ok', 'ok', 'warn', 'ok'][i],
        rates(s),
        NOW,
      ]),
    );
    expect(calls.notified).toEqual(expected);
    expect(calls.published).toEqual([{ SendersInWarn: 3, SendersInBreach: 1 }]);
  });

  it('logs one WARN line per change, naming the sender, both states, the rates and the threshold', async () => {
    const { deps, calls } = fakeDeps([senders[0]!, senders[1]!]);
    await evaluateReputation(deps);
    expect(calls.lines).toEqual([
      [
        'warn',
        'sender reputation changed',
        {
          sender: 'new-breach.example',
          provider: 'ses',
          from: 'ok',
          to: 'breach',
          attempts: 1000,
          bounceRate: 0.05,
          complaintRate: 0,
          threshold: 'breach: hard bounces ≥ 4 %',
        },
      ],
    ]);
  });

  it('runs without a notifier (the local runtime: the WARN line is the announcement)', async () => {
    const { deps, calls } = fakeDeps([senders[0]!], [], false);
    const result = await evaluateReputation(deps);
    expect(result.changes).toEqual([change('new-breach.example', 'ok', 'breach', rates(senders[0]!))]);
    expect(calls.lines).toHaveLength(1);
  });

  it('publishes zeros when no sender is registered', async () => {
    const { deps, calls } = fakeDeps([]);
    expect(await evaluateReputation(deps)).toEqual({ evaluated: 0, warn: 0, breach: 0, changes: [] });
    expect(calls.published).toEqual([{ SendersInWarn: 0, SendersInBreach: 0 }]);
    expect([calls.saves, calls.notified, calls.lines]).toEqual([[], [], []]);
  });
});

describe('describeChange', () => {
  // 1,051 attempts, 50 hard bounces (4.76 %), 1 complaint (0.10 %): both breach lines reached.
  const r = rates({ delivered: 1000, hardBounced: 50, softBounced: 0, complained: 1 });

  it('names the sender, both states, the rates and thresholds in percent, and the Gmail caveat', () => {
    expect(describeChange(change('news.example.com', 'warn', 'breach', r))).toEqual({
      subject: 'Ratchet: sender news.example.com (ses) is now breach',
      text: [
        'Sender news.example.com through ses went from warn to breach.',
        'Over the last 24 hours: 1051 attempts, hard-bounce rate 4.76 %, complaint rate 0.10 %.',
        'Threshold: breach: hard bounces ≥ 4 %, complaints ≥ 0.08 %.',
        'Thresholds: warn at 2.00 % hard bounces or 0.05 % complaints; breach at 4.00 % or 0.08 %; judged from 1000 attempts.',
        'Webhook complaint rates undercount Gmail, which reports no complaints to SES or Resend: check Postmaster Tools.',
      ].join('\n'),
    });
  });

  it('cuts the subject to 99 characters (SNS takes fewer than 100)', () => {
    const long = `${'a'.repeat(90)}.example.com`;
    const { subject } = describeChange(change(long, 'ok', 'warn', r));
    expect(subject).toBe(`Ratchet: sender ${long} (ses) is now warn`.slice(0, 99));
    expect(subject).toHaveLength(99);
  });
});
